/**
 * Several pipelines sharing one state backend, as a team runs them: Pulumi's PostgreSQL backend
 * (`PULUMI_BACKEND_URL=postgres://…`) on a throw-away server, the real engine, the real
 * emulator. Two `up` of one stack at once (the stack lock), four stacks of one program deployed
 * and destroyed at once, a `pulumi up` killed with SIGKILL and recovered as docs/teams.md says,
 * and `service-drift` / `service-recover` on this backend. The wall time of stacks in parallel
 * and one after the other, on this backend and on the file backend, is measured by
 * `npm run bench:teams` (bench/teams.ts), not here.
 */
import type { ChildProcess } from "node:child_process";
import * as path from "node:path";
import { rmSync } from "node:fs";
import { ServiceClient } from "../../client";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { DRIFT_CLI } from "../helpers/gitops";
import { readTables, startPostgres, type RunningPostgres } from "../helpers/postgres";
import {
  createStack,
  emulatorContents,
  killEngineProcesses,
  runNode,
  stateIds,
  type TestStack,
} from "../helpers/reliability";

const RECOVER_CLI = path.resolve(__dirname, "../../dist/gitops/recover-cli.js");
const UP = ["up", "--yes", "--skip-preview", "--non-interactive"];
const DESTROY = ["destroy", "--yes", "--skip-preview", "--non-interactive"];
const COUNTS = { destinations: 2, subscriptions: 4 };
const ENVS = ["dev", "staging", "prod", "eu"];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let pg: RunningPostgres;
let database = 0;
const stacks: TestStack[] = [];
const emulators: RunningEmulator[] = [];

/** A stack of the reliability program on a database of its own (or the given one). */
async function pgStack(
  name: string,
  em: RunningEmulator,
  opts: { db?: string; counts?: typeof COUNTS } = {},
): Promise<TestStack> {
  const db = opts.db ?? (await pg.createDatabase(`teams_${++database}`));
  const stack = await createStack(name, em, opts.counts ?? COUNTS, {
    backendUrl: pg.url(db),
    config: { label: name },
  });
  stacks.push(stack);
  return stack;
}

async function emulator(opts: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const em = await startEmulator(opts);
  emulators.push(em);
  return em;
}

/** The service holds exactly the stack's declared resources, and they are the ones in its state. */
async function expectExactly(em: RunningEmulator, stack: TestStack, counts = COUNTS): Promise<void> {
  const ids = stateIds(await stack.exportState());
  const live = emulatorContents(em);
  const mine = (rows: { id: string; description: string }[]) =>
    rows.filter((r) => r.description.startsWith(`${stack.name} `));
  const declared = (what: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${stack.name} ${what} ${i}`).sort();
  expect(ids.pending).toBe(0);
  expect(
    mine(live.destinations)
      .map((d) => d.description)
      .sort(),
  ).toEqual(declared("destination", counts.destinations));
  expect(
    mine(live.subscriptions)
      .map((s) => s.description)
      .sort(),
  ).toEqual(declared("subscription", counts.subscriptions));
  expect(
    mine(live.destinations)
      .map((d) => d.id)
      .sort(),
  ).toEqual(ids.destinations);
  expect(
    mine(live.subscriptions)
      .map((s) => s.id)
      .sort(),
  ).toEqual(ids.subscriptions);
}

const output = (r: { stdout: string; stderr: string }) => `${r.stdout}${r.stderr}`;

beforeAll(async () => {
  pg = await startPostgres();
}, 120_000);

afterAll(async () => {
  for (const s of stacks) s.dispose();
  for (const em of emulators) await em.close();
  pg?.stop();
});

describe("one stack, two pipelines at once", () => {
  /** The database of the stack `teams-lock`. */
  let lockDb: string;

  it("exactly one up runs; the other fails on the stack lock and succeeds when run again", async () => {
    const em = await emulator({ faults: { latencyMs: 300 } });
    lockDb = await pg.createDatabase(`teams_${++database}`);
    const stack = await pgStack("teams-lock", em, { db: lockDb });
    const [a, b] = await Promise.all([stack.run(UP), stack.run(UP)]);
    const codes = [a.code, b.code].sort();
    expect(codes[0]).toBe(0);
    expect(codes[1]).not.toBe(0);
    const loser = a.code === 0 ? b : a;
    expect(output(loser)).toMatch(/the stack is currently locked/);

    const again = await stack.ok(UP);
    expect(output(again)).toMatch(/unchanged/);
    await expectExactly(em, stack);
  }, 300_000);

  it("the backend's tables hold the stack's state, with its API key encrypted, never in plain form", async () => {
    const stack = stacks.find((s) => s.name === "teams-lock")!;
    const stored = await readTables(pg.url(lockDb));
    // What the tables hold is the state: the resources' IDs, and the secret config encrypted.
    const { destinations, subscriptions } = stateIds(await stack.exportState());
    expect([destinations.length, subscriptions.length]).toEqual([COUNTS.destinations, COUNTS.subscriptions]);
    for (const id of [...destinations, ...subscriptions]) expect(stored).toContain(id);
    expect(stored).toContain("ciphertext");
    expect(stored).not.toContain(emulators[0].apiKeys[0]);
  });

  it("service-drift and service-recover read the stack from the user's backend", async () => {
    const em = emulators[0];
    const stack = stacks.find((s) => s.name === "teams-lock")!;
    const env = { ...stack.env, SERVICE_API_KEY: em.apiKeys[0], SERVICE_BASE_URL: em.url };
    const args = ["--stack", stack.name, "--cwd", path.resolve(__dirname, "../fixtures/reliability")];
    const clean = await runNode(DRIFT_CLI, args, env);
    expect({ code: clean.code, out: clean.stdout }).toEqual({
      code: 0,
      out: expect.stringMatching(/no drift/i),
    });

    const client = new ServiceClient({ apiKey: em.apiKeys[0], baseUrl: em.url });
    const live = emulatorContents(em).destinations.find((d) => d.description === "teams-lock destination 1")!;
    await client.eventDestinations.update(live.id, { description: "edited by hand" });
    const drifted = await runNode(DRIFT_CLI, args, env);
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toMatch(/edited by hand/);
    const markdown = await runNode(DRIFT_CLI, [...args, "--format", "markdown"], env);
    expect(markdown.code).toBe(2);
    expect(markdown.stdout.split("\n")[0]).toBe(
      "**Drift in stack `teams-lock`:** 1 resource changed outside Pulumi since the last deployment.",
    );
    expect(markdown.stdout).toMatch(
      /\| \*\*dest-1\*\* `ed_\w+` \| EventDestination \| `description` \| `"teams-lock destination 1"` \| `"edited by hand"` \|/,
    );

    const exported = path.join(stack.backend, "state.json");
    const fixed = path.join(stack.backend, "fixed.json");
    await stack.ok(["stack", "export", "--file", exported]);
    const recover = await runNode(RECOVER_CLI, [exported, fixed], env);
    expect(recover.code).toBe(0);
    await stack.ok(["stack", "import", "--file", fixed]);
    // Refresh and up put the description back: the stack converges again.
    await stack.ok([...UP, "--refresh"]);
    await expectExactly(em, stack);
  }, 300_000);
});

describe("four stacks of one program, four pipelines at once", () => {
  it("all converge to distinct resources, with no duplicate and no orphan; all destroyed at once", async () => {
    const em = await emulator({ faults: { latencyMs: 50 } });
    const db = await pg.createDatabase("teams_parallel");
    const envStacks: TestStack[] = [];
    for (const env of ENVS) envStacks.push(await pgStack(`teams-${env}`, em, { db }));

    const ups = await Promise.all(envStacks.map((s) => s.run(UP)));
    expect(ups.map((u) => u.code)).toEqual([0, 0, 0, 0]);
    for (const s of envStacks) await expectExactly(em, s);
    const live = emulatorContents(em);
    expect(live.destinations).toHaveLength(ENVS.length * COUNTS.destinations);
    expect(live.subscriptions).toHaveLength(ENVS.length * COUNTS.subscriptions);

    const destroys = await Promise.all(envStacks.map((s) => s.run(DESTROY)));
    expect(destroys.map((d) => d.code)).toEqual([0, 0, 0, 0]);
    expect(emulatorContents(em)).toEqual({ subscriptions: [], destinations: [] });
  }, 600_000);
});

describe("a pulumi up killed with SIGKILL on this backend", () => {
  it("pulumi cancel, service-recover, refresh and up converge; no repair of the backend is needed", async () => {
    const counts = { destinations: 3, subscriptions: 12 };
    const em = await emulator({ faults: { latencyMs: 100 } });
    const stack = await pgStack("teams-killed", em, { counts });
    const created = () => em.store.requests().filter((r) => r.method === "POST" && r.status === 201).length;

    let cli: ChildProcess | undefined;
    const up = stack.run([...UP, "--parallel", "4"], { onStart: (c) => (cli = c) });
    const deadline = Date.now() + 120_000;
    while (created() < 6 && Date.now() < deadline) await sleep(20);
    cli!.kill("SIGKILL");
    expect((await up).signal).toBe("SIGKILL");
    killEngineProcesses(stack.backendUrl);
    await sleep(500);

    // The state is readable as it is (the file backend's empty-metadata repair has no equivalent).
    const afterKill = await stack.run(["stack", "export"]);
    expect(afterKill.code).toBe(0);
    const locked = await stack.run(UP);
    expect(output(locked)).toMatch(/the stack is currently locked/);

    await stack.ok(["cancel", "--yes"]);
    const exported = path.join(stack.backend, "state.json");
    const fixed = path.join(stack.backend, "fixed.json");
    await stack.ok(["stack", "export", "--show-secrets", "--file", exported]);
    const recover = await runNode(RECOVER_CLI, [exported, fixed], {
      ...process.env,
      SERVICE_API_KEY: em.apiKeys[0],
      SERVICE_BASE_URL: em.url,
    } as Record<string, string>);
    expect(recover.code).toBe(0);
    await stack.ok(["stack", "import", "--file", fixed]);
    rmSync(exported, { force: true });
    rmSync(fixed, { force: true });
    await stack.ok(["refresh", "--yes", "--skip-preview", "--non-interactive"]);
    await stack.ok(UP);
    await expectExactly(em, stack, counts);
    await stack.ok(["preview", "--expect-no-changes", "--non-interactive"]);
  }, 600_000);
});
