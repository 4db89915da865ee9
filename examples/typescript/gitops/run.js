#!/usr/bin/env node
// `npm start` (or `npm run example:gitops` at the repository root): runs the jobs of
// service-gitops.yml on this machine, against an emulator started for the run, for every stack
// of the workflow's matrix (in parallel, as GitHub runs them), in the order a repository sees
// them: a pull request (`preview` and its comment), the merge (`up`), a night without drift,
// someone editing a destination of `dev` by hand, two nights with drift (one issue opened, then
// updated), the next merge (`up --refresh` puts the value back), a night without drift (the
// issue closed), and a pull request of two pushes (its one comment updated; the second push
// renames the destination, which the guard refuses).
// Each job's `run:` steps are run by bash as the workflow writes them (its `${{ secrets.* }}`
// and `${{ vars.* }}` are the stand-ins below); `uses:` steps (checkout, setup-node, the Pulumi
// CLI) and `npm ci` are what this machine already has, the artifact steps copy files within the
// run; `gh` is local-gh.js, which keeps the issues and the pull requests' comments in a JSON
// file. Prints `summary: {…}` and destroys the stacks. The nightly `unmanaged` job is not run
// here.
//
// The repository is a temporary folder next to this file: `infra/` with the stacks' settings
// files, made first as the README says (`pulumi stack init <stack>`, `pulumi config set`, the
// file committed). `dev`'s was made against the team's backend, so the stack exists before the
// first run; `prod`'s against another one (an engineer's trial), so the workflow's
// `pulumi stack select --create` creates it. Each job of each stack runs in a fresh checkout of
// that repository, as on GitHub's runners.
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
  fs.mkdirSync(path.join(work, "trial-state"));
  const stacks = workflow.jobs.up.strategy.matrix.stack;
  const repository = path.join(work, "repository");
  const project = path.join(repository, workflow.env.PROJECT_DIR);
  fs.cpSync(path.join(__dirname, "infra"), project, {
    recursive: true,
    filter: (src) => path.basename(src) !== "node_modules",
  });
  // What `npm ci` gives each job: the project with its dependencies. Here its node_modules is
  // the one that holds this example's pulumi-service (in a copy of the example, its own; in the
  // repository, the workspace's), linked instead of installed again.
  const nodeModules = nearestNodeModules(__dirname, "pulumi-service");
  let checkouts = 0;
  /** A fresh checkout of the repository for one job of one stack: its folder. */
  const checkout = (name, stack) => {
    const dir = path.join(work, `checkout-${++checkouts}-${name}-${stack}`);
    fs.cpSync(repository, dir, { recursive: true });
    fs.symlinkSync(nodeModules, path.join(dir, workflow.env.PROJECT_DIR, "node_modules"));
    return dir;
  };
  // `gh`, as the workflow calls it: local-gh.js, first on PATH.
  const bin = path.join(work, "bin");
  fs.mkdirSync(bin);
  fs.symlinkSync(path.join(__dirname, "local-gh.js"), path.join(bin, "gh"));
  const ghFile = path.join(work, "github.json");
  const github = () =>
    fs.existsSync(ghFile) ? JSON.parse(fs.readFileSync(ghFile, "utf8")) : { issues: [], comments: [] };
  const issues = () => github().issues;
  /** The comments of pull request `pr` (on GitHub, an issue's comments). */
  const commentsOn = (pr) => github().comments.filter((c) => c.issue_number === pr);
  // The repository secrets and variables this run stands in for: the team's backend is a local
  // file backend, and no Pulumi Cloud token.
  const secrets = {
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_ACCESS_TOKEN: "",
    PULUMI_CONFIG_PASSPHRASE: "gitops-example",
    SERVICE_API_KEY: API_KEY,
  };
  // The repository variable of the same name: `FAST_DEPLOY=true npm start` deploys in fast mode.
  const vars = { FAST_DEPLOY: process.env.FAST_DEPLOY ?? "" };
  const expand = (text, values) =>
    String(text).replace(/\$\{\{\s*([\w.]+)\s*\}\}/g, (_m, k) => values[k] ?? "");
  const workflowValues = {
    ...Object.fromEntries(Object.entries(secrets).map(([k, v]) => [`secrets.${k}`, v])),
    ...Object.fromEntries(Object.entries(vars).map(([k, v]) => [`vars.${k}`, v])),
  };
  // The workflow's env, its expressions expanded.
  const baseEnv = {
    ...process.env,
    ...Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, expand(v, workflowValues)])),
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    LOCAL_GH_STATE: ghFile,
    GITHUB_REPOSITORY: "example/infra",
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
  // The artifacts of the current workflow run, by name: upload-artifact and download-artifact.
  const artifacts = path.join(work, "artifacts");
  /** `actions/upload-artifact` and `actions/download-artifact` (a `pattern` with `*`) on a folder. */
  const artifactStep = (step, values, dir) => {
    const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expand(v, values)]));
    if (step.uses.startsWith("actions/upload-artifact@")) {
      const file = path.join(dir, w.path);
      if (!fs.existsSync(file)) return;
      fs.mkdirSync(path.join(artifacts, w.name), { recursive: true });
      fs.copyFileSync(file, path.join(artifacts, w.name, path.basename(file)));
    } else if (step.uses.startsWith("actions/download-artifact@")) {
      const pattern = new RegExp(`^${w.pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
      for (const name of fs.existsSync(artifacts) ? fs.readdirSync(artifacts) : [])
        if (pattern.test(name))
          fs.cpSync(path.join(artifacts, name), path.join(dir, w.path, name), { recursive: true });
    }
  };
  /** One matrix entry of a job (`stack`; `""` for a job without a matrix): its exit code. */
  const runJobFor = async (name, stack, event = {}) => {
    const job = workflow.jobs[name];
    const values = {
      ...workflowValues,
      ...event,
      "matrix.stack": stack,
      "github.token": "local",
      ...Object.fromEntries(Object.entries(baseEnv).map(([k, v]) => [`env.${k}`, v])),
    };
    const env = {
      ...baseEnv,
      ...Object.fromEntries(Object.entries(job.env ?? {}).map(([k, v]) => [k, expand(v, values)])),
    };
    env.GITHUB_STEP_SUMMARY = path.join(work, `summary-${name}-${stack}.md`);
    const dir = checkout(name, stack);
    const log = [`» job ${name} (${stack})`];
    let code = 0;
    for (const step of job.steps) {
      const label = expand(step.name ?? step.uses ?? step.run, values);
      // After a failed step, only the steps marked `if: always()` run, as on GitHub.
      if (code !== 0 && !/\balways\(\)/.test(step.if ?? "")) continue;
      if (/^actions\/(upload|download)-artifact@/.test(step.uses ?? "")) {
        artifactStep(step, values, dir);
        continue;
      }
      if (!step.run || step.run.trim() === "npm ci") continue;
      const r = await sh(step.run, path.join(dir, expand(step["working-directory"] ?? ".", values)), {
        ...env,
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, values)])),
      });
      log.push(`  ${label}: exit ${r.code}`, r.out.replace(/^/gm, "    "));
      if (r.code !== 0 && code === 0) code = r.code;
    }
    process.stdout.write(`${log.join("\n")}\n`);
    return code;
  };
  /** A job for every stack of the matrix, in parallel: `{ dev: 0, prod: 0 }`. */
  const runJob = async (name, event) =>
    Object.fromEntries(
      await Promise.all(stacks.map(async (stack) => [stack, await runJobFor(name, stack, event)])),
    );
  /**
   * A push to pull request `pr`: a new workflow run (no artifacts yet), the `preview` job of each
   * stack, then `preview-comment` once. Returns the exit codes, `{ dev, prod, "preview-comment" }`.
   */
  const pullRequest = async (pr) => {
    fs.rmSync(artifacts, { recursive: true, force: true });
    const event = { "github.event.pull_request.number": String(pr) };
    const codes = await runJob("preview", event);
    return { ...codes, "preview-comment": await runJobFor("preview-comment", "", event) };
  };
  const previews = [];
  /** Records what pull request `pr`'s push gave and what its comments say. */
  const recordPreview = (what, pr, codes) => {
    const comments = commentsOn(pr);
    const body = comments[0]?.body ?? "";
    previews.push({
      what,
      codes,
      comments: comments.length,
      startsWithMarker: body.startsWith("<!-- service-gitops: preview comment -->"),
      stacksShown: [...body.matchAll(/^#### Stack `(\w+)`/gm)].map((m) => m[1]),
      verdicts: [...body.matchAll(/^\*\*Preview of stack `\w+`:\*\* (.*)$/gm)].map((m) => m[1]),
      refused: [...body.matchAll(/^\*\*The guard refuses this change\*\* \(.*?\): (.*)$/gm)].map((m) => m[1]),
    });
  };
  const openIssues = () =>
    issues()
      .filter((i) => i.state === "open")
      .map((i) => i.title);

  const steps = [];
  const record = (what, codes) =>
    steps.push({ what, codes, openIssues: openIssues(), issues: issues().length });
  try {
    // The README's first step, once per stack: `pulumi stack init`, `pulumi config set`, and the
    // settings file committed (here: left in the repository's folder). The first stack's is made
    // against the team's backend, the others' against an engineer's trial backend.
    for (const [i, stack] of stacks.entries()) {
      const backend = i === 0 ? secrets.PULUMI_BACKEND_URL : `file://${path.join(work, "trial-state")}`;
      const init = await sh(
        `pulumi stack init ${stack} --non-interactive && pulumi config set --stack ${stack} service:baseUrl ${emulator.url}`,
        project,
        { ...baseEnv, PULUMI_BACKEND_URL: backend },
      );
      if (init.code !== 0) throw new Error(init.out);
    }
    const cli = (await sh("pulumi version", project, baseEnv)).out.trim();
    const first = await pullRequest(101);
    recordPreview("pull request #101: preview", 101, first);
    record("pull request: preview", { dev: first.dev, prod: first.prod });
    record("merge: up", await runJob("up"));
    record("night: drift", await runJob("drift"));

    const outputs = await sh("pulumi stack output --json --stack dev", project, baseEnv);
    const audit = JSON.parse(outputs.out).destinationIds.audit;
    const client = new ServiceClient({ baseUrl: emulator.url, apiKey: API_KEY });
    await client.eventDestinations.update(audit, { description: "edited by hand" });
    record("night after a hand edit of dev: drift", await runJob("drift"));
    record("next night: drift", await runJob("drift"));
    record("merge: up --refresh", await runJob("up"));
    record("night: drift", await runJob("drift"));

    // A pull request of two pushes, never merged: an edit of a description (an update the
    // guard lets through), then a rename of the destination without an alias (Pulumi would
    // delete it and create another: the guard refuses). Its one comment is updated in place.
    const program = path.join(project, "index.ts");
    const main = fs.readFileSync(program, "utf8");
    try {
      fs.writeFileSync(program, main.replace('"IP policy changes"', '"IP policy changes (audited)"'));
      recordPreview("pull request #102, first push: preview", 102, await pullRequest(102));
      fs.writeFileSync(
        program,
        main
          .replace('"IP policy changes"', '"IP policy changes (audited)"')
          .replace('new EventDestination("audit-stream"', 'new EventDestination("audit"'),
      );
      recordPreview("pull request #102, second push: preview", 102, await pullRequest(102));
    } finally {
      fs.writeFileSync(program, main);
    }
    const issue = issues()[0];
    process.stdout.write(
      `\nsummary: ${JSON.stringify({ steps, previews, issueBodyNamesTheEdit: /`"edited by hand"`/.test(issue?.body ?? ""), closedWith: issue?.comments ?? [], cli: { installedByTheWorkflow: String(workflow.env.PULUMI_VERSION), ran: cli } })}\n`,
    );
  } finally {
    for (const stack of stacks) {
      const down = await sh(
        `pulumi destroy --stack ${stack} --yes --skip-preview --remove --non-interactive`,
        project,
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
