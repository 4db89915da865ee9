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
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import * as vega from "vega";
import * as vl from "vega-lite";

const WHO = {
  floor: "engine floor (no-I/O provider)",
  real: "pulumi-service + emulator",
  native: "native plugin + emulator",
};
const COLORS = { floor: "#9aa0a6", real: "#1a73e8", native: "#e8710a" };
/** The programs as the charts of scale and latency runs name them (the doors by name). */
const WHO_DOORS = { floor: WHO.floor, real: "dynamic door + emulator", native: WHO.native };
/** The legend of {@link WHO_DOORS}, each program in its colour. */
const WHO_DOORS_COLOR = {
  field: "who",
  type: "nominal",
  title: null,
  scale: { domain: Object.values(WHO_DOORS), range: Object.keys(WHO_DOORS).map((k) => COLORS[k]) },
  legend: { orient: "top", labelLimit: 400 },
};

/** A summary in milliseconds (median, min, max) in seconds. */
const seconds = (s) => ({ median: s.median / 1000, min: s.min / 1000, max: s.max / 1000 });

/** The points of one figure: the floor's and the door's (`real`, or `native` from `deploy.native`). */
function points(compared, nativeCompared, extra) {
  const point = (who, s) => ({ ...extra, who: WHO[who], ...seconds(s) });
  const rows = [point("floor", compared.floorMs), point("real", compared.realMs)];
  if (nativeCompared) rows.push(point("native", nativeCompared.realMs));
  return rows;
}

/** The Vega-Lite specs of a run of the benchmark at scale: one per backend. */
function scaleSpecs(results) {
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

/** Names of the operations of a count of requests (`REQUEST_OPS` of bench/requests.ts). */
const REQUEST_OPS = {
  up: "up",
  upNoChange: "up, no changes",
  preview: "preview",
  refresh: "refresh",
  serviceDrift: "service-drift",
  destroy: "destroy",
};
const DOORS = { real: "dynamic door", native: "native door" };
const DOOR_COLOR = {
  field: "door",
  type: "nominal",
  title: null,
  scale: { domain: Object.values(DOORS), range: [COLORS.real, COLORS.native] },
  legend: { orient: "top" },
};

/** The Vega-Lite spec of a count of requests per operation: one panel per operation. */
function requestsSpecs(results) {
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

/** The Vega-Lite specs of a run at a real service's latency. */
function latencySpecs(results) {
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
