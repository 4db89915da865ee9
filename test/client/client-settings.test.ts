/**
 * ServiceClient's settings word for word: what is missing, each number refused with its unit and
 * range, the pace read from the environment, the base URL's trailing slashes, what String and
 * inspect show, and whose connection pool close() closes.
 */
import { inspect } from "node:util";
import { Agent } from "undici";
import { APIConnectionError, ServiceClient, ServiceError, type ServiceClientOptions } from "../../client";
import { paceSettings } from "../../client/client";
import { fakeId, json, startScriptedServer, wireSubscription } from "../helpers/scripted-server";

const API_KEY = "sk_test_SECRET_0123456789abcdef";
const SUB_ID = fakeId("esb_", 1);
const ok = () => json(200, wireSubscription("http://svc", 1));

describe("ServiceClient's settings", () => {
  const make = (options: ServiceClientOptions) => () =>
    new ServiceClient({ apiKey: API_KEY, baseUrl: "http://x", ...options });
  const envNames = [
    "SERVICE_API_KEY",
    "SERVICE_BASE_URL",
    "SERVICE_MAX_REQUESTS_PER_SECOND",
    "SERVICE_REQUEST_BURST",
  ];
  const saved = Object.fromEntries(envNames.map((n) => [n, process.env[n]]));
  beforeEach(() => envNames.forEach((n) => delete process.env[n]));
  afterEach(() => {
    for (const n of envNames) {
      if (saved[n] === undefined) delete process.env[n];
      else process.env[n] = saved[n];
    }
  });

  test("what is missing: the key, the URL, or both", () => {
    const pass = "Pass { apiKey, baseUrl } or set SERVICE_API_KEY and SERVICE_BASE_URL.";
    expect(() => new ServiceClient()).toThrow(
      `ServiceClient: missing an API key (option apiKey or env SERVICE_API_KEY) and a base URL (option baseUrl or env SERVICE_BASE_URL). ${pass}`,
    );
    expect(() => new ServiceClient({ baseUrl: "http://x" })).toThrow(
      new ServiceError(`ServiceClient: missing an API key (option apiKey or env SERVICE_API_KEY). ${pass}`),
    );
    expect(() => new ServiceClient({ apiKey: API_KEY })).toThrow(
      new ServiceError(`ServiceClient: missing a base URL (option baseUrl or env SERVICE_BASE_URL). ${pass}`),
    );
  });

  test.each([
    [{ timeoutMs: 0 }, "ServiceClient: timeoutMs must be a positive number of milliseconds, got 0"],
    [{ timeoutMs: NaN }, "ServiceClient: timeoutMs must be a positive number of milliseconds, got NaN"],
    [
      { timeoutMs: Infinity },
      "ServiceClient: timeoutMs must be a positive number of milliseconds, got Infinity",
    ],
    [{ maxRetries: -1 }, "ServiceClient: maxRetries must be a non-negative number, got -1"],
    [
      { retryBudgetMs: -5 },
      "ServiceClient: retryBudgetMs must be a non-negative number of milliseconds, got -5",
    ],
    [
      { requestBurst: 0 },
      "ServiceClient: requestBurst must be a whole number of requests from 1 up to 10000, got 0",
    ],
  ])("refused: %p gets %p", (options, message) => {
    expect(make(options)).toThrow(new ServiceError(message));
  });

  test("zero retries and a zero retry budget are allowed; trailing slashes of the base URL go", () => {
    const c = make({ maxRetries: 0, retryBudgetMs: 0, baseUrl: "http://x/api//" })();
    expect(c.baseUrl).toBe("http://x/api");
    expect(String(c)).toBe("ServiceClient(http://x/api)");
    expect(inspect(c)).toBe('ServiceClient { baseUrl: "http://x/api", apiKey: [REDACTED] }');
    return c.close();
  });

  test("the pace from the environment: read when no option is given, blank is no number", () => {
    expect(paceSettings({})).toEqual({ maxRequestsPerSecond: undefined, burst: 1 });
    process.env.SERVICE_MAX_REQUESTS_PER_SECOND = " 5 ";
    process.env.SERVICE_REQUEST_BURST = "3";
    expect(paceSettings({})).toEqual({ maxRequestsPerSecond: 5, burst: 3 });
    expect(paceSettings({ maxRequestsPerSecond: 2, requestBurst: 4 })).toEqual({
      maxRequestsPerSecond: 2,
      burst: 4,
    });
    process.env.SERVICE_REQUEST_BURST = " ";
    expect(() => paceSettings({})).toThrow(
      new ServiceError(
        "SERVICE_REQUEST_BURST must be a whole number of requests from 1 up to 10000, got NaN",
      ),
    );
  });

  test("a dispatcher of the caller's: used, and not closed by close()", async () => {
    const srv = await startScriptedServer([ok()]);
    const theirs = new Agent();
    try {
      const c = new ServiceClient({ apiKey: API_KEY, baseUrl: srv.url, dispatcher: theirs });
      await c.close();
      await expect(c.eventSubscriptions.get(SUB_ID)).resolves.toMatchObject({ id: SUB_ID });
    } finally {
      await theirs.close();
      await srv.close();
    }
  });

  test("close() closes the client's own pool: no request goes out after it", async () => {
    const srv = await startScriptedServer([ok()]);
    try {
      const c = new ServiceClient({ apiKey: API_KEY, baseUrl: srv.url, maxRetries: 0 });
      await c.close();
      await expect(c.eventSubscriptions.get(SUB_ID)).rejects.toThrow(APIConnectionError);
      expect(srv.requests).toHaveLength(0);
    } finally {
      await srv.close();
    }
  });
});

test("the pace's ranges: a burst a whole number from 1 to 10,000, a ceiling any number above 0 up to 10,000", () => {
  for (const ok of [1, 2, 10_000]) expect(paceSettings({ requestBurst: ok }).burst).toBe(ok);
  for (const bad of [0, 1.5, 10_001, NaN])
    expect(() => paceSettings({ requestBurst: bad })).toThrow(
      new ServiceError(
        `ServiceClient: requestBurst must be a whole number of requests from 1 up to 10000, got ${bad}`,
      ),
    );
  for (const ok of [0.05, 1.5, 10_000])
    expect(paceSettings({ maxRequestsPerSecond: ok }).maxRequestsPerSecond).toBe(ok);
  for (const bad of [0, -1, 10_000.5, Infinity, NaN])
    expect(() => paceSettings({ maxRequestsPerSecond: bad })).toThrow(
      new ServiceError(
        `ServiceClient: maxRequestsPerSecond must be a number of requests per second above 0 up to 10000, got ${bad}`,
      ),
    );
});
