/**
 * Requests per operation: for a stack of one `EventDestination` and N `EventSubscription`s
 * through each door (the dynamic door, bench/fixtures/deploy; the native door,
 * bench/fixtures/native), the requests the service (the in-process emulator of bench/stacks.ts)
 * answered during each operation — `up` from empty, `up` with no changes, `preview`, `refresh`,
 * `service-drift`'s report (gitops/drift.ts: a preview-only refresh running the program, then a
 * preview) and `destroy` — by method, with single GETs (`GET /event_subscriptions/{id}`) apart
 * from list GETs (`GET /event_subscriptions`), divided by the N + 1 resources of the service the
 * stack holds (the destination and the N subscriptions; the Stack and provider resources are not
 * counted). Each goal (docs/performance.md § Requests per operation) bounds those requests per
 * resource; bench/request-counts.ts counts them, judges the goals and prints the table. The counts do not vary from run to run, except those of `refresh` and `service-drift`
 * from N = 1,000, which list the subscriptions page by page (provider/impl/reads/listReads.ts) and send
 * a few requests more or fewer with the timing of the engine's reads: one run.
 *
 * `npm run bench` measures its deploy N here too (quick mode: N = 5); run alone,
 * `node dist/bench/requests.js` measures `BENCH_COUNTS` (default `10,100,1000`) and writes
 * `BENCH_OUT` (default `bench/results/latest-requests.json`) with its chart beside it
 * (`<stem>-requests.svg`); `BENCH_FAST=1` runs the engine in
 * fast mode (no checkpoints: `FAST_MODE_ENV` of bench/engine.ts), which changes the time, not the
 * requests.
 *
 * @packageDocumentation
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { FAST_MODE_ENV, openEngine, REPO_ROOT, type Engine } from "./engine";
import { benchVersions, machineInfo, writeCharts, type MachineInfo, type Versions } from "./report";
import {
  DOORS,
  operationRequests,
  REQUEST_OPS,
  requestsMarkdown,
  requestsResults,
  routesSince,
  type Door,
  type OperationRequests,
  type RequestCell,
  type RequestOp,
  type RequestsResults,
} from "./request-counts";
import { configure, expectCount, onNewStack, serviceDrift, withEmulator, type EmulatorMeter } from "./stacks";
import { round } from "./stats";

/** Runs one operation of {@link REQUEST_OPS} and checks the engine's count (or the drift report's). */
async function runOp(op: RequestOp, stack: Stack, n: number, what: string): Promise<void> {
  const all = n + 2; // with the Stack
  switch (op) {
    case "up":
      return expectCount(`${what} up`, (await stack.up()).summary.resourceChanges?.create, all);
    case "upNoChange":
      return expectCount(`${what} up with no changes`, (await stack.up()).summary.resourceChanges?.same, all);
    case "preview":
      return expectCount(
        `${what} preview`,
        (await stack.preview({ expectNoChanges: true })).changeSummary.same,
        all,
      );
    case "refresh":
      return expectCount(`${what} refresh`, (await stack.refresh()).summary.resourceChanges?.same, all);
    case "serviceDrift":
      return serviceDrift(stack, n, what);
    case "destroy":
      return expectCount(`${what} destroy`, (await stack.destroy()).summary.resourceChanges?.delete, all);
  }
}

/**
 * Runs every operation of {@link REQUEST_OPS} on a new stack `name` of `n` subscriptions through
 * `door` (with `env` added to the engine's environment), counting the emulator's requests during
 * each.
 * @throws Error when an operation fails, counts other than every resource, or the drift report
 *   finds drift.
 */
export async function measureRequests(
  engine: Engine,
  emu: { url: string; apiKey: string; meter: EmulatorMeter },
  door: Door,
  n: number,
  name: string,
  env?: Readonly<Record<string, string>>,
): Promise<RequestCell> {
  return onNewStack(engine, door, name, async (stack) => {
    if (env) Object.assign(stack.workspace.envVars, env);
    await configure(stack, door, n, emu);
    const ops = {} as Record<RequestOp, OperationRequests>;
    for (const op of REQUEST_OPS) {
      const before = { ...emu.meter.routes };
      await runOp(op, stack, n, `${door} N=${n}`);
      ops[op] = operationRequests(routesSince(before, emu.meter.routes), n + 1);
    }
    return { door, n, resources: n + 1, ops };
  });
}

/**
 * Measures every door at every N of `counts` (one stack each, on an emulator of its own) and
 * judges the goals.
 * @throws Error as {@link measureRequests}.
 */
export async function benchRequests(
  engine: Engine,
  opts: {
    counts: number[];
    doors?: readonly Door[];
    /** Added to the engine's environment of each stack (e.g. fast mode's settings). */
    env?: Readonly<Record<string, string>>;
    log: (line: string) => void;
  },
): Promise<RequestsResults> {
  const counts = [...opts.counts].sort((a, b) => a - b);
  const cells: RequestCell[] = [];
  await withEmulator(async (emu) => {
    for (const door of opts.doors ?? DOORS) {
      for (const n of counts) {
        const cell = await measureRequests(engine, emu, door, n, `requests-${door}-n${n}`, opts.env);
        cells.push(cell);
        opts.log(
          `requests: ${door} N=${n}: ` +
            REQUEST_OPS.map(
              (op) => `${op} ${cell.ops[op].requests} (${cell.ops[op].perResource}/resource)`,
            ).join(", "),
        );
      }
    }
  });
  return requestsResults(counts, cells);
}

/** The document `node dist/bench/requests.js` writes. */
export interface RequestsDocument extends RequestsResults {
  schemaVersion: 1;
  kind: "requests";
  /** ISO 8601 time the run started. */
  date: string;
  machine: MachineInfo;
  versions: Versions;
  /** `BENCH_FAST=1`: the engine ran without checkpoints. */
  fastMode: boolean;
  /**
   * Set when the document joins the cells of several runs (e.g. the largest N in fast mode, to
   * save time): each run's N, mode, start and wall time; the top-level `date`, `fastMode` and
   * `durationSeconds` are then the first run's.
   */
  joined?: { counts: number[]; fastMode: boolean; date: string; durationSeconds: number }[];
  /** Wall time of the run, seconds. */
  durationSeconds: number;
}

if (require.main === module) {
  const raw = process.env.BENCH_COUNTS || "10,100,1000";
  const counts = raw.split(",").map(Number);
  if (!counts.every((n) => Number.isInteger(n) && n >= 1))
    throw new Error(`BENCH_COUNTS must be positive integers separated by commas, got ${raw}`);
  const outFile = path.resolve(
    process.env.BENCH_OUT || path.join(REPO_ROOT, "bench", "results", "latest-requests.json"),
  );
  const log = (line: string) => process.stderr.write(`[bench:requests] ${line}\n`);
  const started = Date.now();
  void (async () => {
    const engine = await openEngine("bench-requests");
    try {
      const fast = process.env.BENCH_FAST === "1" || process.env.BENCH_FAST === "true";
      const r = await benchRequests(engine, { counts, log, env: fast ? FAST_MODE_ENV : undefined });
      const doc: RequestsDocument = {
        schemaVersion: 1,
        kind: "requests",
        date: new Date(started).toISOString(),
        machine: machineInfo(),
        versions: benchVersions(engine.version),
        fastMode: fast,
        ...r,
        durationSeconds: round((Date.now() - started) / 1000, 1),
      };
      mkdirSync(path.dirname(outFile), { recursive: true });
      writeFileSync(outFile, JSON.stringify(doc, null, 2) + "\n");
      writeCharts(outFile);
      process.stdout.write(requestsMarkdown(r) + "\n");
      log(`wrote ${path.relative(process.cwd(), outFile)} in ${doc.durationSeconds} s`);
    } finally {
      engine.dispose();
    }
  })().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
