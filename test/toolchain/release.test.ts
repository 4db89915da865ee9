/**
 * The release workflow (.github/workflows/release.yml), read as GitHub reads it: on a version tag,
 * it checks the versions, installs, builds and tests before it publishes; it publishes the five
 * packages with provenance (the `id-token: write` permission, `npm publish --provenance --access
 * public`, the token from a secret), each after the packages it depends on; and its version check
 * passes for the packages' own version and fails for any other tag. Then the rest of a release:
 * the plugin's and the emulator's archives on the GitHub release, PyPI and the Go tag, in the workflow's order, and
 * `npm run release:dry` (scripts/release.js) making every artefact and dry-running every upload.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";

const REPO = path.resolve(__dirname, "../..");
const DIRS: Record<string, string> = {
  "pulumi-service": ".",
  "service-cli-kit": "packages/cli",
  "service-contract": "packages/contract",
  "service-emulator": "packages/emulator",
  "service-policy": "packages/policy",
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
    scripts?: Record<string, string>;
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

  it("publishes each of the five packages once, each after the packages it depends on", () => {
    expect(publishes.map((p) => p.pkg)).toEqual([
      "service-cli-kit",
      "service-contract",
      "service-policy",
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
    const stderr = runCheck("v99.0.0").stderr;
    for (const name of Object.keys(DIRS))
      expect(stderr).toMatch(new RegExp(`${name} is at .*, the tag says 99\\.0\\.0`));
  });
});

describe("the release beyond npm: plugin and emulator archives, PyPI, the Go tag (.github/workflows/release.yml, scripts/release.js)", () => {
  /** The index of the first step whose `run` or `uses` matches. */
  const stepIndex = (pattern: RegExp) =>
    steps.findIndex((s) => pattern.test(s.run ?? "") || pattern.test(s.uses ?? ""));

  it("makes the release after the tests, then uploads: GitHub release, npm, PyPI, the Go tag, in that order", () => {
    const make = stepIndex(/^node scripts\/release\.js build --tag "\$GITHUB_REF_NAME"$/);
    const github = stepIndex(/^gh release create "\$GITHUB_REF_NAME" dist\/release\/plugin\/\* /);
    const pypi = stepIndex(/^pypa\/gh-action-pypi-publish@/);
    const goTag = stepIndex(/git push origin "sdk\/go\/\$GITHUB_REF_NAME"/);
    expect(make).toBeGreaterThan(indexOf(/^npm test$/));
    const lastPublish = publishes[publishes.length - 1].index;
    expect([make, github, publishes[0].index, lastPublish, pypi, goTag]).toEqual(
      [make, github, publishes[0].index, lastPublish, pypi, goTag].slice().sort((a, b) => a - b),
    );
    expect(new Set([make, github, pypi, goTag]).has(-1)).toBe(false);
    expect(steps[pypi].with?.["packages-dir"]).toBe("dist/release/python");
    expect(workflow.permissions?.contents).toBe("write");
  });

  it("release:dry (after npm run build) makes every artefact and runs every upload as a dry run, sending nothing", () => {
    const version = manifest("pulumi-service").version;
    expect(manifest("pulumi-service").scripts?.["release:dry"]).toBe(
      "npm run build && node scripts/release.js build --dry-run",
    );
    // npm test's pretest has built dist/: the script's own part, as release:dry runs it after the build.
    const r = spawnSync(process.execPath, ["scripts/release.js", "build", "--dry-run"], {
      cwd: REPO,
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    expect({ status: r.status, stderr: r.status === 0 ? "" : r.stderr }).toEqual({ status: 0, stderr: "" });
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("release: "));
    const platforms = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"];
    const archives = [
      ...platforms.map((p) => `pulumi-resource-service-v${version}-${p}.tar.gz`),
      ...platforms.map((p) => `service-emulator-v${version}-${p}.tar.gz`),
    ];
    const checksums = `pulumi-resource-service_${version}_checksums.txt`;
    expect(fs.readdirSync(path.join(REPO, "dist/release/plugin")).sort()).toEqual(
      [...archives, checksums].sort(),
    );
    // One checksum line per archive, the plugin's then the emulator's, each the archive's SHA-256.
    const listed = fs
      .readFileSync(path.join(REPO, "dist/release/plugin", checksums), "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split("  "));
    expect(listed.map(([, file]) => file)).toEqual(archives);
    for (const [sha, file] of listed)
      expect(sha).toBe(
        createHash("sha256")
          .update(fs.readFileSync(path.join(REPO, "dist/release/plugin", file)))
          .digest("hex"),
      );
    expect(fs.readdirSync(path.join(REPO, "dist/release/python")).sort()).toEqual([
      `pulumi_service-${version}-py3-none-any.whl`,
      `pulumi_service-${version}.tar.gz`,
    ]);
    // Each upload step, in the workflow's order, as its dry run.
    const dry = lines.filter((l) => l.startsWith("release: dry run: "));
    expect(dry.map((l) => /^release: dry run: (\S+ \S+)/.exec(l)![1])).toEqual([
      `GitHub release`,
      ...Object.keys(DIRS).map(() => "npm publish"),
      "PyPI would",
      "git would",
    ]);
    expect(dry[0]).toContain(`v${version} would get`);
    for (const a of archives) expect(dry[0]).toContain(a);
    expect(dry.slice(1, 6).map((l) => /npm publish (\S+): .*?(\S+@\S+)/.exec(l)?.slice(1, 3))).toEqual([
      ["service-cli-kit", `service-cli-kit@${version}`],
      ["service-contract", `service-contract@${version}`],
      ["service-policy", `service-policy@${version}`],
      ["service-emulator", `service-emulator@${version}`],
      ["pulumi-service", `pulumi-service@${version}`],
    ]);
    expect(dry[7]).toBe(`release: dry run: git would push the tag sdk/go/v${version}`);
  }, 900_000);

  it("refuses a release whose tag is not the packages' version, before building anything", () => {
    const r = spawnSync(process.execPath, ["scripts/release.js", "build", "--tag", "v99.0.0", "--dry-run"], {
      cwd: REPO,
      encoding: "utf8",
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/release check failed:[\s\S]*pulumi-service is at .*, the tag says 99\.0\.0/);
    expect(r.stdout).toBe("");
  });
});
