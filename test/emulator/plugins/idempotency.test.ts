/**
 * Idempotency keys on creates and the `reset-after` fault: replay of the first
 * response, 409 / 240 for a key reused with another request, per-account keys, 24-hour expiry,
 * the key and the resource committed together, `idempotencyKeys: false`, and a connection destroyed
 * after the handler committed.
 */
import {
  apiRequest,
  getRequestLog,
  setFaults,
  startEmulator,
  type RunningEmulator,
} from "../../helpers/emulator";
import { destinationBody, expectError, subscriptionBody } from "../../helpers/emulator-fixtures";

const KEY = "key-idem";
const OTHER = "key-idem-other";
const DAY_MS = 24 * 60 * 60 * 1000;

describe("Idempotency-Key on creates", () => {
  let em: RunningEmulator;
  let now = Date.now();
  let destination: string;
  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    key = KEY,
  ) => apiRequest(em.url, key, method, path, body, headers);
  const keyed = (path: string, body: unknown, idem: string, apiKey = KEY) =>
    call("POST", path, body, { "idempotency-key": idem }, apiKey);
  const count = (table: "event_subscriptions" | "event_destinations" | "abuse_reports") =>
    em.store.snapshot()[table].length;

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [KEY, OTHER], clock: () => now });
    destination = (await call("POST", "/event_destinations", destinationBody())).json().id;
  });
  afterAll(() => em.close());
  afterEach(async () => {
    await setFaults(em.url, em.adminKey, {});
    em.app.emulator.idempotencyKeys = true;
  });

  it.each([
    ["/event_subscriptions", () => subscriptionBody([destination], { description: "idem" })],
    ["/event_destinations", () => destinationBody({ description: "idem" })],
    ["/abuse_reports", () => ({ urls: ["https://idem.example.org/x"] })],
  ])("a repeated POST %s with the same key and body returns the first response", async (path, body) => {
    const table = path.slice(1) as "event_subscriptions";
    const before = count(table);
    const first = await keyed(path, body(), `k-same${path}`);
    const again = await keyed(path, body(), `k-same${path}`);
    expect(first.status).toBe(201);
    expect(first.headers["idempotency-key"]).toBe(`k-same${path}`);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.headers["idempotency-key"]).toBe(`k-same${path}`);
    expect(again.headers["operation-id"]).not.toBe(first.headers["operation-id"]);
    expect(count(table)).toBe(before + 1);
  });

  it("the same key with another body (or path) is 409 / 240 and creates nothing", async () => {
    await keyed("/event_subscriptions", subscriptionBody([destination], { description: "a" }), "k-other");
    const before = em.store.snapshot();
    const otherBody = await keyed(
      "/event_subscriptions",
      subscriptionBody([destination], { description: "b" }),
      "k-other",
    );
    expectError(
      otherBody,
      409,
      240,
      /^this Idempotency-Key was already used in the last 24 hours with a different request/,
    );
    const otherPath = await keyed("/event_destinations", destinationBody(), "k-other");
    expectError(otherPath, 409, 240);
    expect(em.store.snapshot()).toEqual(before);
  });

  it("keys belong to one account", async () => {
    const a = await keyed("/event_destinations", destinationBody({ description: "acct" }), "k-acct");
    const b = await keyed("/event_destinations", destinationBody({ description: "acct" }), "k-acct", OTHER);
    expect(b.status).toBe(201);
    expect(b.headers["idempotent-replayed"]).toBeUndefined();
    expect(b.json().id).not.toBe(a.json().id);
  });

  it("a failed create remembers nothing: the retry runs again", async () => {
    const missing = "ed_" + "0".repeat(26) + "1";
    const before = em.store.snapshot();
    const bad = await keyed("/event_subscriptions", subscriptionBody([missing]), "k-failed");
    expectError(bad, 400, 223);
    expect(em.store.snapshot()).toEqual(before);
    const invalid = await keyed("/event_subscriptions", { sources: [] }, "k-failed-2");
    expectError(invalid, 400, 215);
    // Same key, now a valid request: it is a first request, not a mismatch.
    const ok = await keyed("/event_subscriptions", subscriptionBody([destination]), "k-failed");
    expect(ok.status).toBe(201);
    expect(ok.headers["idempotent-replayed"]).toBeUndefined();
  });

  it("keys are forgotten after 24 hours (purged lazily)", async () => {
    const body = destinationBody({ description: "ttl" });
    const first = await keyed("/event_destinations", body, "k-ttl");
    now += DAY_MS - 1000;
    const within = await keyed("/event_destinations", body, "k-ttl");
    expect(within.json().id).toBe(first.json().id);
    now += 2000;
    const after = await keyed("/event_destinations", body, "k-ttl");
    expect(after.status).toBe(201);
    expect(after.json().id).not.toBe(first.json().id);
    expect(after.headers["idempotent-replayed"]).toBeUndefined();
    // Every key older than 24 h (of every account) went with that request.
    const keys = em.store.snapshot().idempotency_keys as { key: string; created_at_ms: number }[];
    expect(keys.every((k) => k.created_at_ms >= now - DAY_MS)).toBe(true);
    expect(keys.filter((k) => k.key === "k-ttl")).toEqual([expect.objectContaining({ created_at_ms: now })]);
  });

  it("a malformed key is 400 / 215", async () => {
    const res = await keyed("/event_destinations", destinationBody(), "x".repeat(256));
    expectError(res, 400, 215, /Idempotency-Key/);
    expect(res.headers["idempotency-key"]).toBeUndefined();
  });

  it("other methods ignore the header", async () => {
    const res = await call("GET", "/event_destinations", undefined, { "idempotency-key": "k-get" });
    expect(res.status).toBe(200);
    expect(res.headers["idempotency-key"]).toBeUndefined();
  });

  it("faulted responses echo the key too (the server honours keys)", async () => {
    await setFaults(em.url, em.adminKey, { status429: 1 });
    const res = await keyed("/event_destinations", destinationBody(), "k-429");
    expect(res.status).toBe(429);
    expect(res.headers["idempotency-key"]).toBe("k-429");
  });

  it("with idempotency off the header is ignored: no echo, a second create", async () => {
    em.app.emulator.idempotencyKeys = false;
    const body = destinationBody({ description: "off" });
    const a = await keyed("/event_destinations", body, "k-off");
    const b = await keyed("/event_destinations", body, "k-off");
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.headers["idempotency-key"]).toBeUndefined();
    expect(b.json().id).not.toBe(a.json().id);
    expect((await keyed("/event_destinations", body, "x".repeat(300))).status).toBe(201);
  });

  it("logs replays", async () => {
    const since = (await getRequestLog(em.url, em.adminKey)).requests.at(-1)?.seq ?? 0;
    const body = destinationBody({ description: "log" });
    await keyed("/event_destinations", body, "k-log");
    await keyed("/event_destinations", body, "k-log");
    const { requests } = await getRequestLog(em.url, em.adminKey, since);
    expect(requests.map((r) => [r.status, r.idempotent_replay, r.fault])).toEqual([
      [201, false, null],
      [201, true, null],
    ]);
  });
});

describe("the reset-after fault", () => {
  let em: RunningEmulator;
  const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    apiRequest(em.url, KEY, method, path, body, headers);

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [KEY] });
  });
  afterAll(() => em.close());

  it("commits the request, then destroys the connection without a response", async () => {
    await setFaults(em.url, em.adminKey, { resetAfter: 1 });
    await expect(call("POST", "/event_destinations", destinationBody())).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    await setFaults(em.url, em.adminKey, {});
    expect(em.store.snapshot().event_destinations).toHaveLength(1);
    const { requests } = await getRequestLog(em.url, em.adminKey);
    expect(requests.map((r) => [r.method, r.status, r.fault])).toEqual([["POST", 201, "reset-after"]]);
  });

  it("with a key, the retry gets the committed resource: no duplicate", async () => {
    const body = destinationBody({ description: "retried" });
    await setFaults(em.url, em.adminKey, { resetAfter: 1 });
    await expect(call("POST", "/event_destinations", body, { "idempotency-key": "k-ra" })).rejects.toThrow();
    await setFaults(em.url, em.adminKey, {});
    const retry = await call("POST", "/event_destinations", body, { "idempotency-key": "k-ra" });
    expect(retry.status).toBe(201);
    expect(retry.headers["idempotent-replayed"]).toBe("true");
    const stored = em.store.snapshot().event_destinations as { id: string; description: string }[];
    expect(stored.filter((d) => d.description === "retried").map((d) => d.id)).toEqual([retry.json().id]);
  });

  it("is settable from the command-line form and the operator endpoint", async () => {
    const cfg = await setFaults(em.url, em.adminKey, { resetAfter: 0.25, reset: 0.25 });
    expect(cfg).toEqual({ resetAfter: 0.25, reset: 0.25 });
    await setFaults(em.url, em.adminKey, {});
  });
});
