// The charts of a run at a real service's latency (`npm run bench:latency`, `"kind": "latency"`)
// for bench/charts.mjs: `latency`, each cell's operations against the floor with the same latency
// (median, min–max); `latency-requests`, the answers of each operation (2xx, 429 retried, other)
// per door; and, with a `--parallel` sweep, `latency-parallel`, up + refresh + destroy against
// `--parallel`.
import { DOORS, DOOR_COLOR, seconds, WHO_DOORS, WHO_DOORS_COLOR } from "./charts-style.mjs";

/** The Vega-Lite specs of a run at a real service's latency. */
export function latencySpecs(results) {
  const cellName = (c) => `${c.latencyMs} ms round trip, N = ${c.n}`;
  const ops = ["up", "refresh", "destroy"];
  const times = results.cells.flatMap((c) =>
    Object.keys(WHO_DOORS).flatMap((who) =>
      ops.map((op) => ({ cell: cellName(c), operation: op, who: WHO_DOORS[who], ...seconds(c[who].ms[op]) })),
    ),
  );
  // The answers of each run, summed over the runs and divided by them (the mean per run).
  const answers = results.cells.flatMap((c) =>
    Object.keys(DOORS).flatMap((door) =>
      ops.flatMap((op) => {
        const runs = c[door].samples.map((s) => s[op].requests).filter(Boolean);
        const mean = (k) => runs.reduce((sum, r) => sum + r[k], 0) / Math.max(1, runs.length);
        return [
          ["2xx", "ok"],
          ["429, retried", "limited"],
          ["other", "other"],
        ].map(([answer, k]) => ({
          cell: cellName(c),
          bar: `${op}, ${door === "real" ? "dynamic" : "native"}`,
          answer,
          count: mean(k),
        }));
      }),
    ),
  );
  const rate = results.settings.rateLimit;
  const limit = `${rate.max} per ${rate.windowMs / 1000} s${rate.burst ? `, bursts of ${rate.burst}` : ""}`;
  // One panel per (latency, N) cell, each with its own y scale.
  const perCell = (title, values, spec) => ({
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    data: { values },
    facet: { field: "cell", type: "nominal", title: null, sort: results.cells.map(cellName) },
    columns: 2,
    resolve: { scale: { y: "independent" } },
    spec: { width: 260, height: 180, ...spec },
  });
  const specs = {
    latency: perCell(`Wall time at a round trip's latency, rate limit ${limit} (median, min–max)`, times, {
      encoding: {
        x: { field: "operation", type: "nominal", title: null, sort: ops, axis: { labelAngle: 0 } },
        xOffset: { field: "who" },
        color: WHO_DOORS_COLOR,
      },
      layer: [
        { mark: "bar", encoding: { y: { field: "median", type: "quantitative", title: "seconds" } } },
        {
          mark: { type: "rule", color: "black" },
          encoding: { y: { field: "min", type: "quantitative" }, y2: { field: "max" } },
        },
      ],
    }),
    "latency-requests": perCell(
      `Answers per operation and door, rate limit ${limit} (mean per run)`,
      answers,
      {
        mark: "bar",
        encoding: {
          x: {
            field: "bar",
            type: "nominal",
            title: null,
            sort: ops.flatMap((op) => [`${op}, dynamic`, `${op}, native`]),
            axis: { labelAngle: -30 },
          },
          y: { field: "count", type: "quantitative", title: "answers", stack: "zero" },
          color: {
            field: "answer",
            type: "nominal",
            title: null,
            scale: { domain: ["2xx", "429, retried", "other"], range: ["#1e8e3e", "#f9ab00", "#d93025"] },
            legend: { orient: "top" },
          },
        },
      },
    ),
  };
  if (results.parallel?.length) {
    specs["latency-parallel"] = {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: `up + refresh + destroy of N = ${results.parallelN} at ${results.parallelLatencyMs} ms against --parallel (median, min–max)`,
      width: 420,
      height: 240,
      data: {
        values: results.parallel.map((p) => ({
          parallel: p.parallel,
          door: DOORS[p.door],
          ...seconds(p.figures.totalMs),
        })),
      },
      encoding: {
        x: { field: "parallel", type: "quantitative", title: "--parallel", scale: { type: "log", base: 2 } },
        color: DOOR_COLOR,
      },
      layer: [
        {
          mark: { type: "line", point: true },
          encoding: { y: { field: "median", type: "quantitative", title: "seconds" } },
        },
        { mark: "rule", encoding: { y: { field: "min", type: "quantitative" }, y2: { field: "max" } } },
      ],
    };
  }
  return specs;
}
