/**
 * The operator's routes (packages/emulator/routes/operator.ts) at their edges: fault shares that
 * add up to more than 1 are refused and the faults in force kept; `since` and `limit` of
 * `GET /_operator/requests` checked, a page of one, and the last page exactly full.
 * docs/service-api.md § What the emulator adds.
 */
import { operatorRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { expectError, requestLogEntry } from "../../helpers/emulator-fixtures";

let em: RunningEmulator;
const send = (method: string, path: string, body?: unknown) =>
  operatorRequest(em.url, em.adminKey, method, `/_operator${path}`, body);

beforeAll(async () => {
  em = await startEmulator();
});
afterAll(() => em.close());

describe("PUT /_operator/faults", () => {
  it("refuses shares that add up to more than 1 with 215 naming the sum, and keeps the faults in force", async () => {
    const set = await send("PUT", "/faults", { status429: 0.25 });
    expect(set.status).toBe(200);
    const before = (await send("GET", "/faults")).json();
    expectError(await send("PUT", "/faults", { status503: 0.6, status429: 0.6 }), 400, 215, /add up to 1\.2/);
    expect((await send("GET", "/faults")).json()).toEqual(before);
    expect(before.status429).toBe(0.25);
  });
});

describe("GET /_operator/requests", () => {
  const logged = (n: number) => {
    em.store.clearRequests();
    for (let i = 0; i < n; i++) {
      em.store.logRequest(requestLogEntry(`/r/${i}`));
    }
    return em.store.requests().map((e) => e.seq);
  };

  it.each([["abc"], ["-1"], ["1.5"], ["a1"], ["1a"], ["1234567890123456"]])(
    "refuses since=%s with 215 naming the parameter and the value",
    async (since) => {
      expectError(
        await send("GET", `/requests?since=${since}`),
        400,
        215,
        `since: must be a non-negative integer, got ${JSON.stringify(since)}`,
      );
    },
  );

  it("answers the entries after since (up to 15 digits), and none after the last", async () => {
    const seqs = logged(3);
    const after = (await send("GET", `/requests?since=${seqs[0]}`)).json();
    expect(after.requests.map((r: { path: string }) => r.path)).toEqual(["/r/1", "/r/2"]);
    const none = (await send("GET", "/requests?since=123456789012345")).json();
    expect(none).toEqual({ requests: [], next_page_uri: null });
  });

  it("answers a page of one with limit=1, linking the next", async () => {
    const seqs = logged(2);
    const page = (await send("GET", "/requests?limit=1")).json();
    expect(page.requests.map((r: { path: string }) => r.path)).toEqual(["/r/0"]);
    expect(page.next_page_uri).toBe(`${em.url}/_operator/requests?since=${seqs[0]}&limit=1`);
  });

  it("ends with next_page_uri null when the last page is exactly full", async () => {
    logged(4);
    const first = (await send("GET", "/requests?limit=2")).json();
    expect(first.next_page_uri).not.toBeNull();
    const last = (
      await send(
        "GET",
        new URL(first.next_page_uri).pathname.slice("/_operator".length) +
          new URL(first.next_page_uri).search,
      )
    ).json();
    expect(last.requests.map((r: { path: string }) => r.path)).toEqual(["/r/2", "/r/3"]);
    expect(last.next_page_uri).toBeNull();
  });
});

describe("PUT /_operator/faults, rules across fields", () => {
  it.each([
    [
      { slow: 0.1 },
      "slowMs: required when slow or slowAfter is set (how long a held request is held, in ms)",
    ],
    [
      { slowAfter: 0.1 },
      "slowMs: required when slow or slowAfter is set (how long a held request is held, in ms)",
    ],
    [
      { latencyMs: 5, latencyJitterMs: 10 },
      "latencyJitterMs: must be at most latencyMs (5), the round trip it varies",
    ],
  ])("refuses %j with 215 naming the rule, and keeps the faults in force", async (body, message) => {
    expect((await send("PUT", "/faults", { status503: 0.125 })).status).toBe(200);
    expectError(await send("PUT", "/faults", body), 400, 215, message);
    expect((await send("GET", "/faults")).json()).toEqual({ status503: 0.125 });
  });
});
