/**
 * examples/typescript/gitops as a platform engineer wiring a new repository's pipeline reads it:
 * service-gitops.yml parsed as GitHub reads it (with `yaml`), its project's lock file, and the
 * README's setup. Each job that runs Pulumi gets the Pulumi Cloud token and creates its stack when
 * the backend lacks it, the CLI the jobs install is the release this suite tests, every step's name
 * says what the step does, `npm ci` accepts infra/'s lock file, and the README says all of it.
 * test/e2e/examples.test.ts runs the workflow's jobs (examples/typescript/gitops/run.js) and installs infra/
 * from its lock file for real.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { PACKAGES } from "../helpers/tarballs";
import { useTempDir } from "../helpers/temp-dir";

const EXAMPLE = path.join(REPO_ROOT, "examples", "typescript", "gitops");
const WORKFLOW_FILE = path.join(EXAMPLE, "service-gitops.yml");
const INFRA = path.join(EXAMPLE, "infra");

/** One step of a job, as the workflow's YAML gives it. */
interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  "working-directory"?: string;
}

/** One job of the workflow. */
interface Job {
  needs?: string | string[];
  if?: string;
  env?: Record<string, string>;
  strategy?: { matrix?: { stack?: string[] } };
  steps: Step[];
}

/** The parts of the workflow the tests read. */
interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, Job>;
}

const text = fs.readFileSync(WORKFLOW_FILE, "utf8");
const workflow = parse(text) as Workflow;

/**
 * The commands a `run:` script runs that act on a backend or on GitHub, in order, each with the
 * line it is on: `pulumi` with its subcommand words (`pulumi stack select`), `service-drift`,
 * `gh` with its group and verb (`gh issue create`). Comment lines are left out.
 */
function commands(run: string): { command: string; line: string }[] {
  const found: { command: string; line: string }[] = [];
  for (const line of run.split("\n")) {
    if (line.trim().startsWith("#")) continue;
    for (const m of line.matchAll(/(?:^|[\s;&|(`"])((?:pulumi|gh)(?: [a-z][a-z-]*)+|service-drift)\b/g))
      found.push({ command: m[1], line: line.trim() });
  }
  return found;
}

/** The stacks of the workflow's matrix (the `up` job's). */
function matrixStacks(): string[] {
  return workflow.jobs.up.strategy?.matrix?.stack ?? [];
}

/** The jobs with a step that runs `pulumi` or `service-drift`: those that use the backend. */
function backendJobs(): [string, Job][] {
  return Object.entries(workflow.jobs).filter(([, job]) =>
    job.steps.some((s) => commands(s.run ?? "").some((c) => !c.command.startsWith("gh "))),
  );
}

/**
 * What a step's name must contain for the step to be named after what it does (empty when the
 * step has no rule): an upload names each file it uploads and the artifact; the Pulumi CLI's
 * install names the CLI and its version; a `run:` step names each command it runs on the backend
 * or GitHub (`gh issue create` by what it acts on: `issue`).
 */
function namedParts(step: Step): string[] {
  if (step.uses?.startsWith("actions/upload-artifact@")) {
    const files = String(step.with?.path ?? "")
      .split("\n")
      .filter((p) => p.trim() !== "")
      .map((p) => path.posix.basename(p.trim()));
    return [...files, String(step.with?.name ?? "")];
  }
  if (step.uses?.startsWith("pulumi/actions@")) return ["Pulumi CLI", String(step.with?.["pulumi-version"])];
  return [
    ...new Set(
      commands(step.run ?? "").map(({ command }) =>
        command.startsWith("gh ") ? command.split(" ")[1] : command,
      ),
    ),
  ];
}

/**
 * The file names (`drift.md`) and formats (`JSON`, `Markdown`) a step's name mentions that
 * the step itself (its `run:`, `uses:` and `with:`) never mentions.
 */
function claimsNotInStep(step: Step): string[] {
  const body = JSON.stringify({ ...step, name: undefined }).toLowerCase();
  const claims =
    (step.name ?? "").match(/[\w-]+\.(?:md|json|ya?ml|txt|log)\b|\b(?:JSON|Markdown|YAML)\b/gi) ?? [];
  return claims.filter((c) => !body.includes(c.toLowerCase()));
}

describe("examples/typescript/gitops/service-gitops.yml, as a new repository runs it", () => {
  const tmp = useTempDir("gitops-workflow-");

  it("has jobs that run pulumi: preview, up and drift over the matrix's stacks, unmanaged once over all of them", () => {
    expect(backendJobs().map(([name, job]) => [name, job.strategy?.matrix?.stack])).toEqual([
      ["preview", ["dev", "prod"]],
      ["up", ["dev", "prod"]],
      ["drift", ["dev", "prod"]],
      ["unmanaged", undefined],
    ]);
    // The unmanaged check names every stack of the matrix: a resource of one of them is managed.
    const check = workflow.jobs.unmanaged.steps.flatMap((s) =>
      (s.run ?? "").split("\n").filter((l) => /service-drift unmanaged/.test(l)),
    );
    expect(check).toHaveLength(1);
    expect([...check[0].matchAll(/--stack (\w+)/g)].map((m) => m[1])).toEqual(matrixStacks());
  });

  it("pull requests: the preview runs the guard on each stack, and one job posts all the previews as one comment", () => {
    const preview = workflow.jobs.preview.steps.map((s) => s.run ?? "").join("\n");
    expect(preview).toMatch(/service-drift preview --stack "\$PULUMI_STACK"[^\n]*--format markdown/);
    expect(preview).toMatch(/--fail-on "\$GUARD_FAIL_ON" --fail-on-type "\$GUARD_FAIL_ON_TYPE" \\\n/);
    // The policy pack of infra/'s dependencies, with the config committed beside the program.
    expect(preview).toMatch(
      /\n +--policy-pack node_modules\/service-policy --policy-pack-config policy-config\.json > preview\.md/,
    );
    expect(workflow.jobs.preview.env).toMatchObject({
      GUARD_FAIL_ON: "replace,delete",
      GUARD_FAIL_ON_TYPE: "EventDestination",
    });
    const comment = workflow.jobs["preview-comment"];
    expect([comment.needs, comment.if]).toEqual([
      "preview",
      "always() && github.event_name == 'pull_request'",
    ]);
    const gh = comment.steps.flatMap((s) => commands(s.run ?? "").map((c) => c.line));
    // The deployment runs the same pack: a mandatory violation refuses it.
    const up = workflow.jobs.up.steps.map((s) => s.run ?? "").join("\n");
    expect(up).toMatch(
      /pulumi up [^\n]*\\\n +--policy-pack node_modules\/service-policy --policy-pack-config policy-config\.json\n/,
    );
    expect(
      Object.keys(JSON.parse(fs.readFileSync(path.join(INFRA, "package.json"), "utf8")).dependencies),
    ).toContain("service-policy");
    expect(fs.existsSync(path.join(INFRA, "policy-config.json"))).toBe(true);
    // Found by its marker (GET), then replaced (PATCH) or, the first time, posted (POST).
    expect(gh.map((l) => /--method (\w+)/.exec(l)?.[1] ?? "GET")).toEqual(["GET", "PATCH", "POST"]);
  });

  it("every job that runs pulumi gets PULUMI_ACCESS_TOKEN and the backend's other secrets from the repository's secrets", () => {
    for (const [name, job] of backendJobs())
      for (const step of job.steps.filter((s) => commands(s.run ?? "").length > 0)) {
        const env = { ...workflow.env, ...job.env, ...step.env };
        expect({ job: name, step: step.name, token: env.PULUMI_ACCESS_TOKEN }).toEqual({
          job: name,
          step: step.name,
          token: "${{ secrets.PULUMI_ACCESS_TOKEN }}",
        });
        for (const secret of ["PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "SERVICE_API_KEY"])
          expect(env[secret]).toBe(`\${{ secrets.${secret} }}`);
      }
    // And its header says the token is for the Pulumi Cloud only.
    expect(text).toMatch(/^# {3}PULUMI_ACCESS_TOKEN +only for the Pulumi Cloud/m);
  });

  it("every job of one stack first selects it with pulumi stack select --create, creating it the first time", () => {
    for (const [name, job] of backendJobs().filter(([, j]) => j.strategy?.matrix?.stack)) {
      expect({ job: name, stack: job.env?.PULUMI_STACK }).toEqual({
        job: name,
        stack: "${{ matrix.stack }}",
      });
      const first = job.steps.flatMap((s) => commands(s.run ?? ""))[0];
      expect({ job: name, first: first.command }).toEqual({ job: name, first: "pulumi stack select" });
      expect(first.line).toMatch(/ --create\b/);
      expect(first.line).toContain('"$PULUMI_STACK"');
    }
  });

  it(`installs the Pulumi CLI release this suite tests (${PULUMI_VERSION})`, () => {
    expect(String(workflow.env.PULUMI_VERSION)).toBe(PULUMI_VERSION);
    const installs = Object.values(workflow.jobs).flatMap((j) =>
      j.steps.filter((s) => s.uses?.startsWith("pulumi/actions@")),
    );
    expect(installs).toHaveLength(backendJobs().length);
    for (const step of installs) expect(step.with?.["pulumi-version"]).toBe("${{ env.PULUMI_VERSION }}");
  });

  it("every step's name says what it does: an upload names its file and artifact, a run step its commands", () => {
    const findings: string[] = [];
    for (const [name, job] of Object.entries(workflow.jobs))
      for (const step of job.steps) {
        const label = `${name}: ${step.name ?? step.uses ?? step.run}`;
        // Without a name, GitHub shows "Run <the script's first line>": one command only.
        if (step.name === undefined) {
          if (step.run !== undefined && step.run.trim().includes("\n")) findings.push(`${label}: no name`);
          continue;
        }
        for (const part of namedParts(step))
          if (!step.name.includes(part)) findings.push(`${label}: does not name ${part}`);
        for (const claim of claimsNotInStep(step))
          findings.push(`${label}: names ${claim}, which it does not touch`);
      }
    expect(findings).toEqual([]);
    // The rule has something to bite on: the drift job's upload.
    const uploads = workflow.jobs.drift.steps.filter((s) => s.uses?.startsWith("actions/upload-artifact@"));
    expect(uploads.map(namedParts)).toEqual([["drift.md", "drift-report-${{ matrix.stack }}"]]);
  });

  it("infra/package-lock.json is npm's lock file of infra/package.json: npm ci --dry-run accepts it", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(INFRA, "package.json"), "utf8")) as {
      name: string;
      dependencies: Record<string, string>;
    };
    const lock = JSON.parse(fs.readFileSync(path.join(INFRA, "package-lock.json"), "utf8")) as {
      name: string;
      lockfileVersion: number;
      packages: Record<
        string,
        { version?: string; integrity?: string; dependencies?: Record<string, string> }
      >;
    };
    expect({
      name: lock.name,
      lockfileVersion: lock.lockfileVersion,
      dependencies: lock.packages[""].dependencies,
    }).toEqual({ name: manifest.name, lockfileVersion: 3, dependencies: manifest.dependencies });
    // The registry's packages pinned by their hash; this repository's at its version (their hash
    // is the published tarball's, which no build here can know).
    const ours = new Map(
      PACKAGES.map((p) => [
        `node_modules/${p.name}`,
        (JSON.parse(fs.readFileSync(path.join(p.dir, "package.json"), "utf8")) as { version: string })
          .version,
      ]),
    );
    const entries = Object.entries(lock.packages).filter(([k]) => k !== "");
    expect(
      entries.filter(([k, v]) => !ours.has(k) && !v.integrity?.startsWith("sha512-")).map(([k]) => k),
    ).toEqual([]);
    expect(entries.filter(([k]) => ours.has(k)).map(([k, v]) => [k, v.version])).toEqual(
      ["pulumi-service", "service-cli-kit", "service-contract", "service-policy"].map((n) => [
        `node_modules/${n}`,
        ours.get(`node_modules/${n}`),
      ]),
    );

    // A copy as the workflow's checkout has it: `npm ci` checks the lock file against
    // package.json before installing anything (--dry-run: nothing is fetched or written).
    const copy = path.join(tmp(), "infra");
    fs.mkdirSync(copy);
    for (const f of ["package.json", "package-lock.json"])
      fs.copyFileSync(path.join(INFRA, f), path.join(copy, f));
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
    const r = spawnSync("npm", ["ci", "--dry-run", "--offline", "--ignore-scripts"], {
      cwd: copy,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect({ status: r.status, stderr: r.status === 0 ? "" : r.stderr }).toEqual({ status: 0, stderr: "" });
    expect(fs.readdirSync(copy).sort()).toEqual(["package-lock.json", "package.json"]);
  });

  it("the README tells a new repository each of it: the token for the Pulumi Cloud only, the stacks, the lock file, the CLI release", () => {
    const readme = fs.readFileSync(path.join(EXAMPLE, "README.md"), "utf8").replace(/\s+/g, " ");
    expect(readme).toContain("`PULUMI_ACCESS_TOKEN`: only for the Pulumi Cloud");
    expect(readme).toContain("`pulumi stack init dev`");
    expect(readme).toContain("commit `infra/Pulumi.dev.yaml`");
    expect(readme).toContain("`pulumi stack select --create <stack>`");
    expect(readme).toContain("`npm ci` installs exactly what `infra/package-lock.json` holds");
    expect(readme).toContain(`(${PULUMI_VERSION}, the release \`pulumi-service\` is tested with)`);
  });
});
