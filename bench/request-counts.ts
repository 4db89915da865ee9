/**
 * Requests per operation, as counted and judged: the operations of a stack (`REQUEST_OPS`), the
 * kinds of request (a single GET, a list GET, each other method), the requests of one operation
 * by kind divided by the N + 1 resources of the service the stack holds, the goals of
 * docs/performance.md § Requests per operation (`REQUEST_GOALS`) and their verdicts, and that
 * section's Markdown table. bench/requests.ts (alone) and bench/deploy.ts (in `npm run bench`)
 * count them on the in-process emulator.
 *
 * @packageDocumentation
 */
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
 * The kind of a request from its key in `EmulatorMeter.routes` (`<METHOD> <pattern>`, see
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

/**
 * The requests of each route answered between two readings of `EmulatorMeter.routes` of
 * bench/stacks.ts (zeros left out).
 */
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
