/**
 * The scripts that build or install something once into the project's cache (scripts/pulumi-env.js
 * `cacheBase`) give the same result on a new machine as on a warm one. Each runs twice against
 * an empty cache of its own (`PULUMI_SERVICE_CACHE_DIR`): cold, when it builds or installs and
 * says so on standard error, then warm, when it says nothing of the kind. Both runs exit 0 and
 * print the same standard output, which is the script's result and nothing else (the rule of
 * docs/development.md § Scripts). The Go build cache and the module cache stay as they are, so a
 * generator's first build here is a link, not a compile of Pulumi (`npm run ci:cold` runs the
 * whole of CI with every cache empty).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { TESTED_NODE_LINES } from "../../scripts/ensure-node";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { useTempDir } from "../helpers/temp-dir";

/** A cold run may install from PyPI or the npm registry, or link a generator. */
const TIMEOUT = 600_000;
const SCRIPTS = path.join(REPO_ROOT, "scripts");
const PYTHON_BUILD_REQUIREMENTS = path.join(SCRIPTS, "requirements", "python-build.txt");
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;
/** A tested Node.js line other than the one running: one that ensure-node.js must install. */
const OTHER_NODE_LINE = TESTED_NODE_LINES.find((m) => `${m}` !== process.versions.node.split(".")[0]);

interface Case {
  /** The script's file in scripts/ and its arguments; `work` is a fresh folder for its output. */
  script: string;
  args(work: string): string[];
  /** What its standard output must be, given its cache folder and work folder. */
  result(cache: string, work: string): RegExp | string;
  /** What its standard error says when it builds or installs into an empty cache. */
  coldSays: RegExp;
}

const CASES: Case[] = [
  {
    script: "ensure-venv.js",
    args: () => ["python-build", PYTHON_BUILD_REQUIREMENTS],
    result: (cache) => new RegExp(`^${escape(cache)}/venv-python-build-[0-9a-f]{12}\\n$`),
    coldSays: /^ensure-venv: creating .* from .*python-build\.txt$/m,
  },
  {
    script: "build-python-sdk.js",
    args: (work) => ["--out", path.join(work, "dist")],
    result: (_cache, work) =>
      [`pulumi_service-${VERSION}-py3-none-any.whl`, `pulumi_service-${VERSION}.tar.gz`]
        .map((f) => `${path.join(work, "dist", f)}\n`)
        .join(""),
    coldSays: /^ensure-venv: creating /m,
  },
  {
    script: "gen-sdks.js",
    args: (work) => ["--out", path.join(work, "sdk"), "--languages", "nodejs,python"],
    result: () => "",
    coldSays: /^gen-sdks: building pulumi-gen-sdks into .* \(first time only\)$/m,
  },
  {
    script: "gen-examples.js",
    args: () => ["--check"],
    result: () => "",
    coldSays: /^gen-sdks: building pulumi-gen-examples into .* \(first time only\)$/m,
  },
  {
    script: "ensure-node.js",
    args: () => [`${OTHER_NODE_LINE}`],
    result: (cache) =>
      new RegExp(
        `^${OTHER_NODE_LINE} v${OTHER_NODE_LINE}\\.\\d+\\.\\d+ ${escape(cache)}/node-${OTHER_NODE_LINE}/\\S+\\n$`,
      ),
    coldSays: new RegExp(`^ensure-node: installing Node\\.js ${OTHER_NODE_LINE} `, "m"),
  },
];

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Runs scripts/`script` with the project's cache at `cache`; its exit code and both streams. */
function runScript(script: string, args: string[], cache: string) {
  const r = spawnSync(process.execPath, [path.join(SCRIPTS, script), ...args], {
    encoding: "utf8",
    timeout: TIMEOUT,
    cwd: REPO_ROOT,
    env: { ...process.env, PULUMI_SERVICE_CACHE_DIR: cache },
  });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error?.message ?? ""}` };
}

describe("scripts on an empty cache and on a warm one", () => {
  const tmp = useTempDir("cold-cache-");

  it("has a tested Node.js line other than the running one to install", () => {
    expect(OTHER_NODE_LINE).toBeDefined();
  });

  it.each(CASES.map((c) => [c.script, c] as const))(
    "%s: builds or installs once, and prints the same result cold and warm",
    (_name, c) => {
      const cache = path.join(tmp(), `${c.script}-cache`);
      const work = path.join(tmp(), `${c.script}-work`);
      fs.mkdirSync(work, { recursive: true });
      const cold = runScript(c.script, c.args(work), cache);
      const expected = c.result(cache, work);
      expect({ status: cold.status, stderr: cold.status === 0 ? "" : cold.stderr }).toEqual({
        status: 0,
        stderr: "",
      });
      expect(cold.stderr).toMatch(c.coldSays);
      if (typeof expected === "string") expect(cold.stdout).toBe(expected);
      else expect(cold.stdout).toMatch(expected);

      const warm = runScript(c.script, c.args(work), cache);
      expect({ status: warm.status, stdout: warm.stdout }).toEqual({ status: 0, stdout: cold.stdout });
      expect(warm.stderr).not.toMatch(c.coldSays);
    },
    2 * TIMEOUT,
  );
});
