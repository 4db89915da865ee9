/**
 * The provider's settings (provider/impl/process/settings.ts): stack config first, then the
 * environment; clear errors naming the key (or the variable standing in for it), the unit and
 * the range, before any request: `getClient` (process/client.ts) throws them when it reads the
 * settings `configure` kept.
 */
import { configure, getClient } from "../../../../provider/impl/process/client";
import { readSettings, requestsPerSecond, whole } from "../../../../provider/impl/process/settings";
import { configBag, isolateSettings } from "../../../helpers/provider-settings";

const KEY = "sk_test_RUNTIME_SECRET_0123456789";

describe("settings", () => {
  isolateSettings();

  /** configure() with `values`, then getClient(): its error message, or "" when it built one. */
  async function clientError(values: Record<string, string>): Promise<string> {
    await configure({ config: configBag(values) });
    try {
      getClient();
      return "";
    } catch (e) {
      return (e as Error).message;
    }
  }

  test("no base URL: the error names service:baseUrl and SERVICE_BASE_URL", async () => {
    expect(await clientError({ "service:apiKey": KEY })).toBe(
      "No base URL for the service: run `pulumi config set service:baseUrl <url>` (e.g. https://… for the " +
        "service, http://127.0.0.1:8787 for the emulator) or set SERVICE_BASE_URL.",
    );
  });

  test("a base URL that is not an http(s) URL: named by where it came from", async () => {
    expect(await clientError({ "service:apiKey": KEY, "service:baseUrl": "api.example.com" })).toBe(
      "service:baseUrl must be an absolute http:// or https:// URL",
    );
    process.env.SERVICE_BASE_URL = "ftp://example.com";
    expect(await clientError({ "service:apiKey": KEY })).toBe(
      "SERVICE_BASE_URL (the fallback of service:baseUrl) must be an absolute http:// or https:// URL",
    );
  });

  test.each([
    ["service:requestTimeoutMs", "30s", "milliseconds from 1 to 600000 (10 minutes)"],
    ["service:requestTimeoutMs", "0", "milliseconds from 1 to 600000 (10 minutes)"],
    ["service:requestTimeoutMs", "600001", "milliseconds from 1 to 600000 (10 minutes)"],
    ["service:maxRetries", "21", "retries from 0 to 20"],
    ["service:maxRetries", "1.5", "retries from 0 to 20"],
    ["service:retryBudgetMs", "-1", "milliseconds from 0 to 3600000 (1 hour)"],
    ["service:requestBurst", "0", "requests from 1 to 10000"],
  ])("%s = %j: the key, the unit and the range", async (key, value, range) => {
    const values = { "service:apiKey": KEY, "service:baseUrl": "http://127.0.0.1:9", [key]: value };
    expect(await clientError(values)).toBe(
      `${key} must be a whole number of ${range}, got ${JSON.stringify(value)}`,
    );
  });

  test.each(["0", "-1", "fast", "10001"])(
    "service:maxRequestsPerSecond = %j: the key, the unit and the range",
    async (value) => {
      const values = {
        "service:apiKey": KEY,
        "service:baseUrl": "http://127.0.0.1:9",
        "service:maxRequestsPerSecond": value,
      };
      expect(await clientError(values)).toBe(
        `service:maxRequestsPerSecond must be a number of requests per second above 0 and at most 10000, got ${JSON.stringify(value)}`,
      );
    },
  );

  test("service:maxRequestsPerSecond 0.5 is taken: a fraction of a request per second", async () => {
    const values = {
      "service:apiKey": KEY,
      "service:baseUrl": "http://127.0.0.1:9",
      "service:maxRequestsPerSecond": "0.5",
    };
    expect(await clientError(values)).toBe("");
  });

  test("a bad value from the environment names the variable and its config key", async () => {
    process.env.SERVICE_RETRY_BUDGET_MS = "1m";
    expect(await clientError({ "service:apiKey": KEY, "service:baseUrl": "http://127.0.0.1:9" })).toBe(
      "SERVICE_RETRY_BUDGET_MS (the fallback of service:retryBudgetMs) must be a whole number of milliseconds " +
        'from 0 to 3600000 (1 hour), got "1m"',
    );
  });

  test("service:caCertificate that cannot be read: named, before any request", async () => {
    const message = await clientError({
      "service:apiKey": KEY,
      "service:baseUrl": "https://127.0.0.1:9",
      "service:caCertificate": "/nonexistent/ca.pem",
    });
    expect(message).toMatch(/^service:caCertificate: no such file: "\/nonexistent\/ca.pem"/);
  });

  test.each<[string, number]>([
    ["2", 2],
    ["12", 12],
    [" 2 ", 2],
    ["2.", 2],
    ["2.50", 2.5],
    [".25", 0.25],
    ["10000", 10000],
  ])("service:maxRequestsPerSecond = %j is taken as %d", (value, expected) => {
    readSettings(configBag({ "service:maxRequestsPerSecond": value }));
    expect(requestsPerSecond()).toBe(expected);
  });

  test.each(["1e3", "3e1", "0x10", "2 x", "x 2"])(
    "service:maxRequestsPerSecond = %j (a number JavaScript would read, not a decimal) is refused",
    (value) => {
      readSettings(configBag({ "service:maxRequestsPerSecond": value }));
      expect(() => requestsPerSecond()).toThrow(`service:maxRequestsPerSecond must be a number of requests`);
    },
  );

  test.each<["requestTimeoutMs" | "maxRetries", string, number]>([
    ["requestTimeoutMs", "600000", 600000],
    ["requestTimeoutMs", " 1 ", 1],
    ["maxRetries", "20", 20],
    ["maxRetries", "0", 0],
  ])("service:%s = %j, at the edge of its range, is taken", (name, value, expected) => {
    readSettings(configBag({ [`service:${name}`]: value }));
    expect(whole(name)).toBe(expected);
  });

  test("readSettings tells whether any value changed since the settings it replaces", () => {
    const a = { "service:apiKey": KEY, "service:baseUrl": "http://127.0.0.1:9" };
    readSettings(configBag({}));
    expect(readSettings(configBag(a))).toBe(true);
    expect(readSettings(configBag(a))).toBe(false);
    expect(readSettings(configBag({ ...a, "service:maxRetries": "3" }))).toBe(true);
    expect(readSettings(configBag({ ...a, "service:maxRetries": "3" }))).toBe(false);
    expect(readSettings(configBag(a))).toBe(true);
  });
});
