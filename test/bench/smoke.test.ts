/**
 * Smoke test of `npm run bench` in its quick mode (`BENCH_QUICK=1`): N = 5 through the real
 * Pulumi engine against the floor, one short client run and one short emulator load per
 * endpoint. Checks that the results document has its full shape with positive figures; the
 * figures themselves are not judged (quick mode is not for comparison).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { benchOptions, runBench } from "../../bench/run";
import { toMarkdown, type BenchResults } from "../../bench/report";
import type { Summary } from "../../bench/stats";

const TIMEOUT = 300_000;

function expectPositive(s: Summary): void {
  expect(s.samples.length).toBeGreaterThanOrEqual(1);
  expect(s.min).toBeGreaterThan(0);
  expect(s.median).toBeGreaterThanOrEqual(s.min);
  expect(s.max).toBeGreaterThanOrEqual(s.median);
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

  it("deploys N = 5 with both programs and times preview, refresh and destroy", () => {
    const d = results.deploy;
    expect(d.counts).toEqual([5]);
    expect(d.up).toHaveLength(1);
    expect(d.up[0].n).toBe(5);
    expect(d.operations.map((o) => o.n)).toEqual([5]);
    for (const op of ["preview", "refresh", "destroy"] as const) expectPositive(d.operations[0][op].realMs);
    for (const c of [d.up[0], d.largest.preview, d.largest.refresh, d.largest.destroy]) {
      expectPositive(c.floorMs);
      expectPositive(c.realMs);
      expectPositive(c.ratio);
      // CPU time of the CLI and everything it ran, from /proc (Linux).
      if (process.platform === "linux") {
        expect(c.cpu).not.toBeNull();
        expectPositive(c.cpu!.floorMs);
        expectPositive(c.cpu!.realMs);
        expectPositive(c.cpu!.ratio);
      }
    }
    expect(d.perResource).toBeNull(); // one N: no slope
    expectPositive(d.largest.stateBytesPerResource.floor);
    expectPositive(d.largest.stateBytesPerResource.real);
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
    for (const g of results.goals) {
      expect(g.figure).not.toBe("");
      expect([true, false, null]).toContain(g.met);
    }
    expect(results.goals.find((g) => g.id === "linear")!.met).toBeNull();
    const md = toMarkdown(results);
    expect(md).toContain("| up, N = 5 |");
    expect(md).toContain("| `GET /event_subscriptions/{id}` |");
    expect(md).toContain(results.versions.pulumi);
  });
});
