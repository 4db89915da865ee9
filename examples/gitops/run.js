#!/usr/bin/env node
// `npm start` (or `npm run example:gitops` at the repository root): runs the jobs of
// service-gitops.yml on this machine, against an emulator started for the run, for every stack
// of the workflow's matrix (in parallel, as GitHub runs them), in the order a repository sees
// them: a pull request (`preview`), the merge (`up`), a night without drift, someone editing a
// destination of `dev` by hand, two nights with drift (one issue opened, then updated), the
// next merge (`up --refresh` puts the value back), and a night without drift (the issue closed).
// Each job's `run:` steps are run by bash as the workflow writes them; `uses:` steps (checkout,
// setup-node, the Pulumi CLI, upload-artifact) and `npm ci` are what this machine already has;
// `gh` is local-gh.js, which keeps the issues in a JSON file. Prints `summary: {…}` and
// destroys the stacks.
//
// The project (`infra/`) is checked out once per stack (as each matrix job has its own checkout)
// in a temporary folder next to this file.
// Needs `pulumi` and `jq` on PATH.
"use strict";

const { execFile } = require("child_process");
const fs = require("fs");
const path = require("path");
const { promisify } = require("util");
const yaml = require("js-yaml");
const { startEmulator } = require("service-emulator");
const { ServiceClient } = require("pulumi-service/client");

const API_KEY = "gitops-example-key";

/** The first `node_modules` folder from `dir` upwards that holds package `name`. */
function nearestNodeModules(dir, name) {
  for (let d = dir; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, "node_modules", name, "package.json")))
      return path.join(d, "node_modules");
    if (path.dirname(d) === d) throw new Error(`no node_modules with ${name} above ${dir}: run npm install`);
  }
}

async function main() {
  const workflow = yaml.load(fs.readFileSync(path.join(__dirname, "service-gitops.yml"), "utf8"));
  const emulator = await startEmulator({ apiKeys: [API_KEY] });
  const work = fs.mkdtempSync(path.join(__dirname, ".run-"));
  fs.mkdirSync(path.join(work, "state"));
  const stacks = workflow.jobs.up.strategy.matrix.stack;
  /** The checkout of one matrix entry (each job of GitHub's matrix runs in a checkout of its own). */
  const checkout = (stack) => path.join(work, `checkout-${stack}`);
  const infra = (stack) => path.join(checkout(stack), workflow.env.PROJECT_DIR);
  // What `npm ci` gives each job: the project (infra/) with its dependencies. Here its
  // node_modules is the one that holds this example's pulumi-service (in a copy of the example,
  // its own; in the repository, the workspace's), linked instead of installed again.
  const nodeModules = nearestNodeModules(__dirname, "pulumi-service");
  for (const stack of stacks) {
    fs.cpSync(path.join(__dirname, "infra"), infra(stack), {
      recursive: true,
      filter: (src) => path.basename(src) !== "node_modules",
    });
    fs.symlinkSync(nodeModules, path.join(infra(stack), "node_modules"));
  }
  // `gh`, as the workflow calls it: local-gh.js, first on PATH.
  const bin = path.join(work, "bin");
  fs.mkdirSync(bin);
  fs.symlinkSync(path.join(__dirname, "local-gh.js"), path.join(bin, "gh"));
  const issuesFile = path.join(work, "issues.json");
  const issues = () => (fs.existsSync(issuesFile) ? JSON.parse(fs.readFileSync(issuesFile, "utf8")) : []);
  // The workflow's env, with the repository secrets this run stands in for.
  const baseEnv = {
    ...process.env,
    ...Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, String(v)])),
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "gitops-example",
    SERVICE_API_KEY: API_KEY,
    // The repository variable of the same name: `FAST_DEPLOY=true npm start` deploys in fast mode.
    FAST_DEPLOY: process.env.FAST_DEPLOY ?? "",
    LOCAL_GH_STATE: issuesFile,
  };
  const exec = promisify(execFile);
  // Asynchronous on purpose: the emulator answers from this process's event loop.
  const sh = async (script, cwd, env) => {
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
  const expand = (text, vars) => String(text).replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_m, k) => vars[k] ?? "");
  /** One matrix entry of a job: its env, then its `run:` steps in order; the exit code. */
  const runJobFor = async (name, stack) => {
    const job = workflow.jobs[name];
    const vars = {
      "matrix.stack": stack,
      "github.token": "local",
      ...Object.fromEntries(Object.entries(baseEnv).map(([k, v]) => [`env.${k}`, v])),
    };
    const env = {
      ...baseEnv,
      ...Object.fromEntries(Object.entries(job.env ?? {}).map(([k, v]) => [k, expand(v, vars)])),
    };
    env.GITHUB_STEP_SUMMARY = path.join(work, `summary-${name}-${stack}.md`);
    const log = [`» job ${name} (${stack})`];
    let code = 0;
    for (const step of job.steps) {
      const label = step.name ?? step.uses ?? step.run;
      if (!step.run || step.run.trim() === "npm ci") continue;
      const r = await sh(
        step.run,
        path.join(checkout(stack), expand(step["working-directory"] ?? ".", vars)),
        env,
      );
      log.push(`  ${label}: exit ${r.code}`, r.out.replace(/^/gm, "    "));
      if (r.code !== 0) {
        code = r.code;
        break;
      }
    }
    process.stdout.write(`${log.join("\n")}\n`);
    return code;
  };
  /** A job for every stack of the matrix, in parallel: `{ dev: 0, prod: 0 }`. */
  const runJob = async (name) =>
    Object.fromEntries(await Promise.all(stacks.map(async (stack) => [stack, await runJobFor(name, stack)])));
  const openIssues = () =>
    issues()
      .filter((i) => i.state === "open")
      .map((i) => i.title);

  const steps = [];
  const record = (what, codes) =>
    steps.push({ what, codes, openIssues: openIssues(), issues: issues().length });
  try {
    for (const stack of stacks) {
      const init = await sh(
        `pulumi stack init ${stack} --non-interactive && pulumi config set --stack ${stack} service:baseUrl ${emulator.url}`,
        infra(stack),
        baseEnv,
      );
      if (init.code !== 0) throw new Error(init.out);
    }
    record("pull request: preview", await runJob("preview"));
    record("merge: up", await runJob("up"));
    record("night: drift", await runJob("drift"));

    const outputs = await sh("pulumi stack output --json --stack dev", infra("dev"), baseEnv);
    const audit = JSON.parse(outputs.out).destinationIds.audit;
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: API_KEY });
    await client.eventDestinations.update(audit, { description: "edited by hand" });
    record("night after a hand edit of dev: drift", await runJob("drift"));
    record("next night: drift", await runJob("drift"));
    record("merge: up --refresh", await runJob("up"));
    record("night: drift", await runJob("drift"));
    const issue = issues()[0];
    process.stdout.write(
      `\nsummary: ${JSON.stringify({ steps, issueBodyNamesTheEdit: /`"edited by hand"`/.test(issue?.body ?? ""), closedWith: issue?.comments ?? [] })}\n`,
    );
  } finally {
    for (const stack of stacks) {
      const down = await sh(
        `pulumi destroy --stack ${stack} --yes --skip-preview --remove --non-interactive`,
        infra(stack),
        baseEnv,
      );
      if (down.code !== 0) {
        process.stderr.write(down.out);
        process.exitCode = 1;
      }
    }
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
