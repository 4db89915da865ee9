/**
 * ServiceClient against the real emulator (in process, free port): every method's happy path,
 * paging, every error class from the status that raises it, fault injection, secrecy of the key.
 */
import { inspect } from "node:util";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  type APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  type EventDestinationCreate,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceClient,
  type ServiceClientOptions,
  UnsupportedMediaTypeError,
  ValidationError,
  makeAPIError,
} from "../../client";
import {
  apiRequest,
  clearRequestLog,
  getRequestLog,
  type RawResponse,
  type RunningEmulator,
  setFaults,
  startEmulator,
} from "../helpers/emulator";

const running: RunningEmulator[] = [];
const clients: ServiceClient[] = [];
/** Every error thrown by the client in this file, checked for the keys at the end. */
const thrown: unknown[] = [];

async function emulator(opts: Parameters<typeof startEmulator>[0] = {}): Promise<RunningEmulator> {
  const emu = await startEmulator(opts);
  running.push(emu);
  return emu;
}

function clientOf(emu: RunningEmulator, options: ServiceClientOptions = {}): ServiceClient {
  const c = new ServiceClient({ apiKey: emu.apiKeys[0], baseUrl: emu.url, ...options });
  clients.push(c);
  return c;
}

/** Awaits `p`, expecting it to reject; returns (and records) the error. */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    thrown.push(e);
    return e as Error;
  }
  throw new Error("expected a rejection");
}

/** An error built by the client's factory from a raw response. */
function fromRaw(method: string, path: string, res: RawResponse): APIError {
  const opId = res.headers["operation-id"];
  const err = makeAPIError({
    status: res.status,
    method,
    path,
    operationId: typeof opId === "string" ? opId : undefined,
    bodyText: res.text,
  });
  thrown.push(err);
  return err;
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(running.map((e) => e.close()));
  const keys = running.flatMap((e) => [...e.apiKeys, ...e.restrictedApiKeys, e.adminKey]);
  for (const err of thrown) {
    const e = err as Error;
    for (const s of [
      String(e),
      e.message,
      e.stack ?? "",
      JSON.stringify(e),
      inspect(e, { depth: 10, showHidden: true }),
    ]) {
      for (const key of keys) expect(s).not.toContain(key);
    }
  }
  expect(thrown.length).toBeGreaterThan(15);
});

const datadog: EventDestinationCreate = {
  target: { datadog: { apiKey: "dd-secret", ddsite: "datadoghq.eu" } },
};
const subscriptionOf = (destinationId: string, type = "ip_policy_created.v0") => ({
  sources: [{ type }],
  destinationIds: [destinationId],
});

/** An emulator, a client of its first account (with `options`), and a destination made there. */
async function withDestination(options: ServiceClientOptions = {}) {
  const emu = await emulator();
  const client = clientOf(emu, options);
  return { emu, client, destinationId: (await client.eventDestinations.create(datadog)).id };
}

describe("happy paths", () => {
  let emu: RunningEmulator;
  let client: ServiceClient;
  beforeAll(async () => {
    emu = await emulator();
    client = clientOf(emu);
  });

  test("event destinations: every target kind, get, list, update, delete", async () => {
    const role = { role: { roleArn: "arn:aws:iam::123456789012:role/r" } };
    const creds = { creds: { awsAccessKeyId: "AKIA", awsSecretAccessKey: "aws-secret" } };
    const inputs: EventDestinationCreate[] = [
      {
        target: {
          firehose: { auth: role, deliveryStreamArn: "arn:aws:firehose:us-east-1:1:deliverystream/x" },
        },
      },
      {
        target: { kinesis: { auth: creds, streamArn: "arn:aws:kinesis:us-east-1:1:stream/x" } },
        format: "json",
      },
      { target: { cloudwatchLogs: { auth: role, logGroupArn: "arn:aws:logs:us-east-1:1:log-group:x" } } },
      { ...datadog, description: "dd ✓", metadata: "€".repeat(1365) },
      {
        target: {
          azureLogsIngestion: {
            tenantId: "t",
            clientId: "c",
            clientSecret: "azure-secret",
            logsIngestionUri: "https://x.ingest.monitor.azure.com",
            dataCollectionRuleId: "dcr-1",
            dataCollectionStreamName: "Custom-x",
          },
        },
      },
    ];
    const created = [];
    for (const input of inputs) {
      const ed = await client.eventDestinations.create(input);
      expect(ed.id).toMatch(/^ed_[0-9A-Za-z]{27}$/);
      expect(ed.uri).toBe(`${emu.url}/event_destinations/${ed.id}`);
      expect(ed.format).toBe("json");
      expect(Object.keys(ed.target)).toEqual(Object.keys(input.target));
      created.push(ed);
    }
    // Secrets are write-only.
    expect(created[1].target).toEqual({
      kinesis: {
        auth: { creds: { awsAccessKeyId: "AKIA", awsSecretAccessKey: "" } },
        streamArn: "arn:aws:kinesis:us-east-1:1:stream/x",
      },
    });
    expect(created[3]).toMatchObject({ description: "dd ✓", metadata: "€".repeat(1365) });
    expect("datadog" in created[3].target && created[3].target.datadog.apiKey).toBe("");

    const got = await client.eventDestinations.get(created[0].id);
    expect(got).toEqual(created[0]);

    const listed = [];
    for await (const ed of client.eventDestinations.list()) listed.push(ed.id);
    expect(listed).toEqual(created.map((e) => e.id).reverse());

    const updated = await client.eventDestinations.update(created[3].id, { description: "" });
    expect(updated).toMatchObject({ description: "", metadata: "€".repeat(1365) });
    const retargeted = await client.eventDestinations.update(created[3].id, {
      target: { kinesis: { auth: role, streamArn: "arn:k" } },
    });
    expect(retargeted.target).toEqual({ kinesis: { auth: role, streamArn: "arn:k" } });

    for (const ed of created) await client.eventDestinations.delete(ed.id);
    expect(await failure(client.eventDestinations.get(created[0].id))).toBeInstanceOf(NotFoundError);
  });

  test("event subscriptions: create, get, list, update, delete", async () => {
    const ed1 = await client.eventDestinations.create(datadog);
    const ed2 = await client.eventDestinations.create(datadog);
    const sub = await client.eventSubscriptions.create({
      sources: [{ type: "ip_policy_created.v0" }, { type: "tunnel_credential_deleted.v0" }],
      destinationIds: [ed2.id, ed1.id],
      description: "😀".repeat(255),
      metadata: "m",
    });
    expect(sub).toMatchObject({
      uri: `${emu.url}/event_subscriptions/${sub.id}`,
      description: "😀".repeat(255),
      metadata: "m",
      sources: [
        {
          type: "ip_policy_created.v0",
          uri: `${emu.url}/event_subscriptions/${sub.id}/sources/ip_policy_created.v0`,
        },
        {
          type: "tunnel_credential_deleted.v0",
          uri: `${emu.url}/event_subscriptions/${sub.id}/sources/tunnel_credential_deleted.v0`,
        },
      ],
      destinations: [
        { id: ed2.id, uri: `${emu.url}/event_destinations/${ed2.id}` },
        { id: ed1.id, uri: `${emu.url}/event_destinations/${ed1.id}` },
      ],
    });
    expect(sub.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await client.eventSubscriptions.get(sub.id)).toEqual(sub);

    const bare = await client.eventSubscriptions.create(subscriptionOf(ed1.id));
    expect(bare).toMatchObject({ description: "", metadata: "" });

    const ids: string[] = [];
    for await (const s of client.eventSubscriptions.list({ limit: 1 })) ids.push(s.id);
    expect(ids).toEqual([bare.id, sub.id]);

    const patched = await client.eventSubscriptions.update(sub.id, { destinationIds: [ed1.id] });
    expect(patched.destinations.map((d) => d.id)).toEqual([ed1.id]);
    expect(patched.description).toBe(sub.description); // omitted fields keep their value
    expect(patched.sources).toEqual(sub.sources);

    await client.eventSubscriptions.delete(sub.id);
    await client.eventSubscriptions.delete(bare.id);
    expect(await failure(client.eventSubscriptions.get(sub.id))).toBeInstanceOf(NotFoundError);
    expect(await failure(client.eventSubscriptions.delete(sub.id))).toBeInstanceOf(NotFoundError);
  });

  test("abuse reports: create and get", async () => {
    const report = await client.abuseReports.create({
      urls: ["https://Evil.Example/a", "http://evil.example/b", "https://other.test/"],
      metadata: "€".repeat(1365),
    });
    expect(report).toMatchObject({
      uri: `${emu.url}/abuse_reports/${report.id}`,
      status: "PENDING",
      metadata: "€".repeat(1365),
      hostnames: [
        { hostname: "evil.example", status: "PENDING" },
        { hostname: "other.test", status: "PENDING" },
      ],
    });
    expect(report.id).toMatch(/^abrp_/);
    expect(await client.abuseReports.get(report.id)).toEqual(report);
  });

  test("paging across 250 items", async () => {
    const fresh = await emulator();
    const c = clientOf(fresh);
    const ed = await c.eventDestinations.create(datadog);
    const created: string[] = [];
    for (let i = 0; i < 250; i++) created.push((await c.eventSubscriptions.create(subscriptionOf(ed.id))).id);
    const newestFirst = [...created].reverse();

    const all: string[] = [];
    for await (const s of c.eventSubscriptions.list()) all.push(s.id);
    expect(all).toEqual(newestFirst);

    const sizes: number[] = [];
    const paged: string[] = [];
    for await (const page of c.eventSubscriptions.pages({ limit: 100 })) {
      sizes.push(page.items.length);
      paged.push(...page.items.map((s) => s.id));
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(paged).toEqual(newestFirst);

    await clearRequestLog(fresh.url, fresh.adminKey);
    let n = 0;
    for await (const _s of c.eventSubscriptions.list({ limit: 7 })) n++;
    expect(n).toBe(250);
    const log = await getRequestLog(fresh.url, fresh.adminKey);
    expect(log.requests).toHaveLength(36); // ceil(250 / 7)
    expect(log.requests.every((r) => r.method === "GET" && /limit=7/.test(r.path) && r.status === 200)).toBe(
      true,
    );
  });
});

describe("every error class from the status that raises it", () => {
  let emu: RunningEmulator, client: ServiceClient, destinationId: string;
  beforeAll(async () => ({ emu, client, destinationId } = await withDestination()));

  test("400: an unknown destination ID (223), and a missing Service-Version (218)", async () => {
    const unknownEd = `ed_${"0".repeat(27)}`;
    const err = (await failure(
      client.eventSubscriptions.create(subscriptionOf(unknownEd)),
    )) as BadRequestError;
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, errorCode: "ERR_SERVICE_223" });
    expect(err.operationId).toMatch(/^op_/);
    expect(err.message).toContain(err.operationId);
    expect(err.message).toContain(err.serviceMessage);

    const res = await apiRequest(emu.url, emu.apiKeys[0], "GET", "/event_subscriptions", undefined, {
      "service-version": "",
    });
    const raw = fromRaw("GET", "/event_subscriptions", res);
    expect(raw).toBeInstanceOf(BadRequestError);
    expect(raw.errorCode).toBe("ERR_SERVICE_218");
  });

  test("401: unknown key", async () => {
    const bad = clientOf(emu, { apiKey: "key_thisIsNotAKnownKeyAtAll0000" });
    const err = (await failure(bad.eventSubscriptions.get(`esb_${"0".repeat(27)}`))) as AuthenticationError;
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.errorCode).toBe("ERR_SERVICE_203");
  });

  test("403: account not authorized for abuse reports", async () => {
    const restricted = clientOf(emu, { apiKey: emu.restrictedApiKeys[0] });
    const err = (await failure(
      restricted.abuseReports.create({ urls: ["https://x.test/"] }),
    )) as PermissionDeniedError;
    expect(err).toBeInstanceOf(PermissionDeniedError);
    expect(err.errorCode).toBe("ERR_SERVICE_221");
  });

  test("404 on get, update and delete", async () => {
    const missing = `esb_${"Z".repeat(27)}`;
    for (const p of [
      client.eventSubscriptions.get(missing),
      client.eventSubscriptions.update(missing, { description: "x" }),
      client.eventSubscriptions.delete(missing),
      client.abuseReports.get(`abrp_${"Z".repeat(27)}`),
    ]) {
      const err = (await failure(p)) as NotFoundError;
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.status).toBe(404);
    }
  });

  test("409: deleting a destination still referenced", async () => {
    await client.eventSubscriptions.create(subscriptionOf(destinationId));
    const err = (await failure(client.eventDestinations.delete(destinationId))) as ConflictError;
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.status).toBe(409);
  });

  test("413: a body over 1 MiB (the client refuses it before sending; a raw request gets 413)", async () => {
    const urls = Array.from({ length: 100 }, (_, i) => `https://x.test/${i}/${"a".repeat(11_000)}`);
    const refused = await failure(client.abuseReports.create({ urls }));
    expect(refused).toBeInstanceOf(ValidationError);
    const res = await apiRequest(emu.url, emu.apiKeys[0], "POST", "/abuse_reports", { urls });
    const err = fromRaw("POST", "/abuse_reports", res);
    expect(err).toBeInstanceOf(PayloadTooLargeError);
    expect(err.status).toBe(413);
  });

  test("415: a body that is not application/json", async () => {
    const res = await apiRequest(emu.url, emu.apiKeys[0], "POST", "/event_subscriptions", "{}", {
      "content-type": "text/plain",
    });
    const err = fromRaw("POST", "/event_subscriptions", res);
    expect(err).toBeInstanceOf(UnsupportedMediaTypeError);
    expect(err.errorCode).toBe("ERR_SERVICE_210");
  });

  test("429: rate limited, with Retry-After", async () => {
    const limited = await emulator({ rateLimit: { max: 2, windowMs: 60_000 } });
    // A 429 is retried whatever maxRetries says, within the retry budget: a budget shorter than
    // the Retry-After (about 60 s here, waited at most 30 s) throws the first 429 at once.
    const c = clientOf(limited, { maxRetries: 0, retryBudgetMs: 1_000 });
    const id = `esb_${"0".repeat(27)}`;
    await failure(c.eventSubscriptions.get(id));
    await failure(c.eventSubscriptions.get(id));
    const err = (await failure(c.eventSubscriptions.get(id))) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.errorCode).toBe("ERR_SERVICE_226");
    expect(err.retryAfterSeconds).toBeGreaterThan(0);
  });

  test("5xx, connection reset and timeout", async () => {
    const faulty = await emulator();
    const c = clientOf(faulty, { maxRetries: 0, timeoutMs: 300 });
    const id = `esb_${"0".repeat(27)}`;
    await setFaults(faulty.url, faulty.adminKey, { status503: 1 });
    expect(await failure(c.eventSubscriptions.get(id))).toBeInstanceOf(InternalServerError);
    await setFaults(faulty.url, faulty.adminKey, { reset: 1 });
    expect(await failure(c.eventSubscriptions.get(id))).toBeInstanceOf(APIConnectionError);
    // The answer is held far beyond the 300 ms timeout, so that a test worker stalled by the
    // machine's load is not mistaken for a client that waited for it.
    const heldMs = 5_000;
    await setFaults(faulty.url, faulty.adminKey, { latencyMs: heldMs });
    const t0 = Date.now();
    expect(await failure(c.eventSubscriptions.get(id))).toBeInstanceOf(APIConnectionTimeoutError);
    expect(Date.now() - t0).toBeLessThan(heldMs);
    await setFaults(faulty.url, faulty.adminKey, {});
  });
});

describe("fault injection", () => {
  let emu: RunningEmulator, client: ServiceClient, destinationId: string;
  beforeAll(async () => ({ emu, client, destinationId } = await withDestination({ maxRetries: 8 })));
  afterEach(() => setFaults(emu.url, emu.adminKey, {}));

  async function countSubscriptions(): Promise<number> {
    let n = 0;
    for await (const _s of client.eventSubscriptions.list()) n++;
    return n;
  }

  /** GET, PATCH and DELETE of fresh subscriptions under the given faults; all must succeed. */
  async function idempotentOpsUnder(faults: Parameters<typeof setFaults>[2], rounds: number) {
    const subs = [];
    for (let i = 0; i < rounds; i++)
      subs.push(await client.eventSubscriptions.create(subscriptionOf(destinationId)));
    await clearRequestLog(emu.url, emu.adminKey);
    await setFaults(emu.url, emu.adminKey, faults);
    for (const [i, sub] of subs.entries()) {
      expect((await client.eventSubscriptions.get(sub.id)).id).toBe(sub.id);
      expect((await client.eventSubscriptions.update(sub.id, { description: `d${i}` })).description).toBe(
        `d${i}`,
      );
      await client.eventSubscriptions.delete(sub.id);
    }
    await setFaults(emu.url, emu.adminKey, {});
    for (const sub of subs)
      expect(await failure(client.eventSubscriptions.get(sub.id))).toBeInstanceOf(NotFoundError);
    return (await getRequestLog(emu.url, emu.adminKey)).requests;
  }

  test("GET, PATCH and DELETE succeed through resets", async () => {
    const log = await idempotentOpsUnder({ reset: 0.4, seed: 11 }, 6);
    expect(log.filter((r) => r.status === 0).length).toBeGreaterThan(2);
  });

  test("GET, PATCH and DELETE succeed through 503s", async () => {
    const log = await idempotentOpsUnder({ status503: 0.3, seed: 5 }, 3);
    expect(log.filter((r) => r.status === 503).length).toBeGreaterThan(0);
  });

  test("GET, PATCH and DELETE succeed through 429s", async () => {
    const log = await idempotentOpsUnder({ status429: 0.3, seed: 8 }, 3);
    expect(log.filter((r) => r.status === 429).length).toBeGreaterThan(0);
  });

  test("a POST through a 429 is retried once and creates exactly one resource", async () => {
    const before = await countSubscriptions();
    // A client of its own: the 429s of the tests before taught the shared client's pacer a rate,
    // which would hold this POST back until after the fault is lifted.
    const fresh = clientOf(emu, { maxRetries: 8 });
    await clearRequestLog(emu.url, emu.adminKey);
    await setFaults(emu.url, emu.adminKey, { status429: 1 });
    const creating = fresh.eventSubscriptions.create(subscriptionOf(destinationId));
    // The client waits Retry-After (1 s); lift the fault once the 429 was answered.
    const answered429 = async () =>
      (await getRequestLog(emu.url, emu.adminKey)).requests.some(
        (r) => r.method === "POST" && r.status === 429,
      );
    for (const t0 = Date.now(); !(await answered429());) {
      if (Date.now() - t0 > 10_000) throw new Error("the POST was not answered 429 within 10 s");
      await new Promise((r) => setTimeout(r, 50));
    }
    await setFaults(emu.url, emu.adminKey, {});
    const sub = await creating;
    const posts = (await getRequestLog(emu.url, emu.adminKey)).requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => r.status)).toEqual([429, 201]);
    expect(await countSubscriptions()).toBe(before + 1);
    expect((await client.eventSubscriptions.get(sub.id)).id).toBe(sub.id);
  });

  test("a POST through a reset raises APIConnectionError and creates nothing (the reset comes before the handler)", async () => {
    const before = await countSubscriptions();
    await clearRequestLog(emu.url, emu.adminKey);
    await setFaults(emu.url, emu.adminKey, { reset: 1 });
    const err = await failure(client.eventSubscriptions.create(subscriptionOf(destinationId)));
    await setFaults(emu.url, emu.adminKey, {});
    expect(err).toBeInstanceOf(APIConnectionError);
    expect((err as APIConnectionError).attempts).toBe(1);
    const posts = (await getRequestLog(emu.url, emu.adminKey)).requests.filter((r) => r.method === "POST");
    expect(posts).toHaveLength(1);
    expect(await countSubscriptions()).toBe(before);
  });

  test("POSTs under mixed faults, resets after the handler among them, never duplicate (keys honoured)", async () => {
    // A keyed client sends the POST again after a lost answer; the emulator honours the key.
    const keyed = clientOf(emu, { maxRetries: 8, idempotencyKeys: true });
    const before = await countSubscriptions();
    await clearRequestLog(emu.url, emu.adminKey);
    // `resetAfter`: the handler runs and commits, then the connection is destroyed without an
    // answer, so only the key keeps the retry from creating a second subscription.
    await setFaults(emu.url, emu.adminKey, { resetAfter: 0.3, reset: 0.1, status503: 0.1, seed: 3 });
    const created: string[] = [];
    for (let i = 0; i < 15; i++) {
      const sub = await keyed.eventSubscriptions.create({
        ...subscriptionOf(destinationId),
        description: `c${i}`,
      });
      expect(sub.description).toBe(`c${i}`);
      created.push(sub.id);
    }
    await setFaults(emu.url, emu.adminKey, {});
    // Exactly one subscription per create on the service, each the one its create returned.
    expect(new Set(created).size).toBe(15);
    const ids: string[] = [];
    for await (const sub of client.eventSubscriptions.list()) ids.push(sub.id);
    expect(ids).toHaveLength(before + 15);
    expect(ids).toEqual(expect.arrayContaining(created));
    const posts = (await getRequestLog(emu.url, emu.adminKey)).requests.filter((r) => r.method === "POST");
    // The faults did hit: some creates committed and lost their answer, and were replayed.
    const committedUnanswered = posts.filter((r) => r.fault === "reset-after" && r.status === 201);
    expect(committedUnanswered.length).toBeGreaterThanOrEqual(3);
    expect(posts.filter((r) => r.idempotent_replay && r.status === 201).length).toBeGreaterThanOrEqual(
      committedUnanswered.length,
    );
  });

  test("the retry budget ends an endless 503", async () => {
    const c = clientOf(emu, { maxRetries: 100, retryBudgetMs: 2500 });
    await clearRequestLog(emu.url, emu.adminKey);
    await setFaults(emu.url, emu.adminKey, { status503: 1 });
    const t0 = Date.now();
    const err = (await failure(c.eventSubscriptions.get(`esb_${"0".repeat(27)}`))) as InternalServerError;
    const elapsed = Date.now() - t0;
    await setFaults(emu.url, emu.adminKey, {});
    expect(err).toBeInstanceOf(InternalServerError);
    expect(elapsed).toBeLessThan(2500 + 500);
    const gets = (await getRequestLog(emu.url, emu.adminKey)).requests.filter((r) => r.method === "GET");
    expect(gets.length).toBe(err.attempts);
    expect(gets.length).toBeLessThanOrEqual(3); // Retry-After: 1 s each
  });
});
