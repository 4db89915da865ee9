// The chart of a count of requests per operation (`node dist/bench/requests.js`) for
// bench/charts.mjs: the requests per resource of each operation against N, by door, with the goal.
import { DOORS, DOOR_COLOR } from "./charts-style.mjs";

/** Names of the operations of a count of requests (`REQUEST_OPS` of bench/request-counts.ts). */
const REQUEST_OPS = {
  up: "up",
  upNoChange: "up, no changes",
  preview: "preview",
  refresh: "refresh",
  serviceDrift: "service-drift",
  destroy: "destroy",
};

/** The Vega-Lite spec of a count of requests per operation: one panel per operation. */
export function requestsSpecs(results) {
  const goal = (op, door, n) =>
    results.verdicts?.find((v) => v.op === op && v.door === door && v.n === n)?.goal ?? "";
  const values = results.cells.flatMap((c) =>
    Object.entries(REQUEST_OPS).map(([op, label]) => ({
      n: String(c.n),
      operation: label,
      door: DOORS[c.door],
      perResource: c.ops[op].perResource,
      requests: c.ops[op].requests,
      goal: goal(op, c.door, c.n),
    })),
  );
  return {
    requests: {
      $schema: "https://vega.github.io/schema/vega-lite/v6.json",
      title: "Requests per resource of each operation against N (N + 1 service resources)",
      data: { values },
      facet: { field: "operation", type: "nominal", title: null, sort: Object.values(REQUEST_OPS) },
      columns: 3,
      spec: {
        width: 240,
        height: 170,
        encoding: {
          x: {
            field: "n",
            type: "ordinal",
            title: "N (subscriptions)",
            sort: results.counts.map(String),
            axis: { labelAngle: 0 },
          },
          xOffset: { field: "door" },
          y: { field: "perResource", type: "quantitative", title: "requests per resource" },
          color: DOOR_COLOR,
          tooltip: [{ field: "requests" }, { field: "goal" }],
        },
        layer: [
          { mark: "bar" },
          {
            mark: { type: "text", dy: -6, fontSize: 9 },
            encoding: { text: { field: "perResource", type: "quantitative", format: ".3~f" } },
          },
        ],
      },
    },
  };
}
