/** ServiceClient against a scripted local HTTP server: headers, mapping, retries, timeouts, secrecy. */
import { inspect } from "node:util";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIResponseValidationError,
  AuthenticationError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  ServiceClient,
  ValidationError,
} from "../../client";
import {
  busy,
  fakeId,
  hang,
  json,
  reset,
  serviceError,
  startScriptedServer,
  type Step,
  wireDestination,
  wireSubscription,
} from "../helpers/scripted-server";
import { scriptedClients } from "../helpers/scripted-client";
import { startProxy, type TestProxy } from "../helpers/proxy";
import { makeTestCa, startTlsEmulator, type TestCa, type TlsEmulator } from "../helpers/tls";
import { LOAD_SLACK_MS } from "../helpers/timing";

const API_KEY = "sk_test_SECRET_0123456789abcdef";
const SUB_ID = fakeId("esb_", 1);
const ED_ID = fakeId("ed_", 1);

const scripted = scriptedClients(API_KEY);
/** Starts a scripted server and a client of it, both closed after the test. */
const setup = scripted.start;

afterEach(() => scripted.close());

const ok = (base = "http://svc") => json(200, wireSubscription(base, 1));
const created = json(201, wireSubscription("http://svc", 1));
const newSub = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED_ID] };

/** Every way an error can leak a string. */
function renderings(err: unknown): string[] {
  const e = err as Error;
  return [
    String(e),
    e.message,
    e.stack ?? "",
    JSON.stringify(e),
    inspect(e, { depth: 10, showHidden: true }),
  ];
}

describe("requests", () => {
  test("headers, snake_case body, camelCase response", async () => {
    const { server, client } = await setup([created]);
    const sub = await client.eventSubscriptions.create({ ...newSub, description: "d" });
    expect(sub.createdAt).toBe("2026-11-21T09:30:00Z");
    expect(sub.destinations[0].id).toBe(ED_ID);
    const [req] = server.requests;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/event_subscriptions");
    expect(req.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(req.headers["service-version"]).toBe("2");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["user-agent"]).toMatch(/^pulumi-service-sdk\//);
    expect(req.headers["idempotency-key"]).toBeUndefined();
    expect(JSON.parse(req.body)).toEqual({
      sources: [{ type: "ip_policy_created.v0" }],
      destination_ids: [ED_ID],
      description: "d",
    });
  });

  test("GET has no Content-Type and no body; custom User-Agent", async () => {
    const { server, client } = await setup([ok()], { userAgent: "my-agent/1" });
    await client.eventSubscriptions.get(SUB_ID);
    const [req] = server.requests;
    expect(req.url).toBe(`/event_subscriptions/${SUB_ID}`);
    expect(req.headers["content-type"]).toBeUndefined();
    expect(req.headers["user-agent"]).toBe("my-agent/1");
    expect(req.body).toBe("");
  });

  test("destination create defaults format to json and maps nested keys", async () => {
    const wire = wireDestination("http://svc", 1);
    const { server, client } = await setup([json(201, wire)]);
    const ed = await client.eventDestinations.create({
      target: {
        firehose: {
          auth: { creds: { awsAccessKeyId: "AK", awsSecretAccessKey: "s3cr3t" } },
          deliveryStreamArn: "arn:x",
        },
      },
    });
    expect(ed.target).toEqual({
      firehose: {
        auth: { creds: { awsAccessKeyId: "AK", awsSecretAccessKey: "" } },
        deliveryStreamArn: "arn:x",
      },
    });
    expect(JSON.parse(server.requests[0].body)).toEqual({
      format: "json",
      target: {
        firehose: {
          auth: { creds: { aws_access_key_id: "AK", aws_secret_access_key: "s3cr3t" } },
          delivery_stream_arn: "arn:x",
        },
      },
    });
  });

  test("DELETE resolves on 204", async () => {
    const { server, client } = await setup([json(204, undefined)]);
    await expect(client.eventSubscriptions.delete(SUB_ID)).resolves.toBeUndefined();
    expect(server.requests[0].method).toBe("DELETE");
  });

  test("invalid input throws ValidationError before any request", async () => {
    const { server, client } = await setup([created]);
    const err = await client.eventSubscriptions
      .create({ sources: [], destinationIds: ["esb_nope"], description: "x".repeat(256) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.field)).toEqual([
      "description",
      "sources",
      "destinationIds[0]",
    ]);
    await expect(client.eventSubscriptions.get("ed_wrongkind")).rejects.toBeInstanceOf(ValidationError);
    expect(() => client.eventSubscriptions.list({ limit: 0 })).toThrow(ValidationError);
    expect(server.requests).toHaveLength(0);
  });
});

describe("configuration", () => {
  const saved = { key: process.env.SERVICE_API_KEY, url: process.env.SERVICE_BASE_URL };
  afterEach(() => {
    for (const [name, value] of [
      ["SERVICE_API_KEY", saved.key],
      ["SERVICE_BASE_URL", saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test("missing key and URL: the error names both variables", () => {
    delete process.env.SERVICE_API_KEY;
    delete process.env.SERVICE_BASE_URL;
    expect(() => new ServiceClient()).toThrow(/SERVICE_API_KEY.*SERVICE_BASE_URL/s);
  });

  test("reads SERVICE_API_KEY and SERVICE_BASE_URL", async () => {
    const srv = await startScriptedServer([ok()]);
    process.env.SERVICE_API_KEY = API_KEY;
    process.env.SERVICE_BASE_URL = `${srv.url}/`;
    const c = new ServiceClient();
    try {
      expect(c.baseUrl).toBe(srv.url);
      await c.eventSubscriptions.get(SUB_ID);
      expect(srv.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    } finally {
      await c.close();
      await c.close(); // idempotent
      await srv.close();
    }
  });

  test("base URL with a path prefix", async () => {
    const srv = await startScriptedServer([ok()]);
    const c = new ServiceClient({ apiKey: API_KEY, baseUrl: `${srv.url}/api/` });
    try {
      expect(c.baseUrl).toBe(`${srv.url}/api`);
      await c.eventSubscriptions.get(SUB_ID);
      expect(srv.requests[0].url).toBe(`/api/event_subscriptions/${SUB_ID}`);
    } finally {
      await c.close();
      await srv.close();
    }
  });

  test("rejects bad option values without echoing the key", () => {
    expect(() => new ServiceClient({ apiKey: API_KEY, baseUrl: "ftp://x" })).toThrow(/http or https/);
    expect(() => new ServiceClient({ apiKey: API_KEY, baseUrl: "nope" })).toThrow(/absolute URL/);
    expect(() => new ServiceClient({ apiKey: API_KEY, baseUrl: "http://x", timeoutMs: 0 })).toThrow(
      /timeoutMs/,
    );
    expect(() => new ServiceClient({ apiKey: `${API_KEY}\n`, baseUrl: "http://x" })).toThrow(/API key/);
    let thrown: unknown;
    try {
      new ServiceClient({ apiKey: `${API_KEY}\n`, baseUrl: "http://x" });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(Error);
    for (const s of renderings(thrown)) expect(s).not.toContain(API_KEY);
  });

  test("the key never shows in inspect, JSON or String of the client", async () => {
    const { client } = await setup([ok()]);
    for (const s of [
      inspect(client, { depth: 20, showHidden: true }),
      inspect(client.eventSubscriptions, { depth: 20, showHidden: true }),
      JSON.stringify(client),
      String(client),
      JSON.stringify(client.eventSubscriptions),
    ]) {
      expect(s).not.toContain(API_KEY);
    }
  });
});

describe("retries of GET, PATCH and DELETE", () => {
  test("503 then 200", async () => {
    const { server, client } = await setup([serviceError(503, 500, "busy"), ok()]);
    await expect(client.eventSubscriptions.get(SUB_ID)).resolves.toMatchObject({ id: SUB_ID });
    expect(server.requests).toHaveLength(2);
  });

  test("429 honours Retry-After", async () => {
    const { server, client } = await setup([
      serviceError(429, 226, "slow down", { "retry-after": "1" }),
      ok(),
    ]);
    const t0 = Date.now();
    await client.eventSubscriptions.update(SUB_ID, { description: "x" });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(server.requests.map((r) => r.method)).toEqual(["PATCH", "PATCH"]);
  });

  test("socket destroyed, then 200 / 204", async () => {
    const { server, client } = await setup([reset, reset, json(204, undefined)]);
    await client.eventSubscriptions.delete(SUB_ID);
    expect(server.requests).toHaveLength(3);
  });

  test("502 and 504 are retried; 500 is not", async () => {
    const { server, client } = await setup([serviceError(502, 500, "a"), serviceError(504, 500, "b"), ok()]);
    await client.eventSubscriptions.get(SUB_ID);
    expect(server.requests).toHaveLength(3);
    await server.close();
    const s2 = await setup([serviceError(500, 500, "boom"), ok()]);
    await expect(s2.client.eventSubscriptions.get(SUB_ID)).rejects.toBeInstanceOf(InternalServerError);
    expect(s2.server.requests).toHaveLength(1);
  });

  test("maxRetries bounds the attempts; attempts is reported", async () => {
    const { server, client } = await setup([serviceError(503, 500, "down")], { maxRetries: 2 });
    const err = (await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e)) as InternalServerError;
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  test("a per-call maxRetries of 0 disables retries", async () => {
    const { server, client } = await setup([serviceError(503, 500, "down"), ok()]);
    await expect(client.eventSubscriptions.get(SUB_ID, { maxRetries: 0 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(server.requests).toHaveLength(1);
  });

  test("the retry budget stops an endless 503", async () => {
    const { server, client } = await setup([serviceError(503, 500, "down")], {
      maxRetries: 1000,
      retryBudgetMs: 1500,
    });
    const t0 = Date.now();
    await expect(client.eventSubscriptions.get(SUB_ID)).rejects.toBeInstanceOf(InternalServerError);
    expect(Date.now() - t0).toBeLessThan(1500 + LOAD_SLACK_MS);
    expect(server.requests.length).toBeGreaterThan(1);
    expect(server.requests.length).toBeLessThan(100);
  });

  test("429 whose Retry-After exceeds the budget is thrown at once", async () => {
    const { server, client } = await setup([serviceError(429, 226, "later", { "retry-after": "20" }), ok()], {
      retryBudgetMs: 5000,
    });
    const t0 = Date.now();
    const err = (await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.retryAfterSeconds).toBe(20);
    // Waiting would take the 20 s of Retry-After.
    expect(Date.now() - t0).toBeLessThan(LOAD_SLACK_MS);
    expect(server.requests).toHaveLength(1);
  });
});

describe("timeouts", () => {
  test("a server that never answers → APIConnectionTimeoutError at timeoutMs", async () => {
    const { client } = await setup([hang], { timeoutMs: 300, maxRetries: 0 });
    const t0 = Date.now();
    const err = await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e);
    const elapsed = Date.now() - t0;
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((err as Error).message).toContain("300 ms");
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + LOAD_SLACK_MS);
  });

  test("timeouts are retried on GET but the whole call stays within the budget", async () => {
    const { server, client } = await setup([hang], { timeoutMs: 400, retryBudgetMs: 1000, maxRetries: 50 });
    const t0 = Date.now();
    await expect(client.eventSubscriptions.get(SUB_ID)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(Date.now() - t0).toBeLessThan(1000 + LOAD_SLACK_MS);
    expect(server.requests.length).toBeGreaterThanOrEqual(2);
  });

  test("a hung POST is not retried", async () => {
    const { server, client } = await setup([hang, created], { timeoutMs: 300 });
    await expect(client.eventSubscriptions.create(newSub)).rejects.toBeInstanceOf(APIConnectionTimeoutError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("POST retry rule", () => {
  test("reset mid-request → APIConnectionError, exactly one POST seen", async () => {
    const { server, client } = await setup([reset, created]);
    const err = await client.eventSubscriptions.create(newSub).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(err).not.toBeInstanceOf(APIConnectionTimeoutError);
    expect((err as APIConnectionError).requestNotSent).toBe(false);
    expect(server.requests.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  test("429 then 201 → retried once, one resource", async () => {
    const { server, client } = await setup([serviceError(429, 226, "slow", { "retry-after": "1" }), created]);
    await expect(client.eventSubscriptions.create(newSub)).resolves.toMatchObject({ id: SUB_ID });
    expect(server.requests).toHaveLength(2);
  });

  test("503 with Retry-After is retried; 503 without is not", async () => {
    const a = await setup([busy, created]);
    await expect(a.client.eventSubscriptions.create(newSub)).resolves.toMatchObject({ id: SUB_ID });
    expect(a.server.requests).toHaveLength(2);
    await a.client.close();
    await a.server.close();
    const b = await setup([serviceError(503, 500, "busy"), created]);
    await expect(b.client.eventSubscriptions.create(newSub)).rejects.toBeInstanceOf(InternalServerError);
    expect(b.server.requests).toHaveLength(1);
  });

  test("connection refused (request provably not sent) is retried even for POST", async () => {
    const { server } = await setup([]);
    const url = server.url;
    await server.close();
    const c = new ServiceClient({ apiKey: API_KEY, baseUrl: url, maxRetries: 2 });
    try {
      const err = (await c.eventSubscriptions.create(newSub).catch((e: unknown) => e)) as APIConnectionError;
      expect(err).toBeInstanceOf(APIConnectionError);
      expect(err.requestNotSent).toBe(true);
      expect(err.attempts).toBe(3);
    } finally {
      await c.close();
    }
  });

  test("with idempotency keys, a reset POST is retried with the same key", async () => {
    const { server, client } = await setup([reset, created], { idempotencyKeys: true });
    await expect(client.eventSubscriptions.create(newSub)).resolves.toMatchObject({ id: SUB_ID });
    const keys = server.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    await client.eventSubscriptions.create(newSub);
    expect(server.requests[2].headers["idempotency-key"]).not.toBe(keys[0]);
  });

  test("an explicit idempotencyKey per call", async () => {
    const { server, client } = await setup([reset, created]);
    await client.eventSubscriptions.create(newSub, { idempotencyKey: "k-1" });
    expect(server.requests.map((r) => r.headers["idempotency-key"])).toEqual(["k-1", "k-1"]);
  });
});

describe("responses", () => {
  test("404 is NotFoundError whatever the body", async () => {
    const htmlNotFound: Step = (_q, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>nope</h1>");
    };
    const { client } = await setup([htmlNotFound]);
    const err = (await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e)) as NotFoundError;
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.status).toBe(404);
    expect(err.body).toBe("<h1>nope</h1>");
    expect(err.errorCode).toBeUndefined();
  });

  test("error message carries the service message and operation id", async () => {
    const { client } = await setup([serviceError(401, 203, "unknown token")]);
    const err = (await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e)) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.errorCode).toBe("ERR_SERVICE_203");
    expect(err.operationId).toBe(`op_${"E".repeat(27)}`);
    expect(err.message).toContain("unknown token");
    expect(err.message).toContain(err.operationId);
  });

  test("a response of the wrong shape → APIResponseValidationError with the zod error and operation id", async () => {
    const { client } = await setup([json(200, { ...wireSubscription("http://svc"), sources: "nope" })]);
    const err = (await client.eventSubscriptions
      .get(SUB_ID)
      .catch((e: unknown) => e)) as APIResponseValidationError;
    expect(err).toBeInstanceOf(APIResponseValidationError);
    expect(err.zodError?.issues[0].path).toEqual(["sources"]);
    expect(err.operationId).toBe(`op_${"x".repeat(27)}`);
    expect(err.message).toContain(err.operationId);
  });

  test("a non-JSON success body → APIResponseValidationError", async () => {
    const text: Step = (_q, res) => res.end("hello");
    const { client } = await setup([text]);
    await expect(client.eventSubscriptions.get(SUB_ID)).rejects.toThrow(/not JSON/);
  });

  test("unknown response fields are ignored", async () => {
    const { client } = await setup([json(200, { ...wireSubscription("http://svc", 1), brand_new_field: 1 })]);
    const sub = await client.eventSubscriptions.get(SUB_ID);
    expect(sub).not.toHaveProperty("brandNewField");
  });
});

describe("paging", () => {
  test("follows next_page_uri on the client's own origin, passing limit", async () => {
    const page = (items: number[], next: string | null) =>
      json(200, {
        event_subscriptions: items.map((n) => wireSubscription("http://elsewhere", n)),
        uri: "http://elsewhere/event_subscriptions",
        next_page_uri: next,
      });
    const { server, client } = await setup([
      page([5, 4], `http://elsewhere/event_subscriptions?before_id=${fakeId("esb_", 4)}&limit=2`),
      page([3, 2], `http://elsewhere/event_subscriptions?before_id=${fakeId("esb_", 2)}&limit=2`),
      page([1], null),
    ]);
    const ids: string[] = [];
    for await (const s of client.eventSubscriptions.list({ limit: 2 })) ids.push(s.id);
    expect(ids).toEqual([5, 4, 3, 2, 1].map((n) => fakeId("esb_", n)));
    expect(server.requests.map((r) => r.url)).toEqual([
      "/event_subscriptions?limit=2",
      `/event_subscriptions?before_id=${fakeId("esb_", 4)}&limit=2`,
      `/event_subscriptions?before_id=${fakeId("esb_", 2)}&limit=2`,
    ]);
  });

  test("pages() yields {items, nextPageUri}; a repeated page URI stops the loop", async () => {
    const loop = json(200, {
      event_subscriptions: [wireSubscription("http://svc", 1)],
      uri: "http://svc/event_subscriptions",
      next_page_uri: "http://svc/event_subscriptions?before_id=x&limit=1",
    });
    const { server, client } = await setup([loop]);
    const pages: unknown[] = [];
    await expect(
      (async () => {
        for await (const p of client.eventSubscriptions.pages({ limit: 1 })) pages.push(p);
      })(),
    ).rejects.toBeInstanceOf(APIResponseValidationError);
    expect(pages).toHaveLength(2);
    expect(pages[0]).toMatchObject({ nextPageUri: "http://svc/event_subscriptions?before_id=x&limit=1" });
    expect(server.requests).toHaveLength(2);
  });
});

describe("the API key never leaks", () => {
  test("not from errors of any kind, even when the server echoes it", async () => {
    const echo: Step = (req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ error_code: "ERR_SERVICE_202", msg: `bad token ${req.headers.authorization}` }),
      );
    };
    const { client } = await setup([echo, reset, hang, json(200, { nope: API_KEY }), echo], {
      timeoutMs: 200,
      maxRetries: 0,
    });
    const errors = [
      await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e),
      await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e),
      await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e),
      await client.eventSubscriptions.get(SUB_ID).catch((e: unknown) => e),
      await client.eventSubscriptions
        .create({ ...newSub, description: "x".repeat(300) })
        .catch((e: unknown) => e),
    ];
    expect(errors.map((e) => (e as Error).name)).toEqual([
      "BadRequestError",
      "APIConnectionError",
      "APIConnectionTimeoutError",
      "APIResponseValidationError",
      "ValidationError",
    ]);
    expect((errors[0] as Error).message).toContain("[REDACTED]");
    for (const e of errors) for (const s of renderings(e)) expect(s).not.toContain(API_KEY);
  });
});

/**
 * The proxy variables, honoured by the client's own pool: a real HTTP proxy (the npm package
 * `proxy`) in front of the emulator served over TLS; the proxy reports each CONNECT it tunnels.
 */
describe("HTTPS_PROXY, HTTP_PROXY and NO_PROXY", () => {
  const PROXY_VARS = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"];
  const saved = Object.fromEntries(PROXY_VARS.map((k) => [k, process.env[k]]));
  let ca: TestCa;
  let emulator: TlsEmulator;
  let proxy: TestProxy;

  beforeAll(async () => {
    ca = makeTestCa();
    [emulator, proxy] = await Promise.all([startTlsEmulator(ca), startProxy()]);
  });
  afterAll(async () => {
    await Promise.all([emulator?.close(), proxy?.close()]);
    ca?.remove();
  });
  beforeEach(() => {
    for (const k of PROXY_VARS) delete process.env[k];
  });
  afterEach(() => {
    for (const k of PROXY_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  /** Creates a destination and reads it back over TLS with a client made now (after the env is set). */
  async function roundTrip(baseUrl: string, key: string): Promise<void> {
    const c = new ServiceClient({ apiKey: key, baseUrl, caCertificate: ca.caPem, maxRetries: 0 });
    try {
      const dest = await c.eventDestinations.create({
        target: { datadog: { apiKey: "dd-secret", ddsite: "datadoghq.eu" } },
      } as never);
      expect((await c.eventDestinations.get(dest.id)).id).toBe(dest.id);
    } finally {
      await c.close();
    }
  }

  test("HTTPS_PROXY: every request to an https service goes through the proxy's CONNECT tunnel", async () => {
    process.env.HTTPS_PROXY = proxy.url;
    const before = proxy.connects().length;
    await roundTrip(emulator.url, emulator.apiKeys[0]);
    const seen = proxy.connects().slice(before);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(new Set(seen)).toEqual(new Set([new URL(emulator.url).host]));
  });

  test("NO_PROXY naming the service's host: the proxy is bypassed", async () => {
    process.env.HTTPS_PROXY = proxy.url;
    process.env.NO_PROXY = "localhost,127.0.0.1";
    const before = proxy.connects().length;
    await roundTrip(emulator.url, emulator.apiKeys[0]);
    expect(proxy.connects().slice(before)).toEqual([]);
  });

  test("HTTP_PROXY: an http service is reached through the proxy too", async () => {
    process.env.HTTP_PROXY = proxy.url;
    const { server, client } = await setup([ok()]);
    const before = proxy.connects().length;
    await client.eventSubscriptions.get(SUB_ID);
    expect(proxy.connects().slice(before)).toEqual([new URL(server.url).host]);
    expect(server.requests).toHaveLength(1);
  });
});

test("a create input key holding undefined leaves the default in place", async () => {
  const { server, client } = await setup([json(201, wireDestination("http://svc", 1))]);
  await client.eventDestinations.create({
    target: { datadog: { apiKey: "k" } },
    format: undefined,
    description: undefined,
  });
  expect(JSON.parse(server.requests[0].body)).toEqual({
    format: "json",
    target: { datadog: { api_key: "k" } },
  });
});

test("a next_page_uri that repeats a page: the error names the page and says so", async () => {
  const loop = json(200, {
    event_subscriptions: [],
    uri: "http://svc/event_subscriptions",
    next_page_uri: "http://svc/event_subscriptions?before_id=x",
  });
  const { client } = await setup([loop]);
  const err = await (async () => {
    for await (const page of client.eventSubscriptions.pages()) void page;
  })().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(APIResponseValidationError);
  expect((err as Error).message).toBe(
    "GET /event_subscriptions?before_id=x: next_page_uri repeats a page already read (operation unknown)",
  );
});
