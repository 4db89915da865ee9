/**
 * Docs that are tests: every shell block (```sh, ```bash, ```shell, ```console) of README.md and
 * docs/*.md is run, unless the line before it says `<!-- not run: <reason> -->`, or
 * `<!-- run by: <test file> -->` (a command installing the published release, which that test
 * file runs as printed against local registries; checked here to name a test file that takes its
 * blocks with `blocksRunBy`, and that file fails when it leaves one out). A document's
 * blocks run in order, exactly as printed, in one bash (`set -e -o pipefail`: the first failing
 * command fails the test), in a fresh folder under the system's temporary folder, as a stranger
 * with the project's Pulumi CLI on PATH, a home folder of their own (`PULUMI_HOME`, so the login
 * and the CLI's settings stay there), `PULUMI_CONFIG_PASSPHRASE` set (a terminal would prompt
 * for it) and no Pulumi backend or `SERVICE_*` settings of this machine. `pulumi login --local`
 * means `file://~`, and the CLI takes `~` from the user database, not from `$HOME`, so it would
 * put the documents' stacks in this user's `~/.pulumi/stacks`, shared by every checkout of the
 * machine: each `pulumi login --local` of a script becomes `pulumi login file://<its home>`, the
 * same local backend in the stranger's home folder, which the test removes with the run.
 * Blocks marked `<!-- file: <name> -->` are saved as that file at that point, as the reader is
 * told to.
 *
 * Our packages come from their tarballs (`npm pack` of the builds `pretest` made), never from the
 * registry: in each `npm install` line, an argument naming `pulumi-service`, `service-emulator`,
 * `service-contract` or `service-cli-kit` becomes that package's tarball, with the tarballs of the
 * packages of ours it depends on beside it (npm satisfies those dependencies from them; see
 * `installSpecs` of test/helpers/tarballs.ts). Everything else on the line is run as
 * printed; other packages come from the registry. `npx` is told never to download a package, so
 * a command whose package a document forgot to install fails.
 *
 * The documents start their emulator on the default port 8787. So that two checkouts (or a demo)
 * can run at once on one machine, each document runs on a free port the test picks instead: every
 * `8787` of its script becomes that port, and `SERVICE_EMULATOR_PORT` gives it to the emulators
 * the document starts without `--port` (their default). The test kills an emulator a failed
 * document left behind, and checks that nothing listens on its port afterwards.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import {
  docBlocks,
  docScript,
  documents,
  isRun,
  markedDocuments,
  SHELL_LANGUAGES,
  substituteInstalls,
} from "../helpers/doc-blocks";
import { freePort } from "../../scripts/postgres-server";
import { startPrebuildMirror, type PrebuildMirror } from "../helpers/prebuilds";
import { installSpecs, packAll, strangerEnv, type PackageName, type Packed } from "../helpers/tarballs";

const REPO = path.resolve(__dirname, "../..");
const DOCS = documents(REPO);
const ALL = DOCS.flatMap((doc) => docBlocks(path.join(REPO, doc), doc));
/** The packages' version (package.json), as the documents' commands print it. */
const VERSION = (JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as { version: string })
  .version;
/** {@link VERSION} as a regular expression's text. */
const VERSION_RE = VERSION.replace(/\./g, "\\.");
/** The port the documents show (the emulator's default). */
const DOCUMENTED_PORT = 8787;

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Kills the emulators whose PID files are under `dir` (those a failed document left running). */
function killLeftEmulators(dir: string): void {
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && e.name !== "node_modules") walk(p);
      else if (e.name === "emulator.pid") {
        try {
          process.kill(Number(fs.readFileSync(p, "utf8")), "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
  };
  walk(dir);
}

/** Runs `script` with bash in `cwd`; resolves with its exit code and its whole output. */
function bash(script: string, cwd: string, env: Record<string, string>, timeoutMs: number) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("the documentation's code blocks", () => {
  it("every block of commands is a shell block, and every shell block is run or says why not", () => {
    const problems = ALL.flatMap((b) => {
      const at = `${b.doc}:${b.line}`;
      if (b.lang === "" && /^\s*(\$ )?(npm|npx|node|pulumi|curl|cd|export|mkdir|service-\w+) /m.test(b.body))
        return [`${at}: commands in a fence without a language (sh, or text for output)`];
      if (b.badMarker) return [`${at}: not a marker: ${b.badMarker}`];
      if (b.marker?.kind === "not run" && !SHELL_LANGUAGES.has(b.lang))
        return [`${at}: "not run" on a ${b.lang} block, which is never run`];
      if (b.marker?.kind === "not run" && b.marker.value.length < 10)
        return [`${at}: "not run" without a reason`];
      if (b.marker?.kind === "file" && SHELL_LANGUAGES.has(b.lang))
        return [`${at}: a shell block saved as a file`];
      return [];
    });
    expect(problems).toEqual([]);
    const run = ALL.filter(isRun);
    const notRun = ALL.filter((b) => b.marker?.kind === "not run");
    console.log(
      `doc blocks: ${run.length} run (${[...new Set(run.map((b) => b.doc))].join(", ")}), ${notRun.length} marked not run (${notRun.map((b) => `${b.doc}:${b.line}`).join(", ")})`,
    );
    expect(run.length).toBeGreaterThan(0);
  });

  it("every `run by` marker names a test file that takes its blocks with blocksRunBy", () => {
    const marked = markedDocuments(REPO)
      .flatMap((doc) => docBlocks(path.join(REPO, doc), doc))
      .filter((b) => b.marker?.kind === "run by");
    const problems = marked.flatMap((b) => {
      const at = `${b.doc}:${b.line}`;
      const file = b.marker!.value;
      if (!SHELL_LANGUAGES.has(b.lang)) return [`${at}: "run by" on a ${b.lang} block, which is never run`];
      if (!/^test\/[\w./-]+\.test\.ts$/.test(file) || file.includes(".."))
        return [`${at}: "run by" names ${file}, not a test file of test/ (test/<folder>/<name>.test.ts)`];
      const source = path.join(REPO, file);
      if (!fs.existsSync(source)) return [`${at}: "run by" names ${file}, which does not exist`];
      const text = fs.readFileSync(source, "utf8");
      if (!text.includes("blocksRunBy(") || !text.includes(`"${file}"`))
        return [`${at}: ${file} does not take its blocks with blocksRunBy(REPO_ROOT, "${file}")`];
      return [];
    });
    expect(problems).toEqual([]);
    console.log(
      `doc blocks run by other tests: ${marked.map((b) => `${b.doc}:${b.line} (${b.marker!.value})`).join(", ")}`,
    );
  });
});

/**
 * `script` with each `pulumi login --local` (or `-l`) made `pulumi login file://<home>`: the local
 * backend `--local` means (`file://~`, the home of the user database), in `home` instead.
 */
function localLoginIn(script: string, home: string): string {
  return script.replace(/\bpulumi login (--local|-l)\b/g, `pulumi login file://${home}`);
}

/** The project folders of this user's `pulumi login --local` backend (`~/.pulumi/stacks` of the user database's home). */
function localBackendProjects(): string[] {
  const stacks = path.join(os.userInfo().homedir, ".pulumi", "stacks");
  return fs.existsSync(stacks) ? fs.readdirSync(stacks) : [];
}

/** What a reader sees when a document's commands worked, beyond each command's exit code 0. */
const EXPECTED: Record<string, (out: string, work: string) => void> = {
  "README.md": (out, work) => {
    expect(out).toContain(`(file://${path.join(work, ".home")})`);
    expect(out).toMatch(/\+ 5 created/);
    expect(out).toMatch(/- 5 deleted/);
    expect(out).toMatch(/stopped the emulator \(PID \d+\)/);
    expect(fs.existsSync(path.join(work, "service-stack", ".emulator", "emulator.pid"))).toBe(false);
  },
  "docs/cli.md": (out) => {
    expect(out).toMatch(new RegExp(`^${VERSION_RE}$`, "m"));
    expect(out).toMatch(/^Usage: service-recover/m);
  },
  "docs/emulator.md": (out) => {
    expect(out).toContain('"event_subscriptions":[]');
    expect(out).toMatch(/stopped the emulator \(PID \d+\)/);
  },
  "docs/providers.md": (out) => {
    expect(out).toMatch(/\+ 3 created/);
    expect(out).toContain('"name": "service"');
    expect(out).toMatch(/= 1 imported/);
    expect(out).toMatch(new RegExp(`service +resource +${VERSION_RE}`));
    expect(out).toMatch(/- 1 deleted/); // the imported subscription, first
    expect(out).toMatch(/- 3 deleted/);
    expect(out).toMatch(/stopped the emulator \(PID \d+\)/);
  },
  "docs/gitops.md": (out) => {
    expect(out).toContain("DRIFT: none");
    expect(out).toMatch(
      /DRIFT: 1 resource\(s\) changed outside Pulumi[\s\S]*description +"Policy changes" +"edited by hand"/,
    );
    expect(out).toContain("exit code 2");
    expect(out).toContain('{"drift":false,"exitCode":0}');
    // review/: the ignored description is listed apart, not drift; the guard refuses the rename.
    expect(out).toMatch(
      /IGNORED \(ignoreChanges; not drift\)[^\n]*\n[^\n]*\n +policy-changes +EventSubscription +esb_\w+ +description +description +"Policy changes" +"Policy changes \(on call: Ana\)"\n[\s\S]*?Result: no drift \(exit code 0\)/,
    );
    expect(out).toMatch(
      /^\| \*\*delete\*\* \| \*\*audit\*\* `ed_\w+` \| EventDestination \| `target` \| `\[secret\]` \| {2}\|$/m,
    );
    expect(out).toContain(
      "**The guard refuses this change** (replace, delete of type EventDestination): delete **audit** (EventDestination).",
    );
    // The guard's exit code, printed right before the comment `cat` shows.
    expect(out).toMatch(
      /exit code 2\n\*\*Preview of stack `review`:\*\* 1 to create, 1 to update, 1 to delete, 1 unchanged\./,
    );
    // service-drift unmanaged: the two made by hand, the marked one apart, abuse reports said unchecked
    expect(out).toMatch(
      /UNMANAGED: 2 resource\(s\)[\s\S]*destination +ed_\w+ +\S+ +Exports by hand[\s\S]*subscription +esb_\w+ +\S+ +Domain changes +ed_\w+/,
    );
    expect(out).toMatch(/EXCLUDED ON PURPOSE: ed_\w+ \(by description\)/);
    expect(out).toContain("Not checked: abuse reports were not checked");
    expect(out).toMatch(/"type": "service:index:EventSubscription",\s+"name": "domainChanges"/);
    expect(out).toMatch(/stopped the emulator \(PID \d+\)/);
  },
  "docs/testing.md": (_out, work) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(work, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).toContain("pulumi-service");
    expect(Object.keys(pkg.devDependencies)).toEqual(
      expect.arrayContaining(["service-emulator", "jest", "ts-jest", "typescript", "@types/jest"]),
    );
    for (const bin of ["jest", "service-emulator", "service-drift"])
      expect(fs.existsSync(path.join(work, "node_modules", ".bin", bin))).toBe(true);
    expect(fs.existsSync(path.join(work, "node_modules", "@pulumi", "pulumi", "automation"))).toBe(true);
  },
};

const RUN_DOCS = DOCS.filter((doc) => ALL.some((b) => b.doc === doc && isRun(b)));

describe("the documentation's shell blocks, run by a stranger from the packed packages", () => {
  let tmp: string;
  let packed: Record<PackageName, Packed>;
  let prebuilds: PrebuildMirror;
  let specs: Record<string, string[]>;

  beforeAll(async () => {
    prebuilds = await startPrebuildMirror();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-docs-"));
    packed = packAll(tmp);
    specs = Object.fromEntries(
      (Object.keys(packed) as PackageName[]).map((name) => [name, installSpecs(name, packed)]),
    );
  }, 300_000);

  afterAll(async () => {
    await prebuilds?.close();
    if (tmp) {
      killLeftEmulators(tmp);
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("documents with shell blocks all say what a reader should see", () => {
    expect(RUN_DOCS.filter((doc) => !(doc in EXPECTED))).toEqual([]);
  });

  it.each(RUN_DOCS)(
    "%s: its shell blocks, in order, as printed",
    async (doc) => {
      const blocks = ALL.filter((b) => b.doc === doc);
      const port = await freePort();
      const substituted = substituteInstalls(docScript(blocks), specs);
      const work = fs.mkdtempSync(path.join(tmp, `${doc.replace(/\W+/g, "-")}-`));
      const home = path.join(work, ".home");
      fs.mkdirSync(home);
      const script = localLoginIn(
        substituted.script.replace(new RegExp(`\\b${DOCUMENTED_PORT}\\b`, "g"), String(port)),
        home,
      );
      const { replaced } = substituted;
      if (/^\s*npm\s+(install|i|add)\b.*\b(pulumi-service|service-emulator)\b/m.test(docScript(blocks)))
        expect(replaced.length).toBeGreaterThan(0);
      expect(script).not.toMatch(/pulumi login (--local|-l)\b/);
      const userProjects = new Set(localBackendProjects());
      const started = Date.now();
      let r: Awaited<ReturnType<typeof bash>>;
      try {
        r = await bash(
          script,
          work,
          { ...strangerEnv(home, prebuilds.env), SERVICE_EMULATOR_PORT: String(port) },
          1_200_000,
        );
      } finally {
        prebuilds.harvest(work);
        killLeftEmulators(work);
      }
      console.log(`${doc}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
      if (r.code !== 0) throw new Error(`${doc} failed (exit code ${r.code}):\n${r.out.slice(-6000)}`);
      EXPECTED[doc](r.out, work);
      expect(await listening(port)).toBe(false);
      // Nothing of the document's stacks reached this user's own local backend.
      expect(localBackendProjects().filter((p) => !userProjects.has(p))).toEqual([]);
    },
    1_800_000,
  );
});
