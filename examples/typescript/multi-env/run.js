#!/usr/bin/env node
// `npm start` (or `npm run example:multi-env` at the repository root): deploys both environments
// against an emulator started in this process, then the alerts program of each, prints what the
// service holds per environment (one line of JSON starting with `summary:`), and destroys it all.
//
// The programs run from a copy of events/ and alerts/ in a temporary folder next to this file,
// so that initialising the stacks (which writes an encryption salt into Pulumi.<stack>.yaml)
// leaves the committed stack files untouched. Needs `pulumi` on PATH; the state goes to a local
// file backend in that folder.
"use strict";

const { execFile } = require("child_process");
const { promisify } = require("util");
const fs = require("fs");
const path = require("path");
const { startEmulator } = require("service-emulator");
const { ServiceClient } = require("pulumi-service/client");

const ENVS = ["dev", "prod"];
const API_KEY = "multi-env-example-key";

async function main() {
  const emulator = await startEmulator({ apiKeys: [API_KEY] });
  const work = fs.mkdtempSync(path.join(__dirname, ".run-"));
  const env = {
    ...process.env,
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "multi-env-example",
    PULUMI_SKIP_UPDATE_CHECK: "1",
    SERVICE_BASE_URL: emulator.url,
    SERVICE_API_KEY: API_KEY,
  };
  fs.mkdirSync(path.join(work, "state"));
  for (const program of ["events", "alerts"])
    fs.cpSync(path.join(__dirname, program), path.join(work, program), { recursive: true });
  // Asynchronous on purpose: the emulator answers from this process's event loop.
  const pulumi = async (program, ...args) => {
    try {
      const { stdout } = await promisify(execFile)("pulumi", [...args, "--non-interactive"], {
        cwd: path.join(work, program),
        env,
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout;
    } catch (err) {
      throw new Error(`pulumi ${args.join(" ")} (${program}) failed:\n${err.stdout}${err.stderr}`);
    }
  };
  const step = (text) => process.stdout.write(`\n» ${text}\n`);
  try {
    for (const program of ["events", "alerts"]) {
      for (const stack of ENVS) {
        step(`${program}: pulumi up (stack ${stack})`);
        await pulumi(program, "stack", "init", stack);
        process.stdout.write(await pulumi(program, "up", "--yes", "--skip-preview", "--stack", stack));
      }
    }
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: API_KEY });
    const summary = {};
    for (const stack of ENVS) {
      const out = JSON.parse(await pulumi("events", "stack", "output", "--json", "--stack", stack));
      const alerts = JSON.parse(await pulumi("alerts", "stack", "output", "--json", "--stack", stack));
      const changes = await client.eventSubscriptions.get(out.subscriptionId);
      const security = await client.eventSubscriptions.get(alerts.subscriptionId);
      const destinations = await Promise.all(
        Object.values(out.destinationIds).map((id) => client.eventDestinations.get(id)),
      );
      summary[stack] = {
        destinations: destinations.map((d) => `${d.description}: ${Object.keys(d.target)[0]}`),
        changes: changes.sources.map((s) => s.type),
        alertsGoTo:
          security.destinations
            .map((d) => d.id)
            .sort()
            .join() === Object.values(out.destinationIds).sort().join()
            ? "the same destinations"
            : "other destinations",
      };
    }
    process.stdout.write(`summary: ${JSON.stringify(summary)}\n`);
  } finally {
    for (const program of ["alerts", "events"]) {
      for (const stack of ENVS) {
        step(`${program}: pulumi destroy (stack ${stack})`);
        try {
          await pulumi(program, "destroy", "--yes", "--skip-preview", "--remove", "--stack", stack);
        } catch (err) {
          process.stderr.write(`destroy of ${program}/${stack} failed: ${err.message}\n`);
          process.exitCode = 1;
        }
      }
    }
    let left = 0;
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: API_KEY });
    for await (const _ of client.eventDestinations.list()) left++;
    for await (const _ of client.eventSubscriptions.list()) left++;
    process.stdout.write(`left on the service after destroy: ${left}\n`);
    if (left !== 0) process.exitCode = 1;
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
