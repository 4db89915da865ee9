/**
 * bench/charts.mjs through `writeCharts` (bench/report.ts): the charts of each kind of results
 * document, drawn from the committed runs in bench/results/ copied to a temporary folder. Checks
 * the files each kind gets and that each chart shows the figures of its document.
 */
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../../bench/engine";
import { writeCharts } from "../../bench/report";

const RESULTS = path.join(REPO_ROOT, "bench", "results");
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "bench-charts-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Copies the committed results file `name` to the temporary folder and draws its charts there. */
function chartsOf(name: string): Record<string, string> {
  const file = path.join(dir, name);
  copyFileSync(path.join(RESULTS, name), file);
  const written = writeCharts(file);
  const stem = name.replace(/\.json$/, "");
  expect(written.map((f) => path.basename(f)).sort()).toEqual(
    readdirSync(dir)
      .filter((f) => f.startsWith(`${stem}-`) && f.endsWith(".svg"))
      .sort(),
  );
  return Object.fromEntries(
    written.map((f) => [path.basename(f, ".svg").slice(stem.length + 1), readFileSync(f, "utf8")]),
  );
}

describe("writeCharts", () => {
  it("draws a count of requests as one chart with each operation's requests per resource", () => {
    const charts = chartsOf("2026-11-26-requests.json");
    expect(Object.keys(charts)).toEqual(["requests"]);
    const svg = charts.requests;
    expect(svg.startsWith("<svg")).toBe(true);
    for (const panel of ["up, no changes", "refresh", "service-drift", "destroy"])
      expect(svg).toContain(panel);
    // The labels on the bars: refresh of 1,000 through the dynamic door made 0.019 per resource.
    const doc = JSON.parse(readFileSync(path.join(RESULTS, "2026-11-26-requests.json"), "utf8"));
    const refresh = doc.cells.find((c: { door: string; n: number }) => c.door === "real" && c.n === 1000).ops
      .refresh.perResource;
    expect(refresh).toBe(0.019);
    expect(svg).toContain(">0.019<");
  });

  it("draws a run at latency as time against the floor, the answers by status and the --parallel sweep", () => {
    const charts = chartsOf("2026-11-26-latency.json");
    expect(Object.keys(charts).sort()).toEqual(["latency", "latency-parallel", "latency-requests"]);
    expect(charts.latency).toContain("rate limit 20 per 1 s, bursts of 40");
    for (const cell of ["50 ms round trip, N = 100", "150 ms round trip, N = 1000"])
      expect(charts.latency).toContain(cell);
    expect(charts.latency).toContain("engine floor (no-I/O provider)");
    expect(charts["latency-requests"]).toContain("429, retried");
    expect(charts["latency-requests"]).toContain("destroy, native");
    expect(charts["latency-parallel"]).toContain("N = 100 at 150 ms against --parallel");
  });

  it("leaves out the sweep's chart for a run without one", () => {
    expect(Object.keys(chartsOf("2026-11-26-latency-jitter-n1000.json")).sort()).toEqual([
      "latency",
      "latency-requests",
    ]);
  });

  it("draws the deploy benchmark alone without the client's chart, and the whole bench with it", () => {
    expect(Object.keys(chartsOf("2026-11-26-fast.json")).sort()).toEqual(["deploy", "operations"]);
    expect(Object.keys(chartsOf("2026-11-23-doors.json")).sort()).toEqual(["client", "deploy", "operations"]);
  });

  it("throws with the script's error for a document it cannot draw", () => {
    const file = path.join(dir, "broken.json");
    copyFileSync(path.join(REPO_ROOT, "package.json"), file);
    expect(() => writeCharts(file)).toThrow(/bench\/charts\.mjs failed \(1\): .*TypeError/s);
  });
});
