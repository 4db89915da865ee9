#!/usr/bin/env node
// `node bench/charts.mjs <results.json> [outDir]`: SVG charts of a benchmark run, drawn by
// Vega-Lite and rendered headless by Vega (no browser, no canvas), written next to the results
// (or to outDir) as `<name>-<chart>.svg`. Run by `npm run bench` after it writes its JSON; an
// ES module because Vega ships only as one.
//
// - `deploy`: wall time against N of up, preview, refresh and destroy, floor, pulumi-service's
//   dynamic providers and its native plugin (median, min–max band);
// - `operations`: up, preview, refresh and destroy of the largest N, the same three;
// - `client`: each run's time for 2,000 GETs, bare undici and ServiceClient, sequential and at
//   concurrency 32;
// - for a run of the benchmark at scale (`npm run bench:scale`, `"kind": "scale"`), one chart per
//   backend (`file`, `postgres`): wall time against N of each operation, per program, with
//   checkpoints (solid) and in fast mode (dashed), both axes logarithmic;
// - for a run of the deploy benchmark alone (`BENCH_ONLY=deploy`, `"kind": "deploy"`): `deploy`
//   and `operations` as above;
// - for a count of requests per operation (`node dist/bench/requests.js`, `"kind": "requests"`):
//   `requests`, the requests per resource of each operation against N, by door, with the goal;
// - for a run at a real service's latency (`npm run bench:latency`, `"kind": "latency"`):
//   `latency`, each cell's operations against the floor with the same latency (median, min–max),
//   `latency-requests`, the answers of each operation (2xx, 429 retried, other) per door, and, with
//   a `--parallel` sweep, `latency-parallel`, up + refresh + destroy against `--parallel`.
//
// The charts of the whole bench and of the deploy benchmark alone are drawn here; those of the
// other kinds by bench/charts-scale.mjs, bench/charts-requests.mjs and bench/charts-latency.mjs,
// in the look of bench/charts-style.mjs.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";
import { latencySpecs } from "./charts-latency.mjs";
import { requestsSpecs } from "./charts-requests.mjs";
import { scaleSpecs } from "./charts-scale.mjs";
import { COLORS, seconds, WHO } from "./charts-style.mjs";

/** The points of one figure: the floor's and the door's (`real`, or `native` from `deploy.native`). */
function points(compared, nativeCompared, extra) {
  const point = (who, s) => ({ ...extra, who: WHO[who], ...seconds(s) });
  const rows = [point("floor", compared.floorMs), point("real", compared.realMs)];
  if (nativeCompared) rows.push(point("native", nativeCompared.realMs));
  return rows;
}

/** The Vega-Lite specs of one results document. */
export function chartSpecs(results) {
  if (results.kind === "scale") return scaleSpecs(results);
  if (results.kind === "requests") return requestsSpecs(results);
  if (results.kind === "latency") return latencySpecs(results);
  const base = { $schema: "https://vega.github.io/schema/vega-lite/v6.json", width: 420, height: 260 };
  // Every operation against N: up from `deploy.up`, the others from `deploy.operations` (runs
  // made before it existed have only the largest N's, under `deploy.largest`).
  const byN = results.deploy.operations ?? [{ n: results.deploy.largest.n, ...results.deploy.largest }];
  const series = [
    ...results.deploy.up.map((row) => ({ n: row.n, operation: "up", compared: row })),
    ...byN.flatMap((row) =>
      ["preview", "refresh", "destroy"].map((op) => ({ n: row.n, operation: op, compared: row[op] })),
    ),
  ];
  // The native door's figures of the same N and operation, in runs that measured it.
  const native = (n, op) => results.deploy.native?.find((row) => row.n === n)?.[op];
  const up = series.flatMap(({ n, operation, compared }) =>
    points(compared, native(n, operation), { n, operation }),
  );
  const largest = results.deploy.largest;
  const operations = ["up", "preview", "refresh", "destroy"].flatMap((op) => {
    const compared = op === "up" ? results.deploy.up.find((r) => r.n === largest.n) : largest[op];
    return points(compared, native(largest.n, op), { operation: op });
  });
  const client = (results.client?.modes ?? []).flatMap((m) =>
    [
      ["bare undici", m.undiciMs.samples],
      ["ServiceClient", m.clientMs.samples],
    ].flatMap(([who, samples]) =>
      samples.map((ms) => ({
        mode: m.concurrency === 1 ? "sequential" : `concurrency ${m.concurrency}`,
        who,
        ms,
      })),
    ),
  );
  // Only the programs the run measured (runs before the native door have two).
  const shown = Object.keys(WHO).filter((k) => up.some((row) => row.who === WHO[k]));
  const color = {
    field: "who",
    type: "nominal",
    title: null,
    scale: { domain: shown.map((k) => WHO[k]), range: shown.map((k) => COLORS[k]) },
    legend: { orient: "top", labelLimit: 400 },
  };
  const specs = {
    deploy: {
      $schema: base.$schema,
      title: `Wall time against N, per operation (median, min–max of ${results.runs} runs)`,
      data: { values: up },
      facet: {
        field: "operation",
        type: "nominal",
        title: null,
        sort: ["up", "preview", "refresh", "destroy"],
      },
      columns: 2,
      resolve: { scale: { y: "independent" } },
      spec: {
        width: 300,
        height: 200,
        layer: [
          {
            mark: { type: "area", opacity: 0.2 },
            encoding: {
              x: { field: "n", type: "quantitative", title: "N (resources)" },
              y: { field: "min", type: "quantitative", title: "seconds" },
              y2: { field: "max" },
              color,
            },
          },
          {
            mark: { type: "line", point: true },
            encoding: {
              x: { field: "n", type: "quantitative" },
              y: { field: "median", type: "quantitative" },
              color,
            },
          },
        ],
      },
    },
    operations: {
      ...base,
      title: `Each operation of the ${largest.n}-resource stack (median, min–max)`,
      data: { values: operations },
      encoding: {
        x: {
          field: "operation",
          type: "nominal",
          title: null,
          sort: ["up", "preview", "refresh", "destroy"],
        },
        xOffset: { field: "who" },
        color,
      },
      layer: [
        { mark: "bar", encoding: { y: { field: "median", type: "quantitative", title: "seconds" } } },
        {
          mark: { type: "rule", color: "black" },
          encoding: { y: { field: "min", type: "quantitative" }, y2: { field: "max" } },
        },
      ],
    },
  };
  // A run of the deploy benchmark alone (`"kind": "deploy"`) has no client section.
  if (!results.client) return specs;
  return {
    ...specs,
    client: {
      ...base,
      title: `${results.client.requests} GETs: each run's wall time, bare undici and ServiceClient`,
      data: { values: client },
      mark: { type: "point", filled: true, size: 60 },
      encoding: {
        row: { field: "mode", type: "nominal", title: null },
        y: { field: "who", type: "nominal", title: null },
        x: { field: "ms", type: "quantitative", title: "milliseconds", scale: { zero: true } },
        color: { field: "who", type: "nominal", legend: null, scale: { range: ["#9aa0a6", "#1a73e8"] } },
      },
      height: 60,
    },
  };
}

/** Renders one Vega-Lite spec to SVG text. */
export async function renderSvg(spec) {
  const view = new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" });
  return view.toSVG();
}

/** Writes every chart of `resultsFile` to `outDir`; returns the files written. */
export async function writeCharts(resultsFile, outDir = path.dirname(resultsFile)) {
  const results = JSON.parse(readFileSync(resultsFile, "utf8"));
  mkdirSync(outDir, { recursive: true });
  const stem = path.basename(resultsFile, ".json");
  const written = [];
  for (const [name, spec] of Object.entries(chartSpecs(results))) {
    const file = path.join(outDir, `${stem}-${name}.svg`);
    writeFileSync(file, await renderSvg(spec));
    written.push(file);
  }
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [resultsFile, outDir] = process.argv.slice(2);
  if (!resultsFile) {
    process.stderr.write("usage: node bench/charts.mjs <results.json> [outDir]\n");
    process.exit(2);
  }
  writeCharts(path.resolve(resultsFile), outDir && path.resolve(outDir)).then(
    (files) => process.stdout.write(`${files.join("\n")}\n`),
    (err) => {
      process.stderr.write(`${err.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
