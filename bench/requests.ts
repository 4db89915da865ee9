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
 * resource. The counts do not vary from run to run, except those of `refresh` and `service-drift`
 * from N = 1,000, which list the subscriptions page by page (provider/impl/listReads.ts) and send
 * a few requests more or fewer with the timing of the engine's reads: one run.
 *
 * `npm run bench` measures its deploy N here too (quick mode: N = 5); run alone,
 * `node dist/bench/requests.js` measures `BENCH_COUNTS` (default `10,100,1000`) and writes
 * `BENCH_OUT` (default `bench/results/latest-requests.json`) with its chart beside it
 * (`<stem>-requests.svg`); `BENCH_FAST=1` runs the engine in
 * fast mode (no checkpoints: `FAST_MODE_ENV` of bench/scale.ts), which changes the time, not the
 * requests.
 *
 * @packageDocumentation
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { runDriftReport } from "../gitops/drift";
import { openEngine, REPO_ROOT, type Engine } from "./engine";
import { benchVersions, machineInfo, writeCharts, type MachineInfo, type Versions } from "./report";
import { configure, expectCount, onNewStack, withEmulator, type EmulatorMeter } from "./stacks";
import { FAST_MODE_ENV } from "./scale";
import { round } from "./stats";

/** The operations measured on each stack, in the order run; `serviceDrift` is `service-drift`'s report. */
export const REQUEST_OPS = ["up", "upNoChange", "preview", "refresh", "serviceDrift", "destroy"] as const;
/** One of {@link REQUEST_OPS}. */
export type RequestOp = (typeof REQUEST_OPS)[number];

/**
 * The kinds of request counted: `GET` a single GET (its route ends with a parameter, e.g.
 * `GET /event_subscriptions/{id}`), `LIST` a GET of a collection (`GET /event_subscriptions`),
 * the other methods by name, and `other` (any other method, or a request that matched no route).
 */
export const REQUEST_KINDS = ["GET", "LIST", "POST", "PATCH", "DELETE", "other"] as const;
/** One of {@link REQUEST_KINDS}. */
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** The doors measured: the dynamic door (`real`) and the native door (`native`). */
export type Door = "real" | "native";
/** Both doors, in the order measured. */
export const DOORS: readonly Door[] = ["real", "native"];

/**
 * The kind of a request from its key in {@link EmulatorMeter.routes} (`<METHOD> <pattern>`, see
 * `routeKey` of bench/stacks.ts): see {@link REQUEST_KINDS}.
 */
export function requestKind(key: string): RequestKind {
  const space = key.indexOf(" ");
  const method = key.slice(0, space);
  const pattern = key.slice(space + 1);
  if (pattern === "(no route)") return "other";
  if (method === "GET") return /\/\{[^/]+\}$/.test(pattern) ? "GET" : "LIST";
  return (REQUEST_KINDS as readonly string[]).includes(method) ? (method as RequestKind) : "other";
}

/** The requests of each route answered between two readings of {@link EmulatorMeter.routes} (zeros left out). */
export function routesSince(
  before: Readonly<Record<string, number>>,
  after: Readonly<Record<string, number>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, count] of Object.entries(after)) {
    const d = count - (before[key] ?? 0);
    if (d !== 0) out[key] = d;
  }
  return out;
}

/** The requests of one operation on one stack. */
export interface OperationRequests {
  /** Requests answered during the operation. */
  requests: number;
  /** `requests` divided by the stack's resources of the service (N + 1), rounded to 4 decimals. */
  perResource: number;
  /** Requests of each kind divided by N + 1, rounded to 4 decimals (every kind present, 0 when none). */
  perResourceByKind: Record<RequestKind, number>;
  /** Requests of each route (`GET /event_subscriptions/{id}`: 100), as counted; routes with none left out. */
  routes: Record<string, number>;
}

/**
 * The figures of one operation from its requests by route (`routes`, see {@link routesSince})
 * and the stack's resources of the service (`resources`, N + 1).
 * @throws Error when `resources` is not a positive integer.
 */
export function operationRequests(routes: Record<string, number>, resources: number): OperationRequests {
  if (!Number.isInteger(resources) || resources < 1)
    throw new Error(`resources must be a positive integer, got ${resources}`);
  const byKind = Object.fromEntries(REQUEST_KINDS.map((k) => [k, 0])) as Record<RequestKind, number>;
  let requests = 0;
  for (const [key, count] of Object.entries(routes)) {
    byKind[requestKind(key)] += count;
    requests += count;
  }
  const per = (v: number) => round(v / resources, 4);
  return {
    requests,
    perResource: per(requests),
    perResourceByKind: Object.fromEntries(REQUEST_KINDS.map((k) => [k, per(byKind[k])])) as Record<
      RequestKind,
      number
    >,
    routes,
  };
}

/** The requests of every operation of one door at one N. */
export interface RequestCell {
  door: Door;
  /** Subscriptions. */
  n: number;
  /** Resources of the service the figures are divided by: N + 1 (the destination and N subscriptions). */
  resources: number;
  ops: Record<RequestOp, OperationRequests>;
}

/** A goal of requests per resource for one operation (docs/performance.md § Requests per operation). */
export interface RequestGoalRule {
  op: RequestOp;
  /** The most requests per resource the operation may send. */
  max: number;
  /** The smallest N the goal is judged at (smaller stacks are shown, not judged). */
  fromN: number;
  /** The goal as docs/performance.md states it. */
  text: string;
}

/**
 * The goals: `up` ≤ 1.1 (one create per resource and little else), no request at all for a
 * no-change `up` and a `preview`, `refresh` and `service-drift` ≤ 0.05 from N = 100 (a read of
 * the list endpoint page by page, not one GET per resource), `destroy` ≤ 1.0.
 */
export const REQUEST_GOALS: readonly RequestGoalRule[] = [
  { op: "up", max: 1.1, fromN: 1, text: "≤ 1.1 per resource" },
  { op: "upNoChange", max: 0, fromN: 1, text: "0" },
  { op: "preview", max: 0, fromN: 1, text: "0" },
  { op: "refresh", max: 0.05, fromN: 100, text: "≤ 0.05 per resource from N = 100" },
  { op: "serviceDrift", max: 0.05, fromN: 100, text: "≤ 0.05 per resource from N = 100" },
  { op: "destroy", max: 1.0, fromN: 1, text: "≤ 1.0 per resource" },
];

/** The verdict of one goal on one cell's operation. */
export interface RequestVerdict {
  op: RequestOp;
  door: Door;
  n: number;
  /** The goal's {@link RequestGoalRule.text}. */
  goal: string;
  /** Requests per resource measured. */
  perResource: number;
  met: boolean;
}

/** The verdict of every goal ({@link REQUEST_GOALS}) on every cell whose N is at least the goal's `fromN`. */
export function requestVerdicts(cells: readonly RequestCell[]): RequestVerdict[] {
  return cells.flatMap((c) =>
    REQUEST_GOALS.filter((g) => c.n >= g.fromN).map((g) => ({
      op: g.op,
      door: c.door,
      n: c.n,
      goal: g.text,
      perResource: c.ops[g.op].perResource,
      met: c.ops[g.op].perResource <= g.max,
    })),
  );
}

/** The requests per operation of a run (`requests` of `npm run bench`'s document, and the whole of `latest-requests.json`'s). */
export interface RequestsResults {
  /** The N measured, ascending. */
  counts: number[];
  /** What the figures are divided by. */
  perResourceOf: "N + 1: the destination and the N subscriptions (not the Stack, not providers)";
  /** One cell per door and N, door by door, N ascending. */
  cells: RequestCell[];
  verdicts: RequestVerdict[];
}

/**
 * Runs `service-drift`'s report (gitops/drift.ts `runDriftReport`: a preview-only refresh that
 * runs the program, then a preview) on the stack, with the stack's folder, environment and CLI.
 * @throws Error `<what> service-drift: expected no drift over <n + 1> resources, …` when the
 *   report finds drift or checks other than the N + 1 resources; a DriftError when it fails.
 */
export async function serviceDrift(stack: Stack, n: number, what: string): Promise<void> {
  const ws = stack.workspace;
  const report = await runDriftReport({
    stack: stack.name,
    cwd: ws.workDir,
    env: ws.envVars,
    pulumiCommand: ws.pulumiCommand,
  });
  if (report.drift || report.checkedResources !== n + 1)
    throw new Error(
      `${what} service-drift: expected no drift over ${n + 1} resources, got drift ${report.drift} over ${report.checkedResources}`,
    );
}

/**
 * The results of the cells measured at `counts`: the cells sorted door by door ({@link DOORS}),
 * N ascending, and the goals' verdicts ({@link requestVerdicts}).
 */
export function requestsResults(counts: number[], cells: readonly RequestCell[]): RequestsResults {
  const sorted = [...cells].sort((a, b) => DOORS.indexOf(a.door) - DOORS.indexOf(b.door) || a.n - b.n);
  return {
    counts: [...counts].sort((a, b) => a - b),
    perResourceOf: "N + 1: the destination and the N subscriptions (not the Stack, not providers)",
    cells: sorted,
    verdicts: requestVerdicts(sorted),
  };
}

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

/**
 * The Markdown table of docs/performance.md § Requests per operation: one row per operation and
 * door, one column per N, each cell the requests per resource by kind (`1.00 (POST 1.00)`), a
 * cell that misses its goal marked **✗**.
 */
export function requestsMarkdown(r: RequestsResults): string {
  const label: Record<RequestOp, string> = {
    up: "up (from empty)",
    upNoChange: "up, no change",
    preview: "preview",
    refresh: "refresh",
    serviceDrift: "service-drift",
    destroy: "destroy",
  };
  const doorName: Record<Door, string> = { real: "dynamic", native: "native" };
  const lines = [
    `| operation | door | goal | ${r.counts.map((n) => `N = ${n.toLocaleString("en-US")}`).join(" | ")} |`,
    `|---|---|---|${r.counts.map(() => "---").join("|")}|`,
  ];
  for (const op of REQUEST_OPS) {
    const goal = REQUEST_GOALS.find((g) => g.op === op)!;
    for (const door of DOORS) {
      const cells = r.counts.map((n) => {
        const c = r.cells.find((x) => x.door === door && x.n === n);
        if (!c) return "—";
        const o = c.ops[op];
        const kinds = REQUEST_KINDS.filter((k) => o.perResourceByKind[k] > 0)
          .map((k) => `${k} ${o.perResourceByKind[k].toFixed(2)}`)
          .join(", ");
        const v = r.verdicts.find((x) => x.op === op && x.door === door && x.n === n);
        return `${o.perResource.toFixed(2)}${kinds ? ` (${kinds})` : ""}${v && !v.met ? " **✗**" : ""}`;
      });
      lines.push(`| ${label[op]} | ${doorName[door]} | ${goal.text} | ${cells.join(" | ")} |`);
    }
  }
  return lines.join("\n");
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
