// The chart of a run of the benchmark at scale (`npm run bench:scale`, `"kind": "scale"`) for
// bench/charts.mjs: one per backend, wall time against N of each operation, per program, with
// checkpoints (solid) and in fast mode (dashed), both axes logarithmic.
import { WHO_DOORS, WHO_DOORS_COLOR } from "./charts-style.mjs";

/** The Vega-Lite specs of a run of the benchmark at scale: one per backend. */
export function scaleSpecs(results) {
  const OPS = {
    up: "up",
    upNoChange: "up, no changes",
    preview: "preview",
    refresh: "refresh",
    destroy: "destroy",
  };
  const specs = {};
  for (const backend of results.backends) {
    const values = results.cells
      .filter((c) => c.backend === backend)
      .flatMap((c) =>
        Object.entries(OPS).map(([op, label]) => ({
          n: c.n,
          operation: label,
          who: WHO_DOORS[c.variant],
          mode: c.mode === "fast" ? "fast mode (skipped checkpoints)" : "checkpoints",
          seconds: c.ms[op].median / 1000,
        })),
      );
    specs[backend] = {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: `${backend} backend: wall time against N (median of ${results.runs} run(s))`,
      data: { values },
      facet: { field: "operation", type: "nominal", title: null, sort: Object.values(OPS) },
      columns: 3,
      spec: {
        width: 240,
        height: 180,
        mark: { type: "line", point: true },
        encoding: {
          x: { field: "n", type: "quantitative", title: "N (subscriptions)", scale: { type: "log" } },
          y: { field: "seconds", type: "quantitative", title: "seconds", scale: { type: "log" } },
          color: WHO_DOORS_COLOR,
          strokeDash: {
            field: "mode",
            type: "nominal",
            title: null,
            legend: { orient: "top", labelLimit: 400 },
          },
        },
      },
    };
  }
  return specs;
}
