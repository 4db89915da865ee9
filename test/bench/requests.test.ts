/**
 * Requests per operation (bench/request-counts.ts): the kind of each route, the requests between two
 * readings of the meter, the figures per resource, the goals' verdicts and the Markdown table of
 * docs/performance.md. The counts through the real engine are checked by the smoke test
 * (test/bench/smoke.test.ts).
 */
import {
  operationRequests,
  REQUEST_KINDS,
  REQUEST_OPS,
  requestKind,
  requestsMarkdown,
  requestsResults,
  requestVerdicts,
  routesSince,
  type Door,
  type RequestCell,
} from "../../bench/request-counts";

describe("requestKind", () => {
  it.each([
    ["GET /event_subscriptions/{id}", "GET"],
    ["GET /event_subscriptions", "LIST"],
    ["GET /event_subscriptions/{id}/sources/{type}", "GET"],
    ["POST /event_subscriptions", "POST"],
    ["PATCH /event_destinations/{id}", "PATCH"],
    ["DELETE /event_destinations/{id}", "DELETE"],
    ["PUT /event_destinations/{id}", "other"],
    ["GET (no route)", "other"],
  ])("%s is %s", (key, kind) => {
    expect(requestKind(key)).toBe(kind);
  });
});

describe("routesSince", () => {
  it("keeps the routes that grew, by how much, and new routes", () => {
    expect(
      routesSince({ "GET /a/{id}": 3, "POST /a": 2 }, { "GET /a/{id}": 7, "POST /a": 2, "GET /a": 1 }),
    ).toEqual({ "GET /a/{id}": 4, "GET /a": 1 });
  });
});

describe("operationRequests", () => {
  it("divides by the resources, by kind, every kind present", () => {
    const o = operationRequests({ "GET /event_subscriptions/{id}": 100, "GET /event_subscriptions": 1 }, 101);
    expect(o).toEqual({
      requests: 101,
      perResource: 1,
      perResourceByKind: { GET: 0.9901, LIST: 0.0099, POST: 0, PATCH: 0, DELETE: 0, other: 0 },
      routes: { "GET /event_subscriptions/{id}": 100, "GET /event_subscriptions": 1 },
    });
  });

  it("counts no request as 0 per resource", () => {
    expect(operationRequests({}, 11)).toMatchObject({ requests: 0, perResource: 0 });
  });

  it.each([0, 1.5])("throws on %p resources", (resources) => {
    expect(() => operationRequests({}, resources)).toThrow(
      `resources must be a positive integer, got ${resources}`,
    );
  });
});

/** A cell of `door` at `n` where every operation sends `perResource(op)` requests of one kind per resource. */
function cell(door: Door, n: number, refreshGets: number): RequestCell {
  const r = n + 1;
  const routes = {
    up: { "POST /event_subscriptions": r },
    upNoChange: {},
    preview: {},
    refresh: { "GET /event_subscriptions/{id}": refreshGets },
    serviceDrift: { "GET /event_subscriptions": 1 },
    destroy: { "DELETE /event_subscriptions/{id}": r },
  };
  return {
    door,
    n,
    resources: r,
    ops: Object.fromEntries(
      REQUEST_OPS.map((op) => [op, operationRequests(routes[op], r)]),
    ) as RequestCell["ops"],
  };
}

describe("requestVerdicts", () => {
  it("judges refresh and service-drift from N = 100 only, the others at every N", () => {
    const v = requestVerdicts([cell("real", 10, 11), cell("real", 100, 101), cell("native", 1000, 10)]);
    expect(v.filter((x) => x.n === 10).map((x) => x.op)).toEqual(["up", "upNoChange", "preview", "destroy"]);
    expect(v.filter((x) => x.op === "refresh").map((x) => [x.door, x.n, x.perResource, x.met])).toEqual([
      ["real", 100, 1, false],
      ["native", 1000, 0.01, true],
    ]);
    expect(v.filter((x) => x.op === "serviceDrift").every((x) => x.met)).toBe(true);
    expect(
      v.filter((x) => x.op === "up" || x.op === "destroy").every((x) => x.met && x.perResource === 1),
    ).toBe(true);
  });

  it("misses a no-change up that sends one request", () => {
    const c = cell("real", 10, 11);
    c.ops.upNoChange = operationRequests({ "GET /event_subscriptions/{id}": 1 }, 11);
    expect(requestVerdicts([c]).find((x) => x.op === "upNoChange")).toMatchObject({
      perResource: 0.0909,
      met: false,
    });
  });
});

describe("requestsResults and requestsMarkdown", () => {
  it("sorts the cells door by door, N ascending, and marks the figures that miss their goal", () => {
    const r = requestsResults(
      [100, 10],
      [cell("native", 10, 11), cell("real", 100, 101), cell("real", 10, 11)],
    );
    expect(r.counts).toEqual([10, 100]);
    expect(r.cells.map((c) => [c.door, c.n])).toEqual([
      ["real", 10],
      ["real", 100],
      ["native", 10],
    ]);
    const md = requestsMarkdown(r).split("\n");
    expect(md[0]).toBe("| operation | door | goal | N = 10 | N = 100 |");
    expect(md).toHaveLength(2 + REQUEST_OPS.length * 2);
    expect(md).toContain(
      "| refresh | dynamic | ≤ 0.05 per resource from N = 100 | 1.00 (GET 1.00) | 1.00 (GET 1.00) **✗** |",
    );
    expect(md).toContain("| refresh | native | ≤ 0.05 per resource from N = 100 | 1.00 (GET 1.00) | — |");
    expect(md).toContain("| up, no change | dynamic | 0 | 0.00 | 0.00 |");
    expect(md).toContain("| destroy | native | ≤ 1.0 per resource | 1.00 (DELETE 1.00) | — |");
    expect(REQUEST_KINDS).toEqual(["GET", "LIST", "POST", "PATCH", "DELETE", "other"]);
  });
});
