/**
 * `service-drift` (gitops/cli.ts) against a real (empty) stack through the engine: the stack from
 * `PULUMI_STACK` as the built command line takes it, and the progress lines of each step in
 * process. Its own file, left out of the mutation run as the engine scenarios are
 * (jest.mutation.config.js); the in-process tests of the command line are in cli.test.ts.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "../../gitops/cli";
import type { DriftReport } from "../../gitops/drift";
import { capture } from "../helpers/cli";
import { runDriftCli } from "../helpers/gitops";
import { freshBackend, localStack } from "../helpers/pulumi";

const io = capture;

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
