/**
 * Fault injection (503, 429, 500, 502, connection reset before and after the handler, errors
 * after the handler, bodies cut mid-way, requests and answers held, latency), what the client
 * makes of each, run-time switching through the operator endpoint, and the per-account rate
 * limit.
 */
import { connect } from "node:net";
import { APIConnectionError, APIConnectionTimeoutError, APIError, ServiceClient } from "../../../client";
import {
  apiRequest,
  getRequestLog,
  rawRequest,
  setFaults,
  startEmulator,
  type FaultConfig,
  type RunningEmulator,
} from "../../helpers/emulator";
import { destinationBody, expectError, subscriptionBody } from "../../helpers/emulator-fixtures";

const KEY = "key-faults";

describe("fault injection", () => {
  let em: RunningEmulator;
  let destination: string;
  const call = (method: string, path: string, body?: unknown) => apiRequest(em.url, KEY, method, path, body);

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [KEY] });
    destination = (await call("POST", "/event_destinations", destinationBody())).json().id;
  });
  afterAll(() => em.close());
  afterEach(() => setFaults(em.url, em.adminKey, {}));

  /** Every kind of write the API has, each one valid. */
  const writes: [string, () => Promise<unknown>][] = [
    ["create subscription", () => call("POST", "/event_subscriptions", subscriptionBody([destination]))],
    ["create destination", () => call("POST", "/event_destinations", destinationBody())],
    ["create abuse report", () => call("POST", "/abuse_reports", { urls: ["https://x.example.org"] })],
    [
      "update destination",
      () => call("PATCH", `/event_destinations/${destination}`, { description: "changed" }),
    ],
  ];

  describe.each([
    ["503", { status503: 1 }, 503, 500, "1"],
    ["429", { status429: 1 }, 429, 226, "1"],
    ["500", { status500: 1 }, 500, 500, undefined],
    ["502", { status502: 1 }, 502, 500, undefined],
  ] as const)("answering %s before the handler", (_name, cfg, status, code, retryAfter) => {
    it.each(writes)("a faulted %s changes nothing (Retry-After only for 503 and 429)", async (_w, write) => {
      await setFaults(em.url, em.adminKey, cfg);
      const before = em.store.snapshot();
      const res = (await write()) as Awaited<ReturnType<typeof call>>;
      expectError(res, status, code);
      expect(res.headers["retry-after"]).toBe(retryAfter);
      await setFaults(em.url, em.adminKey, {});
      expect(em.store.snapshot()).toEqual(before);
    });
  });

  /** The subscriptions of the account now, faults off. */
  const subscriptionIds = async (): Promise<string[]> => {
    await setFaults(em.url, em.adminKey, {});
    return ((await call("GET", "/event_subscriptions")).json().event_subscriptions as { id: string }[]).map(
      (x) => x.id,
    );
  };
  /** A client of the account: no retries, `timeoutMs` per attempt, keys ignored. */
  const client = (timeoutMs = 5000) =>
    new ServiceClient({ apiKey: KEY, baseUrl: em.url, maxRetries: 0, timeoutMs, idempotencyKeys: false });
  /** What a subscription create under the faults `cfg` throws, through a fresh {@link client}. */
  const createUnder = async (cfg: FaultConfig): Promise<unknown> => {
    const c = client();
    try {
      await setFaults(em.url, em.adminKey, cfg);
      return await c.eventSubscriptions
        .create({ sources: [{ type: "ip_policy_created.v0" }], destinationIds: [destination] })
        .catch((e: unknown) => e);
    } finally {
      await c.close();
    }
  };

  describe.each([
    ["500-after", { status500After: 1 }, 500],
    ["502-after", { status502After: 1 }, 502],
    ["503-after", { status503After: 1 }, 503],
  ] as const)("%s", (fault, cfg, status) => {
    it("the create is carried out, then answered with that error (no Retry-After), and logged so", async () => {
      const before = await subscriptionIds();
      const since = (await getRequestLog(em.url, em.adminKey)).requests.at(-1)?.seq ?? 0;
      await setFaults(em.url, em.adminKey, cfg);
      const res = await call("POST", "/event_subscriptions", subscriptionBody([destination]));
      expectError(res, status, 500);
      expect(res.headers["retry-after"]).toBeUndefined();
      expect(res.headers.location).toBeUndefined();
      expect(res.json().msg).toBe(
        `the request was carried out, but its answer failed (injected fault ${fault})`,
      );
      const after = await subscriptionIds();
      expect(after.length).toBe(before.length + 1);
      const { requests } = await getRequestLog(em.url, em.adminKey, since);
      expect(requests.map((r) => [r.method, r.path, r.status, r.fault])).toEqual([
        ["POST", "/event_subscriptions", status, fault],
        ["GET", "/event_subscriptions", 200, null],
      ]);
    });

    it("the client's error says the create may have been made (maybeApplied)", async () => {
      const err = (await createUnder(cfg)) as APIError;
      expect(err).toBeInstanceOf(APIError);
      expect([err.status, err.maybeApplied]).toEqual([status, true]);
    });
  });

  /** Sends a create on a socket of its own and reads every byte until the emulator closes it. */
  const rawCreate = (body: unknown): Promise<string> =>
    new Promise((resolve, reject) => {
      const u = new URL(em.url);
      const text = JSON.stringify(body);
      const socket = connect(Number(u.port), u.hostname);
      const chunks: Buffer[] = [];
      socket.on("data", (c) => chunks.push(c));
      socket.on("error", reject);
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.write(
        `POST /event_subscriptions HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: Bearer ${KEY}\r\n` +
          `Service-Version: 2\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
      );
    });

  it("truncate: the create is carried out; its status, headers and half its body are sent, then the connection closes", async () => {
    const before = await subscriptionIds();
    await setFaults(em.url, em.adminKey, { truncate: 1 });
    const received = await rawCreate(subscriptionBody([destination]));
    const [head, body] = received.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 201 /);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1]);
    expect(length).toBeGreaterThan(100);
    expect(Buffer.byteLength(body)).toBe(Math.floor(length / 2));
    const after = await subscriptionIds();
    expect(after.length).toBe(before.length + 1);
    // The half is the start of the created subscription's body.
    const made = after.find((id) => !before.includes(id))!;
    expect(body).toMatch(/^\{"/);
    expect((await call("GET", `/event_subscriptions/${made}`)).text.startsWith(body.slice(0, 10))).toBe(true);
    const { requests } = await getRequestLog(em.url, em.adminKey);
    expect(requests.filter((r) => r.fault === "truncate").map((r) => [r.method, r.status])).toEqual([
      ["POST", 201],
    ]);
  });

  it("truncate: the client sees a lost answer (maybeApplied), not a response", async () => {
    const err = (await createUnder({ truncate: 1 })) as APIConnectionError;
    expect(err).toBeInstanceOf(APIConnectionError);
    expect([err.requestNotSent, err.maybeApplied]).toEqual([false, true]);
  });

  it.each([
    // Held 2,000 ms against the client's 150 ms timeout: far enough apart that a test worker
    // stalled by the machine's load is not mistaken for a client that waited for the answer.
    ["slow", { slow: 1, slowMs: 2_000 }],
    ["slow-after", { slowAfter: 1, slowMs: 2_000 }],
  ] as const)(
    "%s: a client that times out first sees a lost answer, and the create is carried out all the same",
    async (fault, cfg) => {
      const before = await subscriptionIds();
      const since = (await getRequestLog(em.url, em.adminKey)).requests.at(-1)?.seq ?? 0;
      const c = client(150);
      try {
        await setFaults(em.url, em.adminKey, cfg);
        const t0 = Date.now();
        const err = (await c.eventSubscriptions
          .create({ sources: [{ type: "ip_policy_created.v0" }], destinationIds: [destination] })
          .catch((e: unknown) => e)) as APIConnectionTimeoutError;
        expect(Date.now() - t0).toBeLessThan(cfg.slowMs);
        expect(err).toBeInstanceOf(APIConnectionTimeoutError);
        expect(err.maybeApplied).toBe(true);
        await setFaults(em.url, em.adminKey, {});
        // "slow" commits once held (after the client gave up); "slow-after" before the hold.
        const during = em.store.snapshot().event_subscriptions.length;
        const deadline = Date.now() + cfg.slowMs + 5_000;
        let after = await subscriptionIds();
        while (after.length === before.length && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          after = await subscriptionIds();
        }
        expect(after.length).toBe(before.length + 1);
        if (fault === "slow") expect(during).toBe(before.length);
        else expect(during).toBe(before.length + 1);
        const { requests } = await getRequestLog(em.url, em.adminKey, since);
        expect(requests.filter((r) => r.fault !== null).map((r) => [r.method, r.status, r.fault])).toEqual([
          ["POST", 201, fault],
        ]);
      } finally {
        await c.close();
      }
    },
  );

  it("slow-after: a patient client gets the answer once held", async () => {
    await setFaults(em.url, em.adminKey, { slowAfter: 1, slowMs: 300 });
    const t0 = Date.now();
    const res = await call("POST", "/event_subscriptions", subscriptionBody([destination]));
    expect(res.status).toBe(201);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it("a reset destroys the connection without a response and changes nothing", async () => {
    const listBefore = (await call("GET", "/event_subscriptions")).json();
    const before = em.store.snapshot();
    await setFaults(em.url, em.adminKey, { reset: 1 });
    for (const [, write] of writes) await expect(write()).rejects.toThrow(/socket hang up|ECONNRESET/);
    await setFaults(em.url, em.adminKey, {});
    expect(em.store.snapshot()).toEqual(before);
    expect((await call("GET", "/event_subscriptions")).json()).toEqual(listBefore);
  });

  it("logs faulted requests with their status, 0 for a reset", async () => {
    const since = (await getRequestLog(em.url, em.adminKey)).requests.at(-1)?.seq ?? 0;
    await setFaults(em.url, em.adminKey, { status503: 1 });
    await call("GET", "/event_subscriptions");
    await setFaults(em.url, em.adminKey, { status429: 1 });
    await call("GET", "/event_subscriptions");
    await setFaults(em.url, em.adminKey, { reset: 1 });
    await call("GET", "/event_subscriptions").catch(() => undefined);
    await setFaults(em.url, em.adminKey, {});
    const { requests } = await getRequestLog(em.url, em.adminKey, since);
    expect(requests.map((r) => [r.method, r.path, r.status])).toEqual([
      ["GET", "/event_subscriptions", 503],
      ["GET", "/event_subscriptions", 429],
      ["GET", "/event_subscriptions", 0],
    ]);
    expect(requests.map((r) => r.account_id)).toEqual([
      expect.stringMatching(/^acct_/),
      requests[0].account_id,
      requests[0].account_id,
    ]);
    expect(requests.map((r) => r.fault)).toEqual(["503", "429", "reset"]);
  });

  it("never applies to the operator endpoints", async () => {
    await setFaults(em.url, em.adminKey, { status503: 1 });
    const res = await rawRequest({
      method: "GET",
      url: `${em.url}/_operator/faults`,
      headers: { authorization: `Bearer ${em.adminKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status503: 1 });
  });

  it("switched off through the operator endpoint, everything works again", async () => {
    await setFaults(em.url, em.adminKey, { status503: 0.5, status429: 0.25, reset: 0.25 });
    expect(await setFaults(em.url, em.adminKey, {})).toEqual({});
    for (const [, write] of writes) {
      const res = (await write()) as Awaited<ReturnType<typeof call>>;
      expect([200, 201]).toContain(res.status);
    }
  });

  it("adds latency to every public request", async () => {
    await setFaults(em.url, em.adminKey, { latencyMs: 250 });
    const t0 = Date.now();
    const res = await call("GET", "/event_subscriptions");
    expect(res.status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(240);
  });

  it("with a seed, draws the same faults every time, and a mix of them", async () => {
    const run = async () => {
      await setFaults(em.url, em.adminKey, { status503: 0.3, status429: 0.3, seed: 42 });
      const statuses: number[] = [];
      for (let i = 0; i < 30; i++) statuses.push((await call("GET", "/event_subscriptions")).status);
      return statuses;
    };
    const first = await run();
    expect(await run()).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 503]));
  });

  it("applies faults given at start", async () => {
    const other = await startEmulator({ apiKeys: ["k-start-faults"], faults: { status503: 1 } });
    try {
      const res = await apiRequest(other.url, "k-start-faults", "GET", "/event_subscriptions");
      expectError(res, 503, 500);
    } finally {
      await other.close();
    }
  });

  it.each([
    ["a share above 1", { status503: 1.5 }, 215],
    ["shares adding up to more than 1", { status503: 0.6, status429: 0.6 }, 215],
    ["a negative latency", { latencyMs: -1 }, 215],
    ["a share that is a string", { reset: "0.1" }, 215],
    ["an unknown field", { status501: 0.1 }, 214],
  ])("PUT /_operator/faults rejects %s", async (_name, cfg, code) => {
    const res = await rawRequest({
      method: "PUT",
      url: `${em.url}/_operator/faults`,
      headers: { authorization: `Bearer ${em.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify(cfg),
    });
    expectError(res, 400, code);
    expect(em.app.emulator.getFaults()).toEqual({});
  });
});
