/**
 * The examples as someone copies them out of the repository: each example's folder (the files git
 * holds or would hold) is copied to a fresh folder under the system's temporary folder, the three
 * packed packages are installed there first (`npm install` of their tarballs, which also installs
 * the example's other dependencies from the registry and records the tarballs in the copy's
 * package.json), and then the one command its README gives (its only shell block, e.g.
 * `npm install && npm start`) runs exactly as printed: npm satisfies `pulumi-service` and
 * `service-emulator` from what is installed. The shell is a stranger's (test/helpers/tarballs.ts):
 * the project's Pulumi CLI on PATH, a home folder of its own, no Pulumi backend or service
 * settings of this machine.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { PULUMI_VERSION } from "../../scripts/pulumi-env";
import { docBlocks, isRun } from "../helpers/doc-blocks";
import { startPrebuildMirror, type PrebuildMirror } from "../helpers/prebuilds";
import { installSpecs, packAll, strangerEnv, type PackageName, type Packed } from "../helpers/tarballs";

const REPO = path.resolve(__dirname, "../..");

let tmp: string;
let packed: Record<PackageName, Packed>;
let prebuilds: PrebuildMirror;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-examples-"));
  packed = packAll(tmp);
  prebuilds = await startPrebuildMirror();
}, 300_000);

afterAll(async () => {
  await prebuilds?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

function run(cmd: string, args: string[], cwd: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 1_200_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/**
 * Copies `examples/<name>` (`name` a folder under examples/, e.g. `typescript/multi-env`) out of
 * the repository into a folder of its last name, installs the tarballs there, and runs the
 * command of its README. Resolves with that command's output; rejects when a step fails.
 */
async function copyAndRun(name: string): Promise<string> {
  const source = path.join(REPO, "examples", name);
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", `examples/${name}`],
    { cwd: REPO, encoding: "utf8" },
  )
    .split("\0")
    .filter((f) => f !== "" && fs.existsSync(path.join(REPO, f)));
  // A folder of its own: no other example's copy beside it to lean on.
  const copy = path.join(fs.mkdtempSync(path.join(tmp, `${path.basename(name)}-`)), path.basename(name));
  for (const f of files) {
    const to = path.join(copy, path.relative(source, path.join(REPO, f)));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(REPO, f), to);
  }
  const pkg = fs.readFileSync(path.join(copy, "package.json"), "utf8");
  expect(pkg).not.toMatch(/"file:/);

  const readme = docBlocks(path.join(copy, "README.md"), `examples/${name}/README.md`).filter(isRun);
  expect(readme).toHaveLength(1);
  const command = readme[0].body;

  const home = path.join(path.dirname(copy), "home");
  fs.mkdirSync(home);
  const env = strangerEnv(home, prebuilds.env);
  const started = Date.now();
  // The packages of this repository the example depends on, from their tarballs.
  const manifest = JSON.parse(pkg) as { dependencies?: object; devDependencies?: object };
  const ours = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies }).filter(
    (n): n is PackageName => n in packed,
  );
  const tarballs = [...new Set(ours.flatMap((n) => installSpecs(n, packed)))];
  const install = await run("npm", ["install", ...tarballs], copy, env);
  if (install.code !== 0) throw new Error(`npm install of the tarballs failed:\n${install.out}`);
  prebuilds.harvest(copy);
  const installed = Date.now();
  const r = await run("bash", ["-e", "-o", "pipefail", "-c", command], copy, env);
  console.log(
    `examples/${name}, copied: tarballs and dependencies installed in ${((installed - started) / 1000).toFixed(0)} s, \`${command}\` in ${((Date.now() - installed) / 1000).toFixed(0)} s`,
  );
  if (r.code !== 0) throw new Error(`\`${command}\` failed (exit code ${r.code}):\n${r.out.slice(-8000)}`);
  return r.out;
}

/** A registry for `npm ci` that serves this repository's packed packages: see {@link startPackedRegistry}. */
interface PackedRegistry {
  /** Its address, for `npm ci --registry`. */
  url: string;
  /** The paths of the tarballs it served, in order. */
  served: string[];
  /** Stops serving. */
  close(): Promise<void>;
}

/**
 * The registry `npm ci` of examples/typescript/gitops/infra talks to: that lock file names this repository's
 * packages as the npm registry serves a published package (`<registry>/<name>/-/<name>-<version>.tgz`),
 * and this server answers those paths with the packed tarballs (`packed`), uncached; every other
 * request is sent on to the registry npm is configured with (a redirect). npm points a lock
 * file's registry addresses at the registry given with `--registry` (its `replace-registry-host`
 * default), and takes a package its cache holds by the lock file's hash without asking at all.
 */
async function startPackedRegistry(packedPackages: Record<PackageName, Packed>): Promise<PackedRegistry> {
  const upstream = execFileSync("npm", ["config", "get", "registry"], { encoding: "utf8" })
    .trim()
    .replace(/\/$/, "");
  const tarballs = new Map(
    Object.values(packedPackages).map((p) => [`/${p.name}/-/${path.basename(p.tarball)}`, p.tarball]),
  );
  const served: string[] = [];
  const server = http.createServer((req, res) => {
    const tarball = tarballs.get(req.url ?? "");
    if (tarball) {
      served.push(req.url!);
      res.writeHead(200, { "content-type": "application/octet-stream", "cache-control": "no-store" });
      fs.createReadStream(tarball).pipe(res);
      return;
    }
    res.writeHead(302, { location: `${upstream}${req.url}` });
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    served,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The JSON after `summary: ` in an example's output. */
function summary<T>(out: string): T {
  const line = out.split("\n").find((l) => l.startsWith("summary: "));
  if (!line) throw new Error(`no summary line in:\n${out.slice(-4000)}`);
  return JSON.parse(line.slice("summary: ".length)) as T;
}

describe("examples, copied out of the repository and run by the command of their README", () => {
  // The examples whose run prints a summary of what they deployed, then destroys everything.
  it.each([
    [
      "typescript/quickstart-dynamic: deploys two destinations, three subscriptions and an abuse report; a second up changes nothing; destroy leaves nothing",
      "typescript/quickstart-dynamic",
      {
        destinations: ["Audit events to Kinesis: kinesis", "Operational events to Datadog: datadog"],
        subscriptions: [
          "(no description): 1 event types",
          "Agent sessions: 2 event types",
          "IP policy changes, to the audit stream and Datadog: 3 event types",
        ],
        abuseReport: "PENDING",
      },
    ],
    [
      "typescript/multi-env: dev and prod get their own destinations and event sets; alerts reach the same environment's destinations",
      "typescript/multi-env",
      {
        dev: {
          destinations: ["audit (dev): kinesis"],
          changes: ["ip_policy_created.v0", "ip_policy_updated.v0"],
          alertsGoTo: "the same destinations",
        },
        prod: {
          destinations: ["audit (prod): kinesis", "logs (prod): cloudwatchLogs"],
          changes: [
            "ip_policy_created.v0",
            "ip_policy_updated.v0",
            "ip_policy_deleted.v0",
            "domain_created.v0",
            "domain_deleted.v0",
          ],
          alertsGoTo: "the same destinations",
        },
      },
    ],
  ])(
    "%s",
    async (_title, name, expected) => {
      const out = await copyAndRun(name);
      expect(summary(out)).toEqual(expected);
      expect(out).toMatch(/left on the service after destroy: 0/);
    },
    1_800_000,
  );

  it("typescript/testing: the example's own jest test deploys, checks and destroys its program", async () => {
    const out = await copyAndRun("typescript/testing");
    expect(out).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 1_800_000);

  it("gitops: the workflow's jobs, per stack: preview with its one comment per pull request and the guard, up, nightly drift keeping one issue per stack, up --refresh", async () => {
    const out = await copyAndRun("typescript/gitops");
    const s = summary<{
      steps: { what: string; codes: Record<string, number>; openIssues: string[]; issues: number }[];
      previews: Record<string, unknown>[];
      issueBodyNamesTheEdit: boolean;
      closedWith: string[];
      cli: { installedByTheWorkflow: string; ran: string };
    }>(out);
    const clean = { dev: 0, prod: 0 };
    const open = ["Drift in stack dev"];
    expect(s.steps).toEqual([
      { what: "pull request: preview", codes: clean, openIssues: [], issues: 0 },
      { what: "merge: up", codes: clean, openIssues: [], issues: 0 },
      { what: "night: drift", codes: clean, openIssues: [], issues: 0 },
      {
        what: "night after a hand edit of dev: drift",
        codes: { dev: 2, prod: 0 },
        openIssues: open,
        issues: 1,
      },
      { what: "next night: drift", codes: { dev: 2, prod: 0 }, openIssues: open, issues: 1 },
      { what: "merge: up --refresh", codes: clean, openIssues: open, issues: 1 },
      { what: "night: drift", codes: clean, openIssues: [], issues: 1 },
    ]);
    // Pull requests: one comment each (found by its marker, updated on the next push) with both
    // stacks' previews; the rename of the destination refused by the guard (exit 2).
    const comment = (verdict: string, refused: string[]) => ({
      comments: 1,
      startsWithMarker: true,
      stacksShown: ["dev", "prod"],
      verdicts: [verdict, verdict],
      refused,
    });
    const passed = { dev: 0, prod: 0, "preview-comment": 0 };
    expect(s.previews).toEqual([
      { what: "pull request #101: preview", codes: passed, ...comment("3 to create.", []) },
      {
        what: "pull request #102, first push: preview",
        codes: passed,
        ...comment("1 to update, 2 unchanged.", []),
      },
      {
        what: "pull request #102, second push: preview",
        codes: { dev: 2, prod: 2, "preview-comment": 0 },
        ...comment("1 to create, 1 to update, 1 to delete, 1 unchanged.", [
          "delete **audit-stream** (EventDestination).",
          "delete **audit-stream** (EventDestination).",
        ]),
      },
    ]);
    expect(s.issueBodyNamesTheEdit).toBe(true);
    expect(s.closedWith).toEqual([expect.stringMatching(/^\*\*No drift in stack `dev`:\*\*/)]);
    // The jobs ran on the CLI release the workflow installs, the one this suite tests.
    expect(s.cli).toEqual({ installedByTheWorkflow: PULUMI_VERSION, ran: `v${PULUMI_VERSION}` });
    // prod's settings file was made against another backend: the workflow's first job created
    // the stack (`pulumi stack select --create`); dev's existed.
    expect(out.match(/Created stack '\w+'/g)).toEqual(["Created stack 'prod'"]);
  }, 1_800_000);

  it("gitops: npm ci installs infra/ from its package-lock.json: the registry's packages by their hash, this repository's from its tarballs", async () => {
    const infra = path.join(fs.mkdtempSync(path.join(tmp, "gitops-infra-")), "infra");
    fs.mkdirSync(infra);
    const files = execFileSync("git", ["ls-files", "-z", "--", "examples/typescript/gitops/infra"], {
      cwd: REPO,
      encoding: "utf8",
    })
      .split("\0")
      .filter((f) => f !== "");
    expect(files.map((f) => path.basename(f))).toContain("package-lock.json");
    for (const f of files) fs.copyFileSync(path.join(REPO, f), path.join(infra, path.basename(f)));
    const home = path.join(path.dirname(infra), "home");
    fs.mkdirSync(home);
    const registry = await startPackedRegistry(packed);
    try {
      const started = Date.now();
      const r = await run("npm", ["ci", "--registry", registry.url], infra, strangerEnv(home));
      console.log(
        `examples/typescript/gitops/infra: npm ci in ${((Date.now() - started) / 1000).toFixed(0)} s`,
      );
      if (r.code !== 0) throw new Error(`npm ci failed (exit code ${r.code}):\n${r.out.slice(-8000)}`);
      expect(registry.served.sort()).toEqual(
        ["pulumi-service", "service-cli-kit", "service-contract", "service-policy"].map(
          (n) => `/${n}/-/${path.basename(packed[n as PackageName].tarball)}`,
        ),
      );
    } finally {
      await registry.close();
    }
    // Every package of the lock file installed at its locked version, and the drift job's command.
    const lock = JSON.parse(fs.readFileSync(path.join(infra, "package-lock.json"), "utf8")) as {
      packages: Record<string, { version?: string }>;
    };
    const wrong = Object.entries(lock.packages)
      .filter(([k]) => k !== "")
      .filter(([k, v]) => {
        const manifest = path.join(infra, k, "package.json");
        return (
          !fs.existsSync(manifest) ||
          // @pulumi/policy's own package.json spells its version with a "v" (v1.21.0).
          String(JSON.parse(fs.readFileSync(manifest, "utf8")).version).replace(/^v/, "") !== v.version
        );
      });
    expect(wrong).toEqual([]);
    expect(fs.existsSync(path.join(infra, "node_modules", ".bin", "service-drift"))).toBe(true);
  }, 600_000);
});
