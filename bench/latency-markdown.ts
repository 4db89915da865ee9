/**
 * The Markdown tables of a run at a real service's latency (bench/latency.ts): each cell's
 * operations through both doors against the floor with the same latency, with the requests, 429s
 * and failures counted at the emulator, then the `--parallel` sweep.
 *
 * @packageDocumentation
 */
import type { RateLimitOptions } from "service-emulator";
import {
  LATENCY_OPS,
  type LatencyOp,
  type LatencyResults,
  type OperationSample,
  type VariantFigures,
} from "./latency-results";
import type { Summary } from "./stats";

/** The first run's sample of an operation (the tables show its request counts). */
function firstRun(f: VariantFigures, op: LatencyOp): OperationSample {
  return f.samples[0][op];
}

/** `median (min–max)` of a summary in seconds. */
function seconds(s: Summary): string {
  const v = (ms: number) => (ms / 1000).toFixed(1);
  return s.min === s.max ? `${v(s.median)} s` : `${v(s.median)} s (${v(s.min)}–${v(s.max)})`;
}

/** Failures over every run of a variant. */
function failuresOf(f: VariantFigures): number {
  return f.samples.reduce((sum, s) => sum + LATENCY_OPS.reduce((t, op) => t + s[op].failures, 0), 0);
}

/** The Markdown tables of the results: the cells, then the `--parallel` sweep. */
export function latencyMarkdown(r: LatencyResults, rateLimit: RateLimitOptions): string {
  const limit = `${rateLimit.max} requests per ${rateLimit.windowMs / 1000} s${
    rateLimit.burst === undefined ? " (rolling window)" : `, bursts of ${rateLimit.burst}`
  }`;
  const lines = [
    `**At a real service's latency**: rate limit ${limit} per account; time against the floor with the same latency (its provider sleeps one round trip per request); requests, 429s and failures counted at the emulator (first run).`,
    "",
    "| latency | N | door | op | floor | door | × floor | requests | 429 | failures |",
    "| ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const c of r.cells) {
    for (const door of ["real", "native"] as const) {
      for (const op of [...LATENCY_OPS, "total"] as const) {
        const floor = op === "total" ? c.floor.totalMs : c.floor.ms[op];
        const mine = op === "total" ? c[door].totalMs : c[door].ms[op];
        const ratio = (mine.median / floor.median).toFixed(2);
        const req =
          op === "total"
            ? LATENCY_OPS.map((o) => firstRun(c[door], o).requests!)
            : [firstRun(c[door], op).requests!];
        const sum = (k: "requests" | "limited") => req.reduce((t, q) => t + q[k], 0);
        const failures =
          op === "total" ? failuresOf(c[door]) : c[door].samples.reduce((t, s) => t + s[op].failures, 0);
        lines.push(
          `| ${c.latencyMs} ms | ${c.n} | ${door === "real" ? "dynamic" : "native"} | ${op} | ${seconds(floor)} | ${seconds(mine)} | ${ratio}× | ${sum("requests")} | ${sum("limited")} | ${failures} |`,
        );
      }
    }
  }
  if (r.parallel.length > 0) {
    lines.push(
      "",
      `**\`--parallel\` against the rate limit** (N = ${r.parallelN}, ${r.parallelLatencyMs} ms): up + refresh + destroy.`,
      "",
      "| --parallel | door | up | refresh | destroy | total | requests | 429 | failures |",
      "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    );
    for (const p of r.parallel) {
      const f = p.figures;
      const req = LATENCY_OPS.map((o) => firstRun(f, o).requests!);
      lines.push(
        `| ${p.parallel} | ${p.door === "real" ? "dynamic" : "native"} | ${seconds(f.ms.up)} | ${seconds(f.ms.refresh)} | ${seconds(f.ms.destroy)} | ${seconds(f.totalMs)} | ${req.reduce((t, q) => t + q.requests, 0)} | ${req.reduce((t, q) => t + q.limited, 0)} | ${failuresOf(f)} |`,
      );
    }
  }
  return lines.join("\n");
}
