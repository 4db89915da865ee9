#!/usr/bin/env node
// `npm start` (or `npm run example:gitops` at the repository root): runs the jobs of
// service-gitops.yml on this machine, against an emulator started for the run, in the order a
// repository sees them: a pull request (`preview`), the merge (`up`), a night without drift
// (`drift`, exit 0), someone editing a destination by hand, and the next night (`drift`, exit 2,
// the edit in the job summary). Each job's `run:` steps are run by bash as the workflow writes
// them; `uses:` steps (checkout, setup-node, the Pulumi CLI, upload-artifact) and `npm ci` are
// what this machine already has. Prints `summary: {…}` and destroys the stack.
//
// The project (`infra/`, the quick-start program) is a temporary folder next to this file.
// Needs `pulumi` and `jq` on PATH.
"use strict";

const { execFile } = require("child_process");
const fs = require("fs");
const path = require("path");
const { promisify } = require("util");
const yaml = require("js-yaml");
const { startEmulator } = require("service-emulator");
const { ServiceClient } = require("pulumi-service/sdk");

const API_KEY = "gitops-example-key";

async function main() {
  const workflow = yaml.load(fs.readFileSync(path.join(__dirname, "service-gitops.yml"), "utf8"));
  const emulator = await startEmulator({ apiKeys: [API_KEY] });
  const work = fs.mkdtempSync(path.join(__dirname, ".run-"));
  const infra = path.join(work, workflow.env.PROJECT_DIR);
  fs.mkdirSync(infra);
  fs.mkdirSync(path.join(work, "state"));
  fs.copyFileSync(path.join(__dirname, "..", "quickstart", "index.ts"), path.join(infra, "index.ts"));
  fs.writeFileSync(
    path.join(infra, "Pulumi.yaml"),
    "name: gitops-infra\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n",
  );
  // What `npm ci` gives the workflow: the project's package.json and its node_modules (here the
  // ones of the repository this example sits in, which hold pulumi-service and its bins).
  fs.writeFileSync(
    path.join(infra, "package.json"),
    JSON.stringify({ name: "infra", private: true, dependencies: { "pulumi-service": "*" } }, null, 2),
  );
  fs.symlinkSync(
    path.dirname(require.resolve("pulumi-service/package.json")) + "/node_modules",
    path.join(infra, "node_modules"),
  );
  const summaryFile = path.join(work, "step-summary.md");
  // The workflow's env, with the repository secrets this run stands in for.
  const env = {
    ...process.env,
    ...Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, String(v)])),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "gitops-example",
    SERVICE_API_KEY: API_KEY,
    GITHUB_STEP_SUMMARY: summaryFile,
  };
  const exec = promisify(execFile);
  // Asynchronous on purpose: the emulator answers from this process's event loop.
  const sh = async (script, cwd) => {
    try {
      const { stdout, stderr } = await exec("bash", ["-e", "-c", script], { cwd, env, maxBuffer: 64 << 20 });
      return { code: 0, out: stdout + stderr };
    } catch (err) {
      return {
        code: typeof err.code === "number" ? err.code : 1,
        out: `${err.stdout ?? ""}${err.stderr ?? ""}`,
      };
    }
  };
  const runJob = async (name) => {
    process.stdout.write(`\n» job ${name}\n`);
    for (const step of workflow.jobs[name].steps) {
      const label = step.name ?? step.uses ?? step.run;
      if (!step.run || step.run.trim() === "npm ci") {
        process.stdout.write(`  (already here: ${label})\n`);
        continue;
      }
      const dir = (step["working-directory"] ?? ".").replace(
        /\$\{\{\s*env\.(\w+)\s*\}\}/g,
        (_m, k) => env[k],
      );
      const r = await sh(step.run, path.join(work, dir));
      process.stdout.write(`  ${label}: exit ${r.code}\n${r.out.replace(/^/gm, "    ")}\n`);
      if (r.code !== 0) return r.code;
    }
    return 0;
  };

  const summary = {};
  try {
    const init = await sh(
      `pulumi stack init "$PULUMI_STACK" --non-interactive && pulumi config set service:baseUrl ${emulator.url}`,
      infra,
    );
    if (init.code !== 0) throw new Error(init.out);
    summary.preview = await runJob("preview");
    summary.up = await runJob("up");
    summary.drift = await runJob("drift");

    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: API_KEY });
    for await (const d of client.eventDestinations.list()) {
      if (d.description === "Audit events to Kinesis") {
        await client.eventDestinations.update(d.id, { description: "edited by hand" });
      }
    }
    fs.writeFileSync(summaryFile, "");
    summary.driftAfterEdit = await runJob("drift");
    summary.stepSummaryNamesTheEdit = /description.*edited by hand/.test(
      fs.readFileSync(summaryFile, "utf8"),
    );
    process.stdout.write(`\nsummary: ${JSON.stringify(summary)}\n`);
  } finally {
    const down = await sh(
      'pulumi destroy --stack "$PULUMI_STACK" --yes --skip-preview --remove --non-interactive',
      infra,
    );
    if (down.code !== 0) {
      process.stderr.write(down.out);
      process.exitCode = 1;
    }
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  const expected = { preview: 0, up: 0, drift: 0, driftAfterEdit: 2, stepSummaryNamesTheEdit: true };
  if (JSON.stringify(summary) !== JSON.stringify(expected)) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
