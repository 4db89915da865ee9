#!/usr/bin/env node
// `npm start`: deploys this program (index.ts) to a stack `dev` against an emulator started in
// this process, checks that a second `up` changes nothing, prints what the service holds (one
// line of JSON starting with `summary:`), and destroys it all (the stack too, so no
// Pulumi.dev.yaml is left). Needs `pulumi` on PATH; the state goes to a local file backend in a
// temporary folder, never to your Pulumi login.
"use strict";

const { execFile } = require("child_process");
const { promisify } = require("util");
const fs = require("fs");
const os = require("os");
const path = require("path");
const { startEmulator } = require("service-emulator");
const { ServiceClient } = require("pulumi-service/client");

const API_KEY = "quickstart-example-key";
const STACK = "dev";

async function main() {
  const emulator = await startEmulator({ apiKeys: [API_KEY] });
  const state = fs.mkdtempSync(path.join(os.tmpdir(), "quickstart-state-"));
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_CONFIG_PASSPHRASE: "quickstart-example",
    PULUMI_SKIP_UPDATE_CHECK: "1",
  };
  // Asynchronous on purpose: the emulator answers from this process's event loop.
  const pulumi = async (...args) => {
    try {
      const { stdout } = await promisify(execFile)(
        "pulumi",
        [...args, "--stack", STACK, "--non-interactive"],
        {
          cwd: __dirname,
          env,
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      return stdout;
    } catch (err) {
      throw new Error(`pulumi ${args.join(" ")} failed:\n${err.stdout}${err.stderr}`);
    }
  };
  const step = (text) => process.stdout.write(`\n» ${text}\n`);
  const client = new ServiceClient({ baseUrl: emulator.url, apiKey: API_KEY });
  let initialized = false;
  try {
    step(`pulumi stack init ${STACK}, with the emulator's URL and key as its config`);
    await promisify(execFile)("pulumi", ["stack", "init", STACK, "--non-interactive"], {
      cwd: __dirname,
      env,
    });
    initialized = true;
    await pulumi("config", "set", "service:baseUrl", emulator.url);
    await pulumi("config", "set", "--secret", "service:apiKey", API_KEY);
    step("pulumi up");
    process.stdout.write(await pulumi("up", "--yes", "--skip-preview"));
    step("pulumi up again: no changes");
    process.stdout.write(await pulumi("up", "--yes", "--skip-preview", "--expect-no-changes"));
    const outputs = JSON.parse(await pulumi("stack", "output", "--json"));
    const destinations = [];
    for await (const d of client.eventDestinations.list()) destinations.push(d);
    const subscriptions = [];
    for await (const s of client.eventSubscriptions.list()) subscriptions.push(s);
    const summary = {
      destinations: destinations.map((d) => `${d.description}: ${Object.keys(d.target)[0]}`).sort(),
      subscriptions: subscriptions
        .map((s) => `${s.description || "(no description)"}: ${s.sources.length} event types`)
        .sort(),
      abuseReport: outputs.abuseReport.status,
    };
    process.stdout.write(`summary: ${JSON.stringify(summary)}\n`);
  } finally {
    if (initialized) {
      step("pulumi destroy, pulumi stack rm");
      try {
        process.stdout.write(await pulumi("destroy", "--yes", "--skip-preview", "--remove"));
      } catch (err) {
        process.stderr.write(`${err.message}\n`);
        process.exitCode = 1;
      }
    }
    let left = 0;
    for await (const _ of client.eventDestinations.list()) left++;
    for await (const _ of client.eventSubscriptions.list()) left++;
    process.stdout.write(`left on the service after destroy: ${left}\n`);
    if (left !== 0) process.exitCode = 1;
    await emulator.close();
    fs.rmSync(state, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
