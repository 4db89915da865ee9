#!/usr/bin/env node
// `node scripts/with-pulumi.js <command> [args…]`: runs a command with this project's Pulumi CLI
// first on PATH (see pulumi-env.js), as a user's machine has `pulumi` installed. Exits with the
// command's exit code. Used by the example scripts (`npm run example:*`).
"use strict";

const { spawnSync } = require("child_process");
const { pulumiEnv } = require("./pulumi-env");

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  process.stderr.write("usage: node scripts/with-pulumi.js <command> [args…]\n");
  process.exit(2);
}
const r = spawnSync(cmd, args, { stdio: "inherit", env: pulumiEnv() });
if (r.error) {
  process.stderr.write(`${cmd}: ${r.error.message}\n`);
  process.exit(1);
}
process.exit(r.status ?? 1);
