/**
 * Smoke test of `npm run bench` in its quick mode (`BENCH_QUICK=1`): N = 5 through the real
 * Pulumi engine, through the dynamic door and the native door, against the floor, one short client run and one short emulator load per
 * endpoint. Checks that the results document has its full shape with positive figures, and that
 * each goal's verdict is the one its own figures imply; the figures themselves are not judged
 * (quick mode is not for comparison).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { benchOptions, runBench } from "../../bench/run";
import { toMarkdown } from "../../bench/markdown";
import type { BenchResults } from "../../bench/run-results";
import type { Compared } from "../../bench/deploy-results";
import { round, type Summary } from "../../bench/stats";
import { REQUEST_KINDS, REQUEST_OPS } from "../../bench/request-counts";

const TIMEOUT = 300_000;

function expectPositive(s: Summary): void {
  expect(s.samples.length).toBeGreaterThanOrEqual(1);
  expect(s.min).toBeGreaterThan(0);
  expect(s.median).toBeGreaterThanOrEqual(s.min);
  expect(s.max).toBeGreaterThanOrEqual(s.median);
}

/**
 * Asserts positive figures of one comparison with the floor: its real time and ratio, and its
 * floor time unless `floor` is false; on Linux the same of its CPU time (of the CLI and everything
 * it ran, from /proc).
 */
function expectCompared(c: Compared, { floor = true } = {}): void {
  const figures = (x: { floorMs: Summary; realMs: Summary; ratio: Summary }) =>
    floor ? [x.floorMs, x.realMs, x.ratio] : [x.realMs, x.ratio];
  figures(c).forEach(expectPositive);
  if (process.platform === "linux") {
    expect(c.cpu).not.toBeNull();
    figures(c.cpu!).forEach(expectPositive);
  }
}

/**
 * The verdict of every goal of a quick run, by the rule each goal states (its `goal` text, as in
 * docs/performance.md), recomputed here from the medians in the document, so that a bench that
 * mis-judges a goal fails. `linear` needs two N: quick mode has one, so it is not measured (`null`).
 */
function verdictsFromFigures(r: BenchResults): Record<string, boolean | null> {
  const d = r.deploy;
  const [sequential, concurrent] = r.client.modes;
  const get = r.emulator.endpoints.find((e) => e.endpoint === "get")!;
  const ours = r.state.types.filter((t) => t.type.includes("/service:"));
  return {
    "deploy-5": d.up[d.up.length - 1].ratio.median <= 1.3,
    "refresh-5": d.largest.refresh.ratio.median <= 1.3,
    "destroy-5": d.largest.destroy.ratio.median <= 1.3,
    "preview-5": d.largest.preview.ratio.median <= 1.2,
    linear: null,
    "provider-size": ours.every((t) => t.providerBytes.median < 4096),
    "client-sequential": sequential.ratio.median <= 1.1,
    "client-concurrency-32": concurrent.ratio.median <= 1.0,
    "emulator-get": get.requestsPerSecond.median >= 5000 && get.p99Ms.median < 20,
  };
}

describe("npm run bench (quick mode)", () => {
  let dir: string;
  let outFile: string;
  let results: BenchResults;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "bench-smoke-"));
    outFile = path.join(dir, "latest.json");
    const opts = benchOptions({ BENCH_QUICK: "1" }, { outFile, log: () => {} });
    expect(opts).toMatchObject({ quick: true, runs: 1, counts: [5] });
    results = await runBench(opts);
  }, TIMEOUT);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("draws its charts beside the document, as SVG", () => {
    for (const chart of ["deploy", "operations", "client"]) {
      const svg = readFileSync(path.join(dir, `latest-${chart}.svg`), "utf8");
      expect(svg.startsWith("<svg")).toBe(true);
      expect(svg).toMatch(/<\/svg>\s*$/);
    }
    // The deploy charts draw the native door beside the floor and the dynamic door.
    for (const chart of ["deploy", "operations"]) {
      expect(readFileSync(path.join(dir, `latest-${chart}.svg`), "utf8")).toContain("native plugin");
    }
  });

  it("writes the document it returns, with the machine, the versions and the date", () => {
    expect(JSON.parse(readFileSync(outFile, "utf8"))).toEqual(results);
    expect(results).toMatchObject({ schemaVersion: 1, quick: true, runs: 1 });
    expect(Number.isNaN(Date.parse(results.date))).toBe(false);
    expect(results.machine.cpuModel).toEqual(expect.any(String));
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.memoryGiB).toBeGreaterThan(0);
    expect(results.versions.node).toBe(process.version);
    expect(results.versions.pulumi).toMatch(/^v3\.\d+\.\d+/);
    expect(results.versions.package).toMatch(/^\d+\.\d+\.\d+/);
    expect(results.durationSeconds).toBeGreaterThan(0);
  });

  it("deploys N = 5 with the floor and the dynamic door and times preview, refresh and destroy", () => {
    const d = results.deploy;
    expect(d.counts).toEqual([5]);
    expect(d.up).toHaveLength(1);
    expect(d.up[0].n).toBe(5);
    expect(d.operations.map((o) => o.n)).toEqual([5]);
    for (const op of ["preview", "refresh", "destroy"] as const) expectPositive(d.operations[0][op].realMs);
    for (const c of [d.up[0], d.largest.preview, d.largest.refresh, d.largest.destroy]) expectCompared(c);
    expect(d.perResource).toBeNull(); // one N: no slope
    expectPositive(d.largest.stateBytesPerResource.floor);
    expectPositive(d.largest.stateBytesPerResource.real);
  });

  it("deploys N = 5 through the native door too, timed and measured against the same floor", () => {
    const d = results.deploy;
    expect(d.native.map((nd) => nd.n)).toEqual([5]);
    const [nd] = d.native;
    // The floor's samples are the very ones the dynamic door is compared with.
    expect(nd.up.floorMs).toEqual(d.up[0].floorMs);
    for (const op of ["preview", "refresh", "destroy"] as const)
      expect(nd[op].floorMs).toEqual(d.operations[0][op].floorMs);
    for (const c of [nd.up, nd.preview, nd.refresh, nd.destroy]) expectCompared(c, { floor: false });
    expect(nd.up.ratio.median).toBeCloseTo(nd.up.realMs.median / nd.up.floorMs.median, 6);
    // No serialized provider in the native door's state: smaller per resource than the dynamic door's.
    expectPositive(nd.stateBytesPerResource);
    expect(nd.stateBytesPerResource.median).toBeLessThan(d.scale[0].stateBytesPerResource.real.median);
    // The plugin's process (a Node.js process too) wrote its peak memory.
    expect(nd.peakRssBytes.provider!.median).toBeGreaterThan(20 * 2 ** 20);
    const md = toMarkdown(results);
    expect(md).toContain("| N = 5, floor |");
    expect(md).toContain("| N = 5, dynamic door |");
    expect(md).toContain(`| N = 5, native door | ${round(nd.up.realMs.median / 1000, 2).toFixed(2)} s | `);
  });

  it("measures what grows with N: state, memory of the provider and the program, the emulator's time", () => {
    const [sc] = results.deploy.scale;
    expect(sc.n).toBe(5);
    expectPositive(sc.stateBytesPerResource.floor);
    expectPositive(sc.stateBytesPerResource.real);
    // Each process of the up wrote its peak memory: a Node.js process takes tens of MiB.
    for (const p of [sc.peakRssBytes.provider, sc.peakRssBytes.program]) {
      expect(p).not.toBeNull();
      expect(p!.floor.median).toBeGreaterThan(20 * 2 ** 20);
      expect(p!.real.median).toBeGreaterThan(20 * 2 ** 20);
    }
    // At least one create per resource (1 destination + 5 subscriptions) went through the emulator.
    expect(sc.emulator.requests.median).toBeGreaterThanOrEqual(6);
    expectPositive(sc.emulator.msPerRequest);
    expect(toMarkdown(results)).toContain("| 5 | ");
  });

  it("counts the requests of every operation on both doors, per resource (N + 1 = 6) and by method", () => {
    const r = results.deploy.requests;
    expect(r.counts).toEqual([5]);
    expect(r.cells.map((c) => [c.door, c.n, c.resources])).toEqual([
      ["real", 5, 6],
      ["native", 5, 6],
    ]);
    const each = (dest: string, sub: string) => ({ [dest]: 1, [sub]: 5 });
    for (const c of r.cells) {
      expect(Object.keys(c.ops)).toEqual([...REQUEST_OPS]);
      for (const o of Object.values(c.ops)) {
        expect(Object.keys(o.perResourceByKind)).toEqual([...REQUEST_KINDS]);
        expect(o.perResource).toBe(round(o.requests / 6, 4));
      }
      // up creates each resource with one POST and sends nothing else.
      expect(c.ops.up.routes).toEqual(each("POST /event_destinations", "POST /event_subscriptions"));
      // A no-change up and a preview send no request at all.
      expect(c.ops.upNoChange.requests).toBe(0);
      expect(c.ops.preview.requests).toBe(0);
      // A refresh, and service-drift's preview-only refresh, read the 5 subscriptions with one
      // page of the list endpoint (provider/impl/reads/listReads.ts: from 4 reads of a kind) and the
      // one destination with a GET.
      const reads = { "GET /event_destinations/{id}": 1, "GET /event_subscriptions": 1 };
      expect(c.ops.refresh.routes).toEqual(reads);
      expect(c.ops.serviceDrift.routes).toEqual(reads);
      expect(c.ops.refresh.perResourceByKind).toMatchObject({ GET: round(1 / 6, 4), LIST: round(1 / 6, 4) });
      expect(c.ops.destroy.routes).toEqual(
        each("DELETE /event_destinations/{id}", "DELETE /event_subscriptions/{id}"),
      );
    }
    // At N = 5 the refresh and drift goals (from N = 100) are not judged; the others are met.
    expect(r.verdicts.map((v) => [v.door, v.op, v.met])).toEqual(
      ["real", "native"].flatMap((door) =>
        ["up", "upNoChange", "preview", "destroy"].map((op) => [door, op, true]),
      ),
    );
    expect(toMarkdown(results)).toContain(
      "| refresh | native | ≤ 0.05 per resource from N = 100 | 0.33 (GET 0.17, LIST 0.17) |",
    );
  });

  it("times the fixed cost by part in fresh processes", () => {
    const st = results.startup;
    // 3 processes of each kind (program, provider); both load @pulumi/pulumi.
    expect(st.pulumiLoadMs.samples).toHaveLength(6);
    for (const v of [st.programLoadMs, st.providerNoRequestMs, st.firstRequestMs, st.secondRequestMs]) {
      expect(v.samples).toHaveLength(3);
    }
    for (const v of Object.values(st)) expectPositive(v);
    expect(toMarkdown(results)).toContain('| program: `require("pulumi-service")` |');
  });

  it("measures the state and the serialized provider of every type", () => {
    expect(results.state.types.map((t) => t.type)).toEqual([
      "pulumi-nodejs:dynamic/service:EventDestination",
      "pulumi-nodejs:dynamic/service:EventSubscription",
      "pulumi-nodejs:dynamic/service:AbuseReport",
      "pulumi-nodejs:dynamic/floor:EventSubscription",
    ]);
    for (const t of results.state.types) {
      expectPositive(t.providerBytes);
      expect(t.stateBytes.median).toBeGreaterThan(t.providerBytes.median);
      expect(t.providerBytesAllCopies.median).toBeGreaterThanOrEqual(t.providerBytes.median);
    }
  });

  it("compares the client with bare undici, sequential and at concurrency 32", () => {
    expect(results.client.requests).toBeGreaterThan(0);
    expect(results.client.modes.map((m) => m.concurrency)).toEqual([1, 32]);
    for (const m of results.client.modes) {
      expectPositive(m.clientMs);
      expectPositive(m.undiciMs);
      expectPositive(m.ratio);
    }
  });

  it("loads the emulator's GET, POST and list endpoints", () => {
    expect(results.emulator.connections).toBe(32);
    expect(results.emulator.endpoints.map((e) => e.endpoint)).toEqual(["get", "post", "list"]);
    for (const e of results.emulator.endpoints) {
      expectPositive(e.requestsPerSecond);
      expect(e.p50Ms.median).toBeGreaterThanOrEqual(0);
      expect(e.p99Ms.median).toBeGreaterThanOrEqual(e.p50Ms.median);
    }
  });

  it("judges every goal and renders the tables", () => {
    expect(results.goals.map((g) => g.id)).toEqual([
      "deploy-5",
      "refresh-5",
      "destroy-5",
      "preview-5",
      "linear",
      "provider-size",
      "client-sequential",
      "client-concurrency-32",
      "emulator-get",
    ]);
    for (const g of results.goals) expect(g.figure).not.toBe("");
    const verdicts = Object.fromEntries(results.goals.map((g) => [g.id, g.met]));
    expect(verdicts).toEqual(verdictsFromFigures(results));
    // Each ratio goal prints the median it judged.
    const ratioOf = {
      "deploy-5": results.deploy.up[results.deploy.up.length - 1].ratio,
      "refresh-5": results.deploy.largest.refresh.ratio,
      "destroy-5": results.deploy.largest.destroy.ratio,
      "preview-5": results.deploy.largest.preview.ratio,
      "client-sequential": results.client.modes[0].ratio,
      "client-concurrency-32": results.client.modes[1].ratio,
    };
    for (const [id, ratio] of Object.entries(ratioOf)) {
      const figure = results.goals.find((g) => g.id === id)!.figure;
      expect({ id, figure: figure.split(" ")[0] }).toEqual({ id, figure: `${round(ratio.median, 2)}×` });
    }
    const md = toMarkdown(results);
    expect(md).toContain("| up, N = 5 |");
    expect(md).toContain("| `GET /event_subscriptions/{id}` |");
    expect(md).toContain(results.versions.pulumi);
  });
});
