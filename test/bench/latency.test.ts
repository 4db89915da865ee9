/**
 * Smoke test of `npm run bench:latency` in its quick mode (`BENCH_QUICK=1`): N = 5 at 50 ms
 * through the real Pulumi engine, both doors and the floor with the same latency, against a
 * rate limit small enough that even N = 5 meets it (2 per second, bursts of 2), then the
 * `--parallel` sweep at 2. Checks exact things: no failure, every 429 retried (the successful
 * creates and deletes are exactly N + 1, and every other answer is a 429), at most 5 answers of
 * 429 a stack (the providers pace after the first ones), only the routes an
 * operation must use; the floor's latency (its provider's methods that stand for a request take
 * a round trip); and the settings' parsing and its errors.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { benchLatency, diagnostics, FLOOR_LATENCY_PRELOAD } from "../../bench/latency";
import { latencyMarkdown } from "../../bench/latency-markdown";
import type { LatencyResults } from "../../bench/latency-results";
import { latencyOptionsFromEnv } from "../../bench/latency-settings";
import { openEngine, REPO_ROOT, type Engine } from "../../bench/engine";
import { useTempDir } from "../helpers/temp-dir";

const TIMEOUT = 600_000;
const log = () => {};

describe("latencyOptionsFromEnv", () => {
  it("defaults to 50 and 150 ms at N = 100 and 1,000, 20 requests per second in bursts of 40", () => {
    expect(latencyOptionsFromEnv({}, log)).toMatchObject({
      quick: false,
      cells: [
        { latencyMs: 50, n: 100 },
        { latencyMs: 50, n: 1000 },
        { latencyMs: 150, n: 100 },
        { latencyMs: 150, n: 1000 },
      ],
      rateLimit: { max: 20, windowMs: 1000, burst: 40 },
      parallel: [1, 4, 8, 16, 32],
      parallelN: 100,
      runs: 1,
      runsLarge: 1,
      jitterMs: 0,
      fast: true,
    });
  });

  it("reads the cells, the rolling window and the sweep", () => {
    expect(
      latencyOptionsFromEnv(
        {
          BENCH_CELLS: "150:100, 150:1000",
          BENCH_RATE_LIMIT: "120/60s",
          BENCH_RATE_LIMIT_BURST: "0",
          BENCH_PARALLEL: "0",
          BENCH_CHECKPOINTS: "1",
        },
        log,
      ),
    ).toMatchObject({
      cells: [
        { latencyMs: 150, n: 100 },
        { latencyMs: 150, n: 1000 },
      ],
      rateLimit: { max: 120, windowMs: 60_000 },
      parallel: [],
      fast: false,
    });
  });

  it.each([
    [
      { BENCH_COUNTS: "100,x" },
      "BENCH_COUNTS must be whole numbers from 1 up, separated by commas, got 100,x",
    ],
    [
      { BENCH_CELLS: "150-100" },
      "BENCH_CELLS must be latency:N pairs separated by commas, e.g. 150:1000, got 150-100",
    ],
    [
      { BENCH_RATE_LIMIT: "fast" },
      "BENCH_RATE_LIMIT must be <max>/<window>, e.g. 20/1s or 120/60s, got fast",
    ],
    [{ BENCH_RUNS: "0" }, "BENCH_RUNS must be whole numbers from 1 up, separated by commas, got 0"],
  ])("refuses %j naming the variable", (env, message) => {
    expect(() => latencyOptionsFromEnv(env, log)).toThrow(message);
  });
});

describe("diagnostics", () => {
  it("keeps the engine's error lines, else the end of its output", () => {
    const progress = " -  service:index:EventSubscription subscription-1 deleting (0s)\n".repeat(50);
    expect(
      diagnostics(
        `Command failed\n${progress}Diagnostics:\n  service:index:EventSubscription (subscription-7):\n    error: DELETE /event_subscriptions/esb_1: rate limited (after 5 attempts)\n`,
      ),
    ).toBe("error: DELETE /event_subscriptions/esb_1: rate limited (after 5 attempts)");
    expect(diagnostics(`Command failed\n${progress}the end`)).toMatch(/\(0s\)\nthe end$/);
    expect(diagnostics(`Command failed\n${progress}the end`)).toHaveLength(1000);
  });
});

describe("the floor's latency (FLOOR_LATENCY_PRELOAD)", () => {
  const tempDir = useTempDir("bench-latency-preload-");

  it("makes the floor provider's create, read, update and remove take a round trip; check and diff none", () => {
    const preload = path.join(tempDir(), "preload.js");
    writeFileSync(preload, FLOOR_LATENCY_PRELOAD);
    const provider = path.join(REPO_ROOT, "bench", "fixtures", "floor", "provider.js");
    // In a process with the preload, as the engine starts the floor's provider: each method's ms.
    const script = `
      const p = require(${JSON.stringify(provider)});
      const inputs = { description: "d", sources: [{ type: "ip_policy_created.v0" }], destinationIds: [] };
      const time = async (fn) => { const t = performance.now(); await fn(); return performance.now() - t; };
      (async () => {
        const out = {};
        out.check = await time(() => p.check({}, inputs));
        out.diff = await time(() => p.diff("x", inputs, inputs));
        let id;
        out.create = await time(async () => { id = (await p.create(inputs)).id; });
        out.read = await time(() => p.read(id, inputs));
        out.update = await time(() => p.update(id, inputs, inputs));
        out.remove = await time(() => p.remove(id));
        process.stdout.write(JSON.stringify(out));
      })();`;
    const ms = JSON.parse(
      execFileSync(process.execPath, ["-e", script], {
        env: {
          ...process.env,
          NODE_OPTIONS: `--require ${preload}`,
          BENCH_FLOOR_PROVIDER: provider,
          BENCH_FLOOR_LATENCY_MS: "200",
          BENCH_FLOOR_JITTER_MS: "0",
        },
        encoding: "utf8",
      }),
    ) as Record<string, number>;
    for (const op of ["create", "read", "update", "remove"]) expect([op, ms[op] >= 198]).toEqual([op, true]);
    for (const op of ["check", "diff"]) expect([op, ms[op] < 198]).toEqual([op, true]);
  });
});

describe("npm run bench:latency (quick mode)", () => {
  let engine: Engine;
  let results: LatencyResults;
  const N = 5;

  beforeAll(async () => {
    const opts = latencyOptionsFromEnv({ BENCH_QUICK: "1" }, log);
    expect(opts).toMatchObject({
      quick: true,
      cells: [{ latencyMs: 50, n: N }],
      rateLimit: { max: 2, windowMs: 1000, burst: 2 },
      parallel: [2],
      parallelN: N,
    });
    engine = await openEngine("bench-latency-smoke");
    results = await benchLatency(engine, opts);
  }, TIMEOUT);

  afterAll(() => engine?.dispose());

  /** Every door's stacks of the run: the cell's and the sweep's. */
  const doorRuns = () => [
    ...(["real", "native"] as const).map((door) => ({ what: door, f: results.cells[0][door] })),
    ...results.parallel.map((p) => ({ what: `${p.door} --parallel ${p.parallel}`, f: p.figures })),
  ];

  it("measures the cell and the sweep", () => {
    expect(results.cells.map((c) => [c.latencyMs, c.n])).toEqual([[50, N]]);
    expect(results.parallel.map((p) => [p.parallel, p.door])).toEqual([
      [2, "real"],
      [2, "native"],
    ]);
    expect(results).toMatchObject({ parallelN: N, parallelLatencyMs: 50 });
  });

  it("has no failure: every operation of every stack succeeded, the floor's too", () => {
    const all = [...doorRuns(), { what: "floor", f: results.cells[0].floor }];
    const failed = all.flatMap(({ what, f }) =>
      f.samples.flatMap((s) =>
        Object.entries(s)
          .filter(([, o]) => o.failures !== 0 || o.error !== undefined)
          .map(([op, o]) => `${what} ${op}: ${o.error}`),
      ),
    );
    expect(failed).toEqual([]);
  });

  it("creates and deletes exactly N + 1 resources, each 429 answered by a retry", () => {
    for (const { what, f } of doorRuns()) {
      const { up, destroy } = f.samples[0];
      for (const [op, o, method] of [
        ["up", up, "POST"],
        ["destroy", destroy, "DELETE"],
      ] as const) {
        const r = o.requests!;
        // A 429 that was not retried would leave a resource without its successful request.
        expect({ what, op, ok: r.ok, other: r.other, requests: r.requests }).toEqual({
          what,
          op,
          ok: N + 1,
          other: 0,
          requests: N + 1 + r.limited,
        });
        const routes = Object.keys(r.routes).sort();
        expect(routes).toEqual([
          `${method} /event_destinations${method === "DELETE" ? "/{id}" : ""}`,
          `${method} /event_subscriptions${method === "DELETE" ? "/{id}" : ""}`,
        ]);
        expect(r.routes[routes[1]] + r.routes[routes[0]]).toBe(r.requests);
      }
    }
  });

  it("meets the rate limit: the N creates after the destination's get 429s at 2 per second", () => {
    for (const { what, f } of doorRuns()) {
      // The destination takes one of the 2 tokens; the N subscriptions are created at once.
      expect({ what, limited: f.samples[0].up.requests!.limited > 0 }).toEqual({ what, limited: true });
    }
  });

  it("paces after the first 429s: at most 5 answers of 429 in all for up, refresh and destroy of a stack", () => {
    // The providers learn the rate from the first 429s of `up` (client/pacer.ts) and keep it in
    // the account's shared budget, so refresh and destroy meet the limit without more of them.
    for (const { what, f } of doorRuns()) {
      const s = f.samples[0];
      const limited = s.up.requests!.limited + s.refresh.requests!.limited + s.destroy.requests!.limited;
      expect({ what, atMost5: limited <= 5, limited }).toEqual({ what, atMost5: true, limited });
    }
  });

  it("makes no request for the floor", () => {
    const floor = results.cells[0].floor.samples[0];
    for (const op of ["up", "refresh", "destroy"] as const) expect(floor[op].requests).toBeNull();
  });

  it("prints a row per door and operation, and one per sweep value", () => {
    const md = latencyMarkdown(results, { max: 2, windowMs: 1000, burst: 2 });
    expect(md).toContain("rate limit 2 requests per 1 s, bursts of 2 per account");
    for (const door of ["dynamic", "native"])
      for (const op of ["up", "refresh", "destroy", "total"])
        expect(md).toMatch(new RegExp(`\\| 50 ms \\| ${N} \\| ${door} \\| ${op} \\|`));
    expect(md).toMatch(/\| 2 \| dynamic \|/);
    expect(md).toMatch(/\| 2 \| native \|/);
  });
});
