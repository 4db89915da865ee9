/**
 * `service-drift` (gitops/cli.ts) in process: usage, options and exit codes; the drift report's
 * wiring (the stack from `--stack` or `PULUMI_STACK`, the progress lines, the formats, the exit
 * code of the report) with the report itself stubbed; `generate`'s requests and connections. The
 * same against a real stack through the engine: cli.engine.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ServiceClient } from "../../client";
import { main } from "../../gitops/cli";
import type { DriftOptions, DriftReport } from "../../gitops/drift";
import { capture } from "../helpers/cli";
import { loadedWith } from "../helpers/loaded-modules";
import { lastPage, startScriptedServer } from "../helpers/scripted-server";

const io = capture;
/** A progress line: `service-drift: [1.2 s] …`. */
const PROGRESS = /^service-drift: \[\d+\.\d s\] /m;

describe("command line (in process)", () => {
  it("--format takes text, json or markdown; anything else exits 1 naming the choices", async () => {
    const bad = io();
    expect(await main(["node", "service-drift", "--stack", "dev", "--format", "xml"], bad.cli)).toBe(1);
    expect(bad.out.stderr).toMatch(/text, json, markdown/);
  });

  it("--help exits 0; an unknown option exits 1", async () => {
    const help = io();
    expect(await main(["node", "service-drift", "--help"], help.cli)).toBe(0);
    expect(help.out.stdout).toMatch(/--stack <name>/);
    const bad = io();
    expect(await main(["node", "service-drift", "--nope"], bad.cli)).toBe(1);
    expect(bad.out.stderr).toMatch(/unknown option/);
  });

  it("generate without a base URL exits 1 with a clear message", async () => {
    const run = io({ SERVICE_API_KEY: "sk_unit_key_1234" });
    expect(await main(["node", "service-drift", "generate"], run.cli)).toBe(1);
    expect(run.out.stderr).toMatch(/--base-url/);
    expect(run.out.stderr).not.toContain("sk_unit_key_1234");
  });

  it("without --stack nor PULUMI_STACK exits 1 naming both", async () => {
    const run = io({});
    expect(await main(["node", "service-drift"], run.cli)).toBe(1);
    expect(run.out.stderr).toMatch(/Missing --stack <name> \(or PULUMI_STACK\)/);
  });

  it("--version, --help and a bad command line answer without loading the Automation API or the client", async () => {
    const heavy = ["@pulumi/pulumi/automation", "zod"];
    for (const args of [["--version"], ["--help"], ["--nope"], ["generate", "--help"]]) {
      const { loaded } = await loadedWith(heavy, async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const cli = require("../../gitops/cli") as typeof import("../../gitops/cli");
        await cli.main(["node", "service-drift", ...args], io().cli);
      });
      expect({ args, loaded }).toEqual({ args, loaded: [] });
    }
    // a report does load them (so the check above can see a load)
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "drift-load-"));
    try {
      const { loaded } = await loadedWith(heavy, async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const cli = require("../../gitops/cli") as typeof import("../../gitops/cli");
        await cli.main(["node", "service-drift", "--stack", "dev", "--cwd", empty], io().cli);
      });
      expect(loaded).toContain("@pulumi/pulumi/automation");
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  describe("progress on stderr, only when stderr is a terminal", () => {
    let empty: string;
    beforeAll(() => (empty = fs.mkdtempSync(path.join(os.tmpdir(), "drift-progress-"))));
    afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));
    const argv = () => ["node", "service-drift", "--stack", "dev", "--cwd", empty, "--format", "json"];

    it("a terminal gets a line per step started (here the first, before the missing project fails it)", async () => {
      const run = io({});
      run.cli.stderrIsTTY = true;
      expect(await main(argv(), run.cli)).toBe(1);
      expect(run.out.stderr).toMatch(/^service-drift: \[0\.\d s\] selecting the stack "dev"\n/);
      expect(run.out.stderr).toMatch(/No Pulumi project in/);
      // stdout holds the JSON document alone
      expect(JSON.parse(run.out.stdout)).toEqual({
        error: expect.stringMatching(/No Pulumi project/),
        exitCode: 1,
      });
    });

    it("a pipe or a file gets none", async () => {
      const run = io({});
      expect(await main(argv(), run.cli)).toBe(1);
      expect(run.out.stderr).toMatch(/No Pulumi project in/);
      expect(run.out.stderr).not.toMatch(PROGRESS);
    });
  });
});

/** A drift report of stack dev, with drift or without. */
const report = (drift: boolean): DriftReport => ({
  stack: "dev",
  workDir: "/repo/infra",
  drift,
  checkedResources: 0,
  resources: [],
  ignored: [],
  pendingChanges: { present: false, summary: {}, resources: [] },
  exitCode: drift ? 2 : 0,
});

/**
 * A stand-in for gitops/drift (for `jest.doMock`): its runDriftReport notes its options in `calls`,
 * announces every step to `onProgress`, then throws or returns `answerOf()`.
 */
const driftStub = (answerOf: () => DriftReport | Error, calls: DriftOptions[] = []) => ({
  runDriftReport: async (opts: DriftOptions) => {
    calls.push(opts);
    for (const phase of ["select", "refresh", "preview", "done"] as const) opts.onProgress?.(phase);
    const answer = answerOf();
    if (answer instanceof Error) throw answer;
    return answer;
  },
});

describe("the drift report's wiring (the report stubbed)", () => {
  /** What the stubbed runDriftReport was called with, and the report it answers. */
  const calls: DriftOptions[] = [];
  let answer: DriftReport | Error;

  beforeAll(() => {
    jest.doMock("../../gitops/drift", () => driftStub(() => answer, calls));
  });
  afterAll(() => jest.dontMock("../../gitops/drift"));
  beforeEach(() => {
    calls.length = 0;
    answer = report(false);
  });

  it("the stack is --stack, else PULUMI_STACK; an empty PULUMI_STACK is none; --cwd resolved, the env passed", async () => {
    const env = { PULUMI_STACK: "from-env", OTHER: "1" };
    const fromEnv = io(env);
    expect(await main(["node", "service-drift", "--cwd", "infra"], fromEnv.cli)).toBe(0);
    const flagged = io(env);
    expect(await main(["node", "service-drift", "--stack", "prod"], flagged.cli)).toBe(0);
    expect(calls.map(({ stack, cwd, env: e }) => ({ stack, cwd, env: e }))).toEqual([
      { stack: "from-env", cwd: path.resolve("infra"), env },
      { stack: "prod", cwd: process.cwd(), env },
    ]);
    const empty = io({ PULUMI_STACK: "" });
    expect(await main(["node", "service-drift"], empty.cli)).toBe(1);
    expect(empty.out.stderr).toBe(
      "service-drift: Missing --stack <name> (or PULUMI_STACK): which stack to check (e.g. --stack dev).\n",
    );
    expect(calls).toHaveLength(2);
  });

  it("a terminal sees one line per step, the stack named in the first; the exit code is the report's", async () => {
    const run = io({});
    run.cli.stderrIsTTY = true;
    answer = report(true);
    expect(await main(["node", "service-drift", "--stack", "dev", "--format", "json"], run.cli)).toBe(2);
    expect(run.out.stderr.replace(/\[\d+\.\d s\]/g, "[s]")).toBe(
      [
        'service-drift: [s] selecting the stack "dev"',
        "service-drift: [s] reading the live resources (refresh, preview only)",
        "service-drift: [s] previewing the program",
        "service-drift: [s] done",
        "",
      ].join("\n"),
    );
    expect(JSON.parse(run.out.stdout)).toEqual(report(true));
  });

  it("--json stands for --format json, for a report and for a failure (the API key removed)", async () => {
    const ok = io({});
    expect(await main(["node", "service-drift", "--stack", "dev", "--json"], ok.cli)).toBe(0);
    expect(JSON.parse(ok.out.stdout)).toEqual(report(false));
    expect(ok.out.stderr).toBe("");

    answer = new Error("refused sk_cli_wiring_key_0123");
    const failed = io({ SERVICE_API_KEY: "sk_cli_wiring_key_0123" });
    expect(await main(["node", "service-drift", "--stack", "dev", "--json"], failed.cli)).toBe(1);
    expect(JSON.parse(failed.out.stdout)).toEqual({ error: "refused [redacted]", exitCode: 1 });
    expect(failed.out.stderr).toBe("service-drift: refused [redacted]\n");
  });
});

describe("usage and generate's requests", () => {
  it("--help prints the usage word for word (spaces and line breaks aside: commander wraps at the terminal's width)", async () => {
    const help = io();
    expect(await main(["node", "service-drift", "--help"], help.cli)).toBe(0);
    const words = (text: string) => text.replace(/\s+/g, " ").trim();
    expect(words(help.out.stdout)).toBe(
      words(`Usage: service-drift [options] [command]
Drift report of a Pulumi stack of this service: a preview-only refresh (the state is not changed)
and, kept apart, the program's changes not yet deployed. Exit code 0: no drift; 2: drift; 1: error.
Options:
  --format <format> text (a table), json (one document) or markdown (a comment)
    (choices: "text", "json", "markdown", default: "text")
  --json the same as --format json
  -V, --version output the version number
  -s, --stack <name> stack to check, e.g. dev (default: env PULUMI_STACK)
  -C, --cwd <dir> folder of the Pulumi project (Pulumi.yaml) (default: "${process.cwd()}")
  -h, --help display help for command
Commands:
  generate [options] Print a TypeScript Pulumi program adopting every event destination and
    subscription of the account (API key from SERVICE_API_KEY).
  preview [options] Summary of \`pulumi preview\` per resource (create, update, replace, delete;
    changed inputs before and after, secrets masked) and a guard. Exit code 0: the guard passes
    (or none); 2: it refuses; 1: error.
  unmanaged [options] List the event subscriptions and destinations of the account that are in
    none of the given stacks' states (abuse reports cannot be listed). Exit code 0: none; 2: some;
    1: error.`),
    );
  });

  it("generate names itself in its requests' User-Agent and closes its connections when done", async () => {
    const server = await startScriptedServer([
      lastPage("event_destinations"),
      lastPage("event_subscriptions"),
    ]);
    const close = jest.spyOn(ServiceClient.prototype, "close");
    try {
      const run = io({ SERVICE_API_KEY: "sk_generate_ua_0123456789" });
      expect(await main(["node", "service-drift", "generate", "--base-url", server.url], run.cli)).toBe(0);
      expect(server.requests.map((r) => [r.url, r.headers["user-agent"]])).toEqual([
        ["/event_destinations", "service-drift-generate"],
        ["/event_subscriptions", "service-drift-generate"],
      ]);
      expect(close).toHaveBeenCalledTimes(1);
    } finally {
      close.mockRestore();
      await server.close();
    }
  });
});

describe("the drift report's wiring, with gitops/cli.ts loaded inside the test", () => {
  // Loaded afresh inside each test: Stryker's per-test coverage then counts the module's constants
  // (the steps' text) as this test's, which it does not for the load at the top of this file.
  const stubbed = (answer: DriftReport | Error) => {
    jest.resetModules(); // the registry keeps the module mocked above; this test's stub replaces it
    jest.doMock("../../gitops/drift", () => driftStub(() => answer));
  };
  afterEach(() => jest.dontMock("../../gitops/drift"));

  it("a terminal sees each step's own text, in order", async () => {
    stubbed(report(false));
    await jest.isolateModulesAsync(async () => {
      const cli = await import("../../gitops/cli");
      const run = io({});
      run.cli.stderrIsTTY = true;
      expect(await cli.main(["node", "service-drift", "--stack", "qa", "--json"], run.cli)).toBe(0);
      expect(run.out.stderr.replace(/\[\d+\.\d s\]/g, "[s]").split("\n")).toEqual([
        'service-drift: [s] selecting the stack "qa"',
        "service-drift: [s] reading the live resources (refresh, preview only)",
        "service-drift: [s] previewing the program",
        "service-drift: [s] done",
        "",
      ]);
    });
  });

  it("a failure in Markdown is a line naming the drift report, for a pull request's comment", async () => {
    stubbed(new Error("the stack dev was not found"));
    await jest.isolateModulesAsync(async () => {
      const cli = await import("../../gitops/cli");
      const run = io({});
      expect(
        await cli.main(["node", "service-drift", "--stack", "dev", "--format", "markdown"], run.cli),
      ).toBe(1);
      expect(run.out).toEqual({
        stdout: "**The drift report failed** (exit code 1): the stack dev was not found\n",
        stderr: "service-drift: the stack dev was not found\n",
      });
    });
  });
});

describe("usage as installed", () => {
  it("the usage names service-drift whatever the script's file is called (as npm installs it: dist/gitops/cli.js)", async () => {
    const help = io();
    const script = path.join("/usr", "lib", "node_modules", "pulumi-service", "dist", "gitops", "cli.js");
    expect(await main(["node", script, "--help"], help.cli)).toBe(0);
    expect(help.out.stdout.split("\n")[0]).toBe("Usage: service-drift [options] [command]");
  });

  it("generate --help: its description and its option's text", async () => {
    const help = io();
    expect(await main(["node", "service-drift", "generate", "--help"], help.cli)).toBe(0);
    expect(help.out.stdout.replace(/\s+/g, " ").trim()).toBe(
      "Usage: service-drift generate [options] Print a TypeScript Pulumi program adopting every event destination " +
        "and subscription of the account (API key from SERVICE_API_KEY). Options: --base-url <url> base URL of the " +
        "service (default: SERVICE_BASE_URL) -h, --help display help for command",
    );
  });
});
