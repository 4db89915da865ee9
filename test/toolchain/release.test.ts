/**
 * The release workflow (.github/workflows/release.yml), read as GitHub reads it: on a version tag,
 * it checks the versions, installs, builds and tests before it publishes; it publishes the four
 * packages with provenance (the `id-token: write` permission, `npm publish --provenance --access
 * public`, the token from a secret), each after the packages it depends on; and its version check
 * passes for the packages' own version and fails for any other tag.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

const REPO = path.resolve(__dirname, "../..");
const DIRS: Record<string, string> = {
  "pulumi-service": ".",
  "service-cli-kit": "packages/cli",
  "service-contract": "packages/contract",
  "service-emulator": "packages/emulator",
};

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Workflow {
  on: { push?: { tags?: string[] } };
  permissions?: Record<string, string>;
  jobs: Record<string, { steps: Step[] }>;
}

const workflow = parse(fs.readFileSync(path.join(REPO, ".github/workflows/release.yml"), "utf8")) as Workflow;
const jobs = Object.values(workflow.jobs);
const steps = jobs[0].steps;
const manifest = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(REPO, DIRS[name], "package.json"), "utf8")) as {
    version: string;
    dependencies?: Record<string, string>;
  };

/** The publish steps, each with the package it publishes (`--workspace <name>`, else the root). */
const publishes = steps
  .map((step, index) => ({ step, index }))
  .filter(({ step }) => /^npm publish\b/.test(step.run ?? ""))
  .map(({ step, index }) => ({
    step,
    index,
    pkg: /--workspace[ =](\S+)/.exec(step.run!)?.[1] ?? "pulumi-service",
  }));
const indexOf = (pattern: RegExp) => steps.findIndex((s) => pattern.test(s.run ?? ""));
const versionCheck = steps.find((s) => /scripts\/check-release\.js/.test(s.run ?? ""));

function runCheck(tag: string) {
  // as GitHub runs a `run` step on Linux
  return spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", versionCheck!.run!], {
    cwd: REPO,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", GITHUB_REF_NAME: tag },
  });
}

describe("release workflow", () => {
  it("runs on version tags only, in one job", () => {
    expect(Object.keys(workflow.on)).toEqual(["push"]);
    expect(workflow.on.push?.tags).toEqual(["v*.*.*"]);
    expect(jobs).toHaveLength(1);
  });

  it("publishes each of the four packages once, each after the packages it depends on", () => {
    expect(publishes.map((p) => p.pkg)).toEqual([
      "service-cli-kit",
      "service-contract",
      "service-emulator",
      "pulumi-service",
    ]);
    for (const { pkg, index } of publishes) {
      for (const dep of Object.keys(manifest(pkg).dependencies ?? {}).filter((d) => d in DIRS)) {
        expect({ pkg, dep, publishedBefore: publishes.find((p) => p.pkg === dep)!.index < index }).toEqual({
          pkg,
          dep,
          publishedBefore: true,
        });
      }
    }
  });

  it("publishes with provenance: id-token permission, --provenance --access public, the token from a secret", () => {
    expect(workflow.permissions?.["id-token"]).toBe("write");
    const setupNode = steps.find((s) => s.uses?.startsWith("actions/setup-node@"));
    expect(setupNode?.with?.["registry-url"]).toBe("https://registry.npmjs.org");
    for (const { step } of publishes) {
      expect(step.run).toMatch(/ --provenance\b/);
      expect(step.run).toMatch(/ --access public\b/);
      expect(step.run).not.toMatch(/--dry-run/);
      expect(step.env?.NODE_AUTH_TOKEN).toMatch(/^\$\{\{ secrets\.\w+ \}\}$/);
    }
  });

  it("checks the version, installs, builds and tests before the first publish", () => {
    const first = publishes[0].index;
    const check = steps.indexOf(versionCheck!);
    expect(check).toBeGreaterThanOrEqual(0);
    expect(check).toBeLessThan(first);
    expect(indexOf(/^npm ci$/)).toBeGreaterThan(-1);
    expect(indexOf(/^npm ci$/)).toBeLessThan(first);
    // npm test builds (pretest) and type-checks before jest runs
    expect(indexOf(/^npm test$/)).toBeGreaterThan(indexOf(/^npm ci$/));
    expect(indexOf(/^npm test$/)).toBeLessThan(first);
  });

  it("its version check passes on the tag of the packages' version and fails on any other", () => {
    const version = manifest("pulumi-service").version;
    const ok = runCheck(`v${version}`);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    for (const tag of ["v99.0.0", version, "latest"]) {
      const bad = runCheck(tag);
      expect({ tag, status: bad.status }).toEqual({ tag, status: 1 });
      expect(bad.stderr).toMatch(/release check failed/);
    }
    expect(runCheck("v99.0.0").stderr).toMatch(/service-contract is at .*, the tag says 99\.0\.0/);
  });
});
