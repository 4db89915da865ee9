/**
 * client/transport.ts on its own: one operation sent by a `Transport` to a scripted server, or to a
 * dispatcher that fails the way undici does. What its errors say (the response's shape, a body too
 * large, a connection that failed or timed out, a certificate refused), what the request log and
 * the pacer are told of each attempt, and the paths of `next_page_uri` below a base path.
 */
import { Agent, type Dispatcher } from "undici";
import { z } from "zod";
import { MAX_BODY_BYTES } from "service-contract";
import {
  APICertificateError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIResponseValidationError,
  NotFoundError,
  ValidationError,
} from "../../client";
import { withDeadline } from "../../client/deadline";
import { Idempotency } from "../../client/idempotency";
import type { RequestLogEntry } from "../../client/log";
import type { PacedAnswer, Pacer } from "../../client/pacer";
import { DEFAULT_RETRY_POLICY } from "../../client/retry";
import { Transport, type TransportConfig } from "../../client/transport";
import { json, startScriptedServer, type ScriptedServer, type Step } from "../helpers/scripted-server";

const API_KEY = "sk_transport_test_SECRET_key";

let server: ScriptedServer | undefined;
const agent = new Agent();
afterEach(async () => {
  await server?.close();
  server = undefined;
  jest.restoreAllMocks();
});
afterAll(() => agent.close());

/** A transport of a scripted server answering with `steps`, no retries, and `config` on top. */
async function scripted(steps: Step[], config: Partial<TransportConfig> = {}): Promise<Transport> {
  server = await startScriptedServer(steps);
  return transportOf(server.url, agent, config);
}

function transportOf(
  origin: string,
  dispatcher: Dispatcher,
  config: Partial<TransportConfig> = {},
): Transport {
  return new Transport({
    apiKey: API_KEY,
    origin,
    basePath: "",
    timeoutMs: 5_000,
    policy: { ...DEFAULT_RETRY_POLICY, maxRetries: 0 },
    userAgent: "transport-test/1",
    dispatcher,
    idempotency: new Idempotency(false),
    ...config,
  });
}

/** A dispatcher whose every exchange fails with `err`, as undici reports a failed request. */
function failingWith(err: unknown): Dispatcher {
  return {
    dispatch(_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
      setImmediate(() => handler.onResponseError?.({} as Dispatcher.DispatchController, err as Error));
      return true;
    },
  } as unknown as Dispatcher;
}

/** An undici-like error: `message` and `code`. */
function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected the call to fail");
}

const GET = { method: "GET" as const, path: "/things/1" };

describe("a response that does not match the schema", () => {
  const shape = z.object({
    a: z.string(),
    b: z.string(),
    c: z.string(),
    d: z.string(),
    e: z.string(),
    f: z.string(),
  });

  test("names the first five fields that do not match, then how many more", async () => {
    const t = await scripted([json(200, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 })]);
    const err = await rejection(t.call({ ...GET, schema: shape.extend({ g: z.string() }) }));
    expect(err).toBeInstanceOf(APIResponseValidationError);
    expect(err.message).toBe(
      "GET /things/1: response does not match the expected shape: " +
        "a: Invalid input: expected string, received number; b: Invalid input: expected string, received number; " +
        "c: Invalid input: expected string, received number; d: Invalid input: expected string, received number; " +
        "e: Invalid input: expected string, received number; and 2 more (operation op_xxxxxxxxxxxxxxxxxxxxxxxxxxx)",
    );
  });

  test("five fields: all named, no count; a nested field by its path; the root as (root)", async () => {
    const t = await scripted([json(200, { a: 1, b: 2, c: 3, d: 4, e: { x: 5 }, f: "6" })]);
    const nested = shape.extend({ e: z.object({ x: z.string() }) });
    const five = await rejection(t.call({ ...GET, schema: nested }));
    expect(five.message).toBe(
      "GET /things/1: response does not match the expected shape: " +
        "a: Invalid input: expected string, received number; b: Invalid input: expected string, received number; " +
        "c: Invalid input: expected string, received number; d: Invalid input: expected string, received number; " +
        "e.x: Invalid input: expected string, received number (operation op_xxxxxxxxxxxxxxxxxxxxxxxxxxx)",
    );
    const six = await rejection(t.call({ ...GET, schema: nested.extend({ f: z.number() }) }));
    expect(six.message).toMatch(
      /e\.x: Invalid input: expected string, received number; and 1 more \(operation op_x+\)$/,
    );
    const root = await rejection(t.call({ ...GET, schema: z.array(z.string()) }));
    expect(root.message).toBe(
      "GET /things/1: response does not match the expected shape: (root): Invalid input: expected array, received object (operation op_xxxxxxxxxxxxxxxxxxxxxxxxxxx)",
    );
  });
});

describe("the body", () => {
  test("over the service's limit once encoded: refused, naming the limit and the size, and nothing sent", async () => {
    const t = await scripted([json(201, { ok: true })]);
    // {"d":"…"}: 8 bytes around the string.
    const err = await rejection(
      t.call({
        method: "POST",
        path: "/things",
        body: { d: "x".repeat(MAX_BODY_BYTES - 7) },
        schema: undefined,
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain(
      `input: at most ${MAX_BODY_BYTES} bytes once encoded as JSON, got ${MAX_BODY_BYTES + 1}`,
    );
    expect((err as ValidationError).issues).toEqual([
      {
        field: "input",
        message: `input: at most ${MAX_BODY_BYTES} bytes once encoded as JSON, got ${MAX_BODY_BYTES + 1}`,
      },
    ]);
    expect(server!.requests).toHaveLength(0);
  });

  test("of exactly the limit: sent whole", async () => {
    const t = await scripted([json(201, { ok: true })]);
    await t.call({
      method: "POST",
      path: "/things",
      body: { d: "x".repeat(MAX_BODY_BYTES - 8) },
      schema: undefined,
    });
    expect(server!.requests).toHaveLength(1);
    expect(Buffer.byteLength(server!.requests[0].body)).toBe(MAX_BODY_BYTES);
  });
});

describe("statuses", () => {
  test("a 300 and a 404 are errors with their status; a 299 is an answer", async () => {
    const t = await scripted([
      json(300, { msg: "choose" }),
      json(404, { error_code: "ERR_SERVICE_404", status_code: 404, msg: "gone" }),
      json(299, { n: 1 }),
    ]);
    const schema = z.object({ n: z.number() });
    const three = await rejection(t.call({ ...GET, schema }));
    expect(three).toBeInstanceOf(APIError);
    expect((three as APIError).status).toBe(300);
    const four = await rejection(t.call({ ...GET, schema }));
    expect(four).toBeInstanceOf(NotFoundError);
    await expect(t.call({ ...GET, schema })).resolves.toEqual({ n: 1 });
  });
});

describe("failed connections", () => {
  test("a failure that is not an Error: an unknown error, no code", async () => {
    for (const thrown of [null, undefined, "boom", 42]) {
      const err = await rejection(
        transportOf("http://svc", failingWith(thrown)).call({ ...GET, schema: undefined }),
      );
      expect(err).toBeInstanceOf(APIConnectionError);
      expect(err.message).toBe("GET /things/1: connection failed: unknown error");
      expect((err as APIConnectionError).requestNotSent).toBe(false);
    }
  });

  test("an Error with a code: its message (the API key scrubbed) and its code", async () => {
    const err = await rejection(
      transportOf("http://svc", failingWith(coded(`reset while sending ${API_KEY}`, "ECONNRESET"))).call({
        ...GET,
        schema: undefined,
      }),
    );
    expect(err.constructor).toBe(APIConnectionError);
    expect(err.message).toBe("GET /things/1: connection failed: reset while sending [REDACTED] (ECONNRESET)");
    expect((err as APIConnectionError).requestNotSent).toBe(false);
  });

  test("the code of the first address's error when every address failed (an AggregateError)", async () => {
    const all = new AggregateError(
      [coded("refused", "ECONNREFUSED"), coded("unreachable", "ENETUNREACH")],
      "all failed",
    );
    const err = await rejection(
      transportOf("http://svc", failingWith(all)).call({ ...GET, schema: undefined }),
    );
    expect(err.message).toBe("GET /things/1: connection failed: all failed (ECONNREFUSED)");
    expect((err as APIConnectionError).requestNotSent).toBe(true);
  });

  test("undici's timeouts: a timeout error; only a connect timeout says the request was not sent", async () => {
    const connect = await rejection(
      transportOf("http://svc", failingWith(coded("connect timed out", "UND_ERR_CONNECT_TIMEOUT"))).call({
        ...GET,
        schema: undefined,
      }),
    );
    expect(connect).toBeInstanceOf(APIConnectionTimeoutError);
    expect(connect.message).toBe("GET /things/1: no complete response within 5000 ms");
    expect((connect as APIConnectionTimeoutError).requestNotSent).toBe(true);
    const headers = await rejection(
      transportOf("http://svc", failingWith(coded("headers timed out", "UND_ERR_HEADERS_TIMEOUT"))).call({
        ...GET,
        schema: undefined,
      }),
    );
    expect(headers).toBeInstanceOf(APIConnectionTimeoutError);
    expect((headers as APIConnectionTimeoutError).requestNotSent).toBe(false);
  });

  test("no answer within the timeout: a timeout error whose cause says so", async () => {
    const t = await scripted([() => undefined], { timeoutMs: 200 });
    const err = await rejection(t.call({ ...GET, schema: undefined }));
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect(err.message).toBe("GET /things/1: no complete response within 200 ms");
    expect((err.cause as Error).message).toBe("no complete response within 200 ms");
  });

  test("a certificate of no trusted CA: the advice to give the CA; an expired one: no advice", async () => {
    const untrusted = await rejection(
      transportOf(
        "https://svc",
        failingWith(coded("self-signed certificate", "DEPTH_ZERO_SELF_SIGNED_CERT")),
      ).call({
        ...GET,
        schema: undefined,
      }),
    );
    expect(untrusted).toBeInstanceOf(APICertificateError);
    expect(untrusted.message).toMatch(
      /^GET \/things\/1: the service's TLS certificate was rejected: self-signed certificate \(DEPTH_ZERO_SELF_SIGNED_CERT\)\. If a private CA signed it/,
    );
    const expired = await rejection(
      transportOf("https://svc", failingWith(coded("certificate has expired", "CERT_HAS_EXPIRED"))).call({
        ...GET,
        schema: undefined,
      }),
    );
    expect(expired).toBeInstanceOf(APICertificateError);
    expect(expired.message).toBe(
      "GET /things/1: the service's TLS certificate was rejected: certificate has expired (CERT_HAS_EXPIRED).",
    );
  });
});

describe("the request log", () => {
  test("each attempt's outcome: a status and Operation-Id, a timeout, an error code, or an error", async () => {
    const entries: RequestLogEntry[] = [];
    const logger = (_line: string, entry: RequestLogEntry) => void entries.push(entry);
    const t = await scripted([json(200, { n: 1 }, { "operation-id": "op_logged" }), () => undefined], {
      logger,
      timeoutMs: 200,
    });
    await t.call({ ...GET, path: "/things/1?secret=1", schema: undefined });
    await rejection(t.call({ ...GET, schema: undefined }));
    await rejection(
      transportOf("http://svc", failingWith(coded("reset", "ECONNRESET")), { logger }).call({
        ...GET,
        schema: undefined,
      }),
    );
    await rejection(
      transportOf("http://svc", failingWith(new Error("no code")), { logger }).call({
        ...GET,
        schema: undefined,
      }),
    );
    for (const e of entries) expect(e.kind === "attempt" && e.durationMs >= 0).toBe(true);
    const attempt = (path: string, outcome: object) => ({
      kind: "attempt",
      method: "GET",
      path,
      attempt: 1,
      maxAttempts: 1,
      durationMs: 0,
      ...outcome,
    });
    expect(entries.map((e) => ({ ...e, durationMs: 0 }))).toEqual([
      attempt("/things/1?secret=…", { status: 200, operationId: "op_logged" }),
      attempt("/things/1", { error: "timeout" }),
      attempt("/things/1", { error: "ECONNRESET" }),
      attempt("/things/1", { error: "error" }),
    ]);
  });

  test("a logger that throws loses its entry, never the request", async () => {
    let calls = 0;
    const t = await scripted([json(200, { n: 1 })], {
      logger: () => {
        calls++;
        throw new Error("logger broke");
      },
    });
    await expect(t.call({ ...GET, schema: z.object({ n: z.number() }) })).resolves.toEqual({ n: 1 });
    expect(calls).toBe(1);
  });
});

test("the pacer waits for each attempt and hears each answer's status and Retry-After (seconds)", async () => {
  const heard: PacedAnswer[] = [];
  let acquired = 0;
  const pacer: Pacer = {
    acquire: async () => void acquired++,
    observe: (answer) => void heard.push(answer),
  };
  const t = await scripted([json(503, { msg: "busy" }, { "retry-after": "7" }), json(200, { n: 1 })], {
    pacer,
  });
  await rejection(t.call({ ...GET, schema: undefined }));
  await t.call({ ...GET, schema: undefined });
  expect(acquired).toBe(2);
  expect(heard).toEqual([
    { status: 503, retryAfterSeconds: 7 },
    { status: 200, retryAfterSeconds: undefined },
  ]);
});

test("a deadline passed at the very moment of the call: nothing sent, the request and the deadline named", async () => {
  const t = await scripted([json(200, { n: 1 })]);
  const now = Date.now();
  jest.spyOn(Date, "now").mockReturnValue(now);
  const err = await rejection(
    withDeadline(0, "the create of x", () => t.call({ ...GET, schema: undefined })),
  );
  expect(err).toBeInstanceOf(APIConnectionTimeoutError);
  expect(err.message).toBe("GET /things/1: not sent: the create of x has passed");
  expect((err as APIConnectionTimeoutError).requestNotSent).toBe(true);
  expect(server!.requests).toHaveLength(0);
});

describe("relativePath", () => {
  test("takes the base path off a next_page_uri below it, and leaves any other path whole", () => {
    const t = transportOf("http://svc", agent, { basePath: "/v2" });
    expect(t.relativePath("http://svc/v2/things?before_id=x")).toBe("/things?before_id=x");
    expect(t.relativePath("http://svc/other/things")).toBe("/other/things");
    expect(t.relativePath("http://svc/v2x/things")).toBe("/v2x/things");
    const bare = transportOf("http://svc", agent);
    expect(bare.relativePath("http://svc/things?limit=1")).toBe("/things?limit=1");
  });
});

describe("the body of a response the client cannot use", () => {
  test("kept on the error: parsed JSON in camelCase, or the text; the API key scrubbed from both", async () => {
    const t = await scripted([
      json(200, { some_field: `key ${API_KEY}`, n: "1" }),
      (_req, res) => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end(`not json ${API_KEY}`);
      },
    ]);
    const schema = z.object({ n: z.number() });
    const shaped = (await rejection(t.call({ ...GET, schema }))) as APIResponseValidationError;
    expect(shaped.body).toEqual({ someField: "key [REDACTED]", n: "1" });
    expect(shaped.zodError?.issues.map((i) => i.path)).toEqual([["n"]]);
    expect(shaped.status).toBe(200);
    const text = (await rejection(t.call({ ...GET, schema }))) as APIResponseValidationError;
    expect(text.message).toBe("GET /things/1: response body is not JSON (operation unknown)");
    expect(text.body).toBe("not json [REDACTED]");
    expect(text.zodError).toBeUndefined();
  });
});

test("a connection error keeps its cause, is not marked maybe-applied by itself, and a certificate's is named so", async () => {
  const cause = coded("reset", "ECONNRESET");
  const err = (await rejection(
    transportOf("http://svc", failingWith(cause)).call({ ...GET, schema: undefined }),
  )) as APIConnectionError;
  expect(err.cause).toBe(cause);
  expect(new APIConnectionError("m", { request: "GET /" }).maybeApplied).toBe(false);
  const cert = await rejection(
    transportOf("https://svc", failingWith(coded("expired", "CERT_HAS_EXPIRED"))).call({
      ...GET,
      schema: undefined,
    }),
  );
  expect(cert.name).toBe("APICertificateError");
  expect(String(cert)).toMatch(/^APICertificateError: GET \/things\/1: /);
});
