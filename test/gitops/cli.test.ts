/**
 * `service-drift` (gitops/cli.ts): usage, options and exit codes in process; the stack from
 * `PULUMI_STACK` and the progress lines against a real (empty) stack, in process and as the built
 * command line.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../gitops/cli";
import type { DriftReport } from "../../gitops/drift";
import { capture } from "../helpers/cli";
import { runDriftCli } from "../helpers/gitops";
import { loadedWith } from "../helpers/loaded-modules";
import { freshBackend, localStack } from "../helpers/pulumi";

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

describe("against an empty stack (real engine)", () => {
  const program = path.resolve(__dirname, "../fixtures/reliability");
  const stackName = `cli-${process.pid}`;
  let backend: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    backend = freshBackend("gitops-cli");
    const made = await localStack(program, stackName, backend);
    env = made.env;
    await made.stack.setAllConfig({ destinations: { value: "0" }, subscriptions: { value: "0" } });
    await made.stack.up();
  }, 300_000);

  afterAll(() => {
    if (backend) fs.rmSync(backend, { recursive: true, force: true });
    fs.rmSync(path.join(program, `Pulumi.${stackName}.yaml`), { force: true });
  });

  it("the built command line takes the stack from PULUMI_STACK; --stack wins over it", async () => {
    const fromEnv = await runDriftCli(["--cwd", program, "--format", "json"], {
      ...env,
      PULUMI_STACK: stackName,
    });
    expect(fromEnv.stderr).toBe("");
    expect(fromEnv.code).toBe(0);
    expect(JSON.parse(fromEnv.stdout) as DriftReport).toMatchObject({
      stack: stackName,
      drift: false,
      exitCode: 0,
    });

    const flagged = await runDriftCli(["--cwd", program, "--stack", "no-such-stack", "--format", "json"], {
      ...env,
      PULUMI_STACK: stackName,
    });
    expect(flagged.code).toBe(1);
    expect(JSON.parse(flagged.stdout).error).toMatch(/stack "no-such-stack"/);
  }, 300_000);

  it("a terminal sees each step with the seconds elapsed, in order; stdout holds the report alone", async () => {
    const run = io(env);
    run.cli.stderrIsTTY = true;
    expect(await main(["node", "service-drift", "--stack", stackName, "--cwd", program], run.cli)).toBe(0);
    const lines = run.out.stderr.trimEnd().split("\n");
    expect(lines.map((l) => l.replace(/\[\d+\.\d s\]/, "[s]"))).toEqual([
      `service-drift: [s] selecting the stack "${stackName}"`,
      "service-drift: [s] reading the live resources (refresh, preview only)",
      "service-drift: [s] previewing the program",
      "service-drift: [s] done",
    ]);
    const seconds = lines.map((l) => Number(/\[(\d+\.\d) s\]/.exec(l)![1]));
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
    expect(seconds[3]).toBeGreaterThan(0);
    expect(run.out.stdout).toMatch(/^Drift report of stack/);
    expect(run.out.stdout).not.toMatch(/service-drift: \[/);
  }, 300_000);
});
