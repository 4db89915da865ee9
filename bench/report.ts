/**
 * The results document of `npm run bench` (bench/results/latest.json): the machine, the
 * versions, the figures of the four benchmarks, and each goal as met or missed; and
 * its rendering as Markdown tables.
 *
 * @packageDocumentation
 */
import os from "node:os";
import type { Compared, DeployResults, PerResourceCost, ScaleFigures, StateResults } from "./deploy";
import type { EmulatorResults } from "./emulator";
import type { StartupResults } from "./startup";
import { round, type Summary } from "./stats";

/** One mode (sequential or concurrent) of the client benchmark (bench/client.ts). */
export interface ClientModeResult {
  /** 1 (sequential) or the concurrency. */
  concurrency: number;
  /** Wall time of the GETs through `ServiceClient`, ms. */
  clientMs: Summary;
  /** Wall time of the same GETs through a bare undici pool, ms. */
  undiciMs: Summary;
  /** client / undici, computed within each run. */
  ratio: Summary;
}

/** The client benchmark's figures (bench/client.ts), per run paired. */
export interface ClientResults {
  /** GETs per measurement. */
  requests: number;
  /** Sequential, then concurrent. */
  modes: ClientModeResult[];
}

/** The machine the figures were taken on. */
export interface MachineInfo {
  /** CPU model as the OS reports it. */
  cpuModel: string;
  /** Logical CPUs. */
  cores: number;
  /** Total memory, GiB. */
  memoryGiB: number;
  /** OS type, release and architecture. */
  os: string;
  /** 1-minute load average when the run started (other work on a shared machine shows here). */
  loadAverageAtStart: number;
}

/** Versions of what was measured. */
export interface Versions {
  /** Node.js (`process.version`). */
  node: string;
  /** The Pulumi CLI that ran the deployments (`pulumi version`). */
  pulumi: string;
  /** This package (`pulumi-service`). */
  package: string;
  /** The `@pulumi/pulumi` SDK. */
  pulumiSdk: string;
}

/** One performance goal. */
export interface Goal {
  /** Short name, e.g. `deploy-300`. */
  id: string;
  /** The goal as stated, e.g. `up of 300 within 1.3× of the floor`. */
  goal: string;
  /** The figure compared (medians), as printed. */
  figure: string;
  /** True when met, false when missed, null when this run could not measure it (e.g. quick mode). */
  met: boolean | null;
}

/** The whole document written to bench/results/latest.json. */
export interface BenchResults {
  /** Version of this document's shape. */
  schemaVersion: 1;
  /** ISO 8601 time the run started. */
  date: string;
  /** `BENCH_QUICK=1`: N=5 only, one run, short loads. */
  quick: boolean;
  /** Runs of each figure. */
  runs: number;
  /** Where the figures were taken. */
  machine: MachineInfo;
  /** What was measured. */
  versions: Versions;
  /** Benchmark 1. */
  deploy: DeployResults;
  /** Benchmark 1's fixed cost, by part (bench/startup.ts). */
  startup: StartupResults;
  /** Benchmark 2. */
  state: StateResults;
  /** Benchmark 3. */
  client: ClientResults;
  /** Benchmark 4. */
  emulator: EmulatorResults;
  /** Every performance goal, met or missed. */
  goals: Goal[];
  /** Wall time of the whole run, seconds. */
  durationSeconds: number;
}

/** The machine this process runs on. */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: round(os.loadavg()[0], 2),
  };
}

const x = (s: Summary) => `${round(s.median, 2)}×`;

function ratioGoal(id: string, what: string, c: Compared, limit: number): Goal {
  return {
    id,
    goal: `${what} within ${limit}× of the engine floor`,
    figure:
      `${x(c.ratio)} (${fmtMs(c.realMs)} vs ${fmtMs(c.floorMs)})` +
      (c.cpu ? `; CPU time ${x(c.cpu.ratio)}` : ""),
    met: c.ratio.median <= limit,
  };
}

/** Limit of the fixed-cost goals: wall and CPU time of the smallest stack against the floor. */
export const FIXED_COST_LIMIT = 1.1;

function fixedCostGoal(id: string, what: string, c: Compared): Goal {
  const goal = ratioGoal(id, what, c, FIXED_COST_LIMIT);
  return {
    ...goal,
    goal: `${what} within ${FIXED_COST_LIMIT}× of the engine floor, wall and CPU time`,
    met: c.ratio.median <= FIXED_COST_LIMIT && (c.cpu === null || c.cpu.ratio.median <= FIXED_COST_LIMIT),
  };
}

/**
 * Largest growth, from the smallest N to the largest, of what must stay constant for our cost to
 * be linear: state per resource, requests per resource, the emulator's time per request.
 */
export const SCALE_MAX_GROWTH = 1.2;
/** Largest rise of `up`'s ratio to the floor from the smallest N to the largest. */
export const SCALE_MAX_RATIO_RISE = 0.05;

/** Bytes per resource by which the provider process's peak memory grows from the first N to the last. */
function memoryPerResource(a: ScaleFigures, b: ScaleFigures, v: "floor" | "real"): number | null {
  const pa = a.peakRssBytes.provider;
  const pb = b.peakRssBytes.provider;
  return pa && pb ? (pb[v].median - pa[v].median) / (b.n - a.n) : null;
}

/**
 * The scale goal: nothing of ours grows faster than linear in N. The engine's own cost per
 * resource grows with N (its floor does too), so time is judged as the ratio to the floor.
 */
function scaleGoal(d: DeployResults): Goal {
  const a = d.scale[0];
  const b = d.scale[d.scale.length - 1];
  const growth = (f: (s: ScaleFigures) => number) => f(b) / f(a);
  const state = growth((s) => s.stateBytesPerResource.real.median);
  const requests = growth((s) => s.emulator.requests.median / (s.n + 1));
  const perRequest = growth((s) => s.emulator.msPerRequest.median);
  const ratioA = d.up[0].ratio.median;
  const ratioB = d.up[d.up.length - 1].ratio.median;
  const memFloor = memoryPerResource(a, b, "floor");
  const memReal = memoryPerResource(a, b, "real");
  const kb = (v: number | null) => (v === null ? "n/a" : `${round(v / 1024, 1)} KiB`);
  return {
    id: "linear",
    goal:
      `nothing of ours grows faster than linear in N (N = ${a.n} → ${b.n}: state per resource, requests per ` +
      `resource and the emulator's time per request within ${SCALE_MAX_GROWTH}×; up's ratio to the floor up by at most ${SCALE_MAX_RATIO_RISE})`,
    figure:
      `state per resource ${round(state, 2)}×, requests per resource ${round(requests, 2)}×, emulator time per request ` +
      `${round(perRequest, 2)}× (${round(a.emulator.msPerRequest.median, 2)} → ${round(b.emulator.msPerRequest.median, 2)} ms); ` +
      `up's ratio to the floor ${round(ratioA, 2)} → ${round(ratioB, 2)}; provider process memory per resource ` +
      `${kb(memReal)} (floor ${kb(memFloor)})`,
    met:
      state <= SCALE_MAX_GROWTH &&
      requests <= SCALE_MAX_GROWTH &&
      perRequest <= SCALE_MAX_GROWTH &&
      ratioB <= ratioA + SCALE_MAX_RATIO_RISE,
  };
}

/** Evaluates every performance goal against the figures. */
export function evaluateGoals(
  d: DeployResults,
  s: StateResults,
  c: ClientResults,
  e: EmulatorResults,
): Goal[] {
  const n = d.largest.n;
  const goals: Goal[] = [
    ratioGoal(`deploy-${n}`, `up of ${n}`, d.up[d.up.length - 1], 1.3),
    ratioGoal(`refresh-${n}`, `refresh of ${n}`, d.largest.refresh, 1.3),
    ratioGoal(`destroy-${n}`, `destroy of ${n}`, d.largest.destroy, 1.3),
    ratioGoal(`preview-${n}`, `preview (no changes) of ${n}`, d.largest.preview, 1.2),
  ];
  // The fixed cost a pipeline pays on every run: the smallest stack, wall and CPU time.
  const small = d.operations?.[0];
  if (small && small.n < n) {
    goals.push(fixedCostGoal(`fixed-up-${small.n}`, `up of ${small.n}`, d.up[0]));
    goals.push(
      fixedCostGoal(`fixed-preview-${small.n}`, `preview (no changes) of ${small.n}`, small.preview),
    );
  }
  if (d.scale && d.scale.length >= 2) {
    goals.push(scaleGoal(d));
  } else {
    goals.push({
      id: "linear",
      goal: "nothing of ours grows faster than linear in N",
      figure: "not measured (one N only)",
      met: null,
    });
  }
  const ours = s.types.filter((t) => t.type.includes("/service:"));
  const biggest = ours.reduce((a, b) => (b.providerBytes.median > a.providerBytes.median ? b : a));
  goals.push({
    id: "provider-size",
    goal: "serialized provider under 4 KB (4,096 bytes) per resource",
    figure: ours.map((t) => `${t.type.split(":").pop()} ${t.providerBytes.median} B`).join(", "),
    met: biggest.providerBytes.median < 4096,
  });
  for (const m of c.modes) {
    // Sequential: 1.10× (the per-call overhead); concurrent: at or below the bare loop.
    const limit = m.concurrency === 1 ? 1.1 : 1.0;
    goals.push({
      id: m.concurrency === 1 ? "client-sequential" : `client-concurrency-${m.concurrency}`,
      goal: `client within ${limit.toFixed(2)}× of bare undici (${m.concurrency === 1 ? "sequential" : `concurrency ${m.concurrency}`})`,
      figure: `${x(m.ratio)} (${fmtMs(m.clientMs)} vs ${fmtMs(m.undiciMs)} for ${c.requests} GETs)`,
      met: m.ratio.median <= limit,
    });
  }
  const get = e.endpoints.find((p) => p.endpoint === "get")!;
  goals.push({
    id: "emulator-get",
    goal: "emulator ≥ 5,000 GET/s with p99 < 20 ms",
    figure: `${Math.round(get.requestsPerSecond.median)} req/s, p99 ${get.p99Ms.median} ms`,
    met: get.requestsPerSecond.median >= 5000 && get.p99Ms.median < 20,
  });
  return goals;
}

function fmtMs(s: Summary): string {
  return s.median >= 1000 ? `${round(s.median / 1000, 2)} s` : `${round(s.median, 0)} ms`;
}

/** `median (min–max)` with a unit. */
function cell(s: Summary, unit: "s" | "ms" | "x" | "B" | "req/s" | "ms/res", digits = 2): string {
  const f = (v: number) => {
    switch (unit) {
      case "s":
        return round(v / 1000, digits).toFixed(digits);
      case "x":
        return round(v, 2).toFixed(2);
      case "req/s":
      case "B":
        return String(Math.round(v));
      default:
        return String(round(v, 1));
    }
  };
  const u = unit === "x" ? "×" : ` ${unit}`;
  if (s.samples.length === 1) return `${f(s.median)}${u}`;
  return `${f(s.median)}${u} (${f(s.min)}–${f(s.max)})`;
}

/** Renders the document as Markdown: header, one table per benchmark, the goals. */
export function toMarkdown(r: BenchResults): string {
  const out: string[] = [];
  const m = r.machine;
  out.push(
    `### Benchmark results${r.quick ? " (quick mode: N=5, 1 run, short loads — not for comparison)" : ""}`,
  );
  out.push("");
  out.push(`- Date: ${r.date}`);
  out.push(
    `- Machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}; load average ${m.loadAverageAtStart} at start ` +
      `(shared with other work: absolute times vary, ratios are taken within each run)`,
  );
  out.push(
    `- Versions: Node.js ${r.versions.node}, Pulumi CLI ${r.versions.pulumi} (@pulumi/pulumi ${r.versions.pulumiSdk}), ` +
      `pulumi-service ${r.versions.package}`,
  );
  out.push(
    `- Each figure: median (min–max) of ${r.runs} run${r.runs === 1 ? "" : "s"}; ratio = this package / baseline.`,
  );
  out.push("");

  const d = r.deploy;
  out.push(
    `**Deploy** — \`pulumi up\` from empty of 1 EventDestination + N EventSubscriptions, against the engine floor (same program, no-I/O dynamic provider):`,
  );
  out.push("");
  out.push("| operation | floor | pulumi-service | ratio | CPU time: floor | pulumi-service | ratio |");
  out.push("| --- | --: | --: | --: | --: | --: | --: |");
  const cpuCells = (c: Compared) =>
    c.cpu
      ? `${cell(c.cpu.floorMs, "s")} | ${cell(c.cpu.realMs, "s")} | ${cell(c.cpu.ratio, "x")}`
      : "n/a | n/a | n/a";
  const row = (label: string, c: Compared) =>
    out.push(
      `| ${label} | ${cell(c.floorMs, "s")} | ${cell(c.realMs, "s")} | ${cell(c.ratio, "x")} | ${cpuCells(c)} |`,
    );
  for (const u of d.up) row(`up, N = ${u.n}`, u);
  for (const op of ["preview", "refresh", "destroy"] as const) {
    for (const o of d.operations ?? [d.largest])
      row(`${op === "preview" ? "preview (no changes)" : op}, N = ${o.n}`, o[op]);
  }
  if (d.perResource) {
    const f = d.perResource.floor;
    const p = d.perResource.real;
    const c = d.perResource.cpu;
    const ratio = (a: PerResourceCost, b: PerResourceCost) =>
      `${round(b.msPerResource / a.msPerResource, 2).toFixed(2)}×`;
    out.push(
      `| per resource: least-squares slope of up over N | ${cell(f.slopePerRun, "ms/res")} | ${cell(p.slopePerRun, "ms/res")} | ${ratio(f, p)} | ` +
        (c
          ? `${cell(c.floor.slopePerRun, "ms/res")} | ${cell(c.real.slopePerRun, "ms/res")} | ${ratio(c.floor, c.real)} |`
          : "n/a | n/a | n/a |"),
    );
    const fit = (v: PerResourceCost) =>
      `${round(v.fixedMs / 1000, 2)} s, R² ${round(v.r2, 3)}, steps ${v.segmentSlopes.map((m) => round(m, 1)).join(" → ")} ms/res`;
    out.push(
      `| fixed cost (intercept), R², marginal cost per step of N | ${fit(f)} | ${fit(p)} | | ${c ? `${fit(c.floor)} | ${fit(c.real)} |` : "n/a | n/a |"} |`,
    );
  }
  const sb = d.largest.stateBytesPerResource;
  out.push(
    `| exported state per resource, N = ${d.largest.n} | ${cell(sb.floor, "B")} | ${cell(sb.real, "B")} | ${round(sb.real.median / sb.floor.median, 2).toFixed(2)}× | | | |`,
  );
  out.push("");

  if (d.scale) {
    out.push(
      "**Scale** — what else grows with N, during `up` from empty: state per resource, peak resident memory " +
        "of the dynamic-provider process and of the program (maxrss), requests the emulator answered and its time per request:",
    );
    out.push("");
    out.push(
      "| N | state per resource: floor | pulumi-service | provider process: floor | pulumi-service | program: floor | pulumi-service | requests | emulator ms per request |",
    );
    out.push("| --: | --: | --: | --: | --: | --: | --: | --: | --: |");
    const mib = (v: Summary) => `${round(v.median / 2 ** 20, 1)} MiB`;
    const pair = (p: { floor: Summary; real: Summary } | null) =>
      p ? `${mib(p.floor)} | ${mib(p.real)}` : "n/a | n/a";
    for (const sc of d.scale) {
      out.push(
        `| ${sc.n} | ${cell(sc.stateBytesPerResource.floor, "B")} | ${cell(sc.stateBytesPerResource.real, "B")} | ` +
          `${pair(sc.peakRssBytes.provider)} | ${pair(sc.peakRssBytes.program)} | ` +
          `${Math.round(sc.emulator.requests.median)} | ${round(sc.emulator.msPerRequest.median, 2)} ms |`,
      );
    }
    out.push("");
  }

  if (r.startup) {
    const st = r.startup;
    out.push(
      `**Fixed cost by part** — fresh Node.js processes, median (min–max) of ${st.programLoadMs.samples.length} of each kind, beside loading \`@pulumi/pulumi\`, which every program and provider process pays:`,
    );
    out.push("");
    out.push("| part | time | ratio to loading `@pulumi/pulumi` |");
    out.push("| --- | --: | --: |");
    const part = (label: string, v: Summary) =>
      out.push(
        `| ${label} | ${cell(v, "ms")} | ${round(v.median / st.pulumiLoadMs.median, 2).toFixed(2)}× |`,
      );
    part('`require("@pulumi/pulumi")` (baseline, both processes)', st.pulumiLoadMs);
    part('program: `require("pulumi-service")`', st.programLoadMs);
    part(
      "provider process, no request (preview): load, `configure`, `check`, `diff`",
      st.providerNoRequestMs,
    );
    part("provider process, first request: client (undici) and first `GET`", st.firstRequestMs);
    part("provider process, the `GET` after it", st.secondRequestMs);
    out.push("");
  }

  out.push("**State** — one resource of each type, exported state (compact JSON):");
  out.push("");
  out.push(
    "| type | state per resource | serialized provider (`__provider` output) | `__provider`, all copies |",
  );
  out.push("| --- | --: | --: | --: |");
  for (const t of r.state.types) {
    out.push(
      `| \`${t.type}\`${t.type.includes("/floor:") ? " (floor)" : ""} | ${t.stateBytes.median} B | ${t.providerBytes.median} B | ${t.providerBytesAllCopies.median} B |`,
    );
  }
  out.push("");

  out.push(
    `**Client** — ${r.client.requests} × \`GET /event_subscriptions/{id}\` against the emulator (own process):`,
  );
  out.push("");
  out.push("| mode | bare undici | ServiceClient | ratio |");
  out.push("| --- | --: | --: | --: |");
  for (const c of r.client.modes) {
    out.push(
      `| ${c.concurrency === 1 ? "sequential" : `concurrency ${c.concurrency}`} | ${cell(c.undiciMs, "ms")} | ${cell(c.clientMs, "ms")} | ${cell(c.ratio, "x")} |`,
    );
  }
  out.push("");

  const e = r.emulator;
  out.push(`**Emulator** — autocannon, ${e.connections} connections × ${e.durationSeconds} s, ${e.store}:`);
  out.push("");
  out.push("| endpoint | requests/s | p50 | p99 |");
  out.push("| --- | --: | --: | --: |");
  for (const p of e.endpoints) {
    out.push(
      `| \`${p.label}\` | ${cell(p.requestsPerSecond, "req/s")} | ${cell(p.p50Ms, "ms")} | ${cell(p.p99Ms, "ms")} |`,
    );
  }
  out.push("");

  out.push("**Goals**:");
  out.push("");
  out.push("| goal | figure | |");
  out.push("| --- | --- | --- |");
  for (const g of r.goals) {
    out.push(
      `| ${g.goal} | ${g.figure} | ${g.met === null ? "not measured" : g.met ? "met" : "**missed**"} |`,
    );
  }
  out.push("");
  return out.join("\n");
}
