/**
 * The provider process's runtime (provider/impl/runtime.ts): a `preview` or a run without
 * changes calls only `configure`, `check` and `diff`, which send no request, so the HTTP stack
 * (undici) is loaded with the client, on the first request, not at the process's start. Its
 * settings (stack config, then environment) and its request log.
 */
import * as pulumi from "@pulumi/pulumi";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import * as runtime from "../../../provider/impl/runtime";
import {
  APICertificateError,
  APIConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
} from "../../../client";
import { type RunningEmulator, startEmulator } from "../../helpers/emulator";
import { loadedWith } from "../../helpers/loaded-modules";
import { freshBackend, localStack } from "../../helpers/pulumi";
import {
  fakeId,
  hang,
  json,
  type ScriptedServer,
  serviceError,
  startScriptedServer,
  wireSubscription,
} from "../../helpers/scripted-server";
import { makeTestCa, startTlsEmulator } from "../../helpers/tls";

const ED = `ed_${"A".repeat(27)}`;
const ESB = `esb_${"S".repeat(27)}`;
const config = (values: Record<string, string>) => ({ get: (k: string) => values[k] });

describe("loading the client", () => {
  it("configure, check and diff of both kinds load no undici; getClient does", async () => {
    await loadedWith(["undici"], async (loaded) => {
      const runtime = await import("../../../provider/impl/runtime");
      const subscriptions = await import("../../../provider/impl/eventSubscription");
      const destinations = await import("../../../provider/impl/eventDestination");

      await runtime.configure({
        config: config({ "service:apiKey": "sk_test", "service:baseUrl": "http://127.0.0.1:9" }),
      });
      const sub = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED] };
      expect((await subscriptions.check({}, sub)).failures).toEqual([]);
      const outs = subscriptions.toOutputs({
        id: ESB,
        uri: "u",
        createdAt: "2026-11-23T08:00:00Z",
        description: "",
        metadata: "",
        sources: [{ type: "ip_policy_created.v0", uri: "u" }],
        destinations: [{ id: ED, uri: "u" }],
      });
      expect((await subscriptions.diff(ESB, outs, sub)).changes).toBe(false);
      const dest = { target: { datadog: { apiKey: "k" } } };
      expect((await destinations.check({}, dest as never)).failures).toEqual([]);
      expect(loaded).toEqual([]);

      const client = runtime.getClient();
      expect(loaded).toEqual(["undici"]);
      expect(client.baseUrl).toBe("http://127.0.0.1:9");
      await client.close();
    });
  });
});

/**
 * The provider's settings: stack config first, then the environment; clear errors naming the
 * key (or variable), the unit and the range before any request; and the request log through
 * Pulumi's log at debug level.
 */
describe("settings", () => {
  const ENV = [
    "SERVICE_API_KEY",
    "SERVICE_BASE_URL",
    "SERVICE_CA_CERTIFICATE",
    "SERVICE_REQUEST_TIMEOUT_MS",
    "SERVICE_MAX_RETRIES",
    "SERVICE_RETRY_BUDGET_MS",
    "SERVICE_LOG",
  ];
  const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
  const KEY = "sk_test_RUNTIME_SECRET_0123456789";
  let server: ScriptedServer | undefined;

  beforeEach(() => {
    for (const k of ENV) delete process.env[k];
  });
  afterEach(async () => {
    await runtime.configure({ config: config({}) }); // closes the client of the test
    await server?.close();
    server = undefined;
    for (const k of ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    jest.restoreAllMocks();
  });

  /** configure() with `values`, then getClient(): its error message, or "" when it built one. */
  async function clientError(values: Record<string, string>): Promise<string> {
    await runtime.configure({ config: config(values) });
    try {
      runtime.getClient();
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
  ])("%s = %j: the key, the unit and the range", async (key, value, range) => {
    const values = { "service:apiKey": KEY, "service:baseUrl": "http://127.0.0.1:9", [key]: value };
    expect(await clientError(values)).toBe(
      `${key} must be a whole number of ${range}, got ${JSON.stringify(value)}`,
    );
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

  test("requestTimeoutMs and maxRetries reach the client (config wins over the environment)", async () => {
    server = await startScriptedServer([hang]);
    process.env.SERVICE_REQUEST_TIMEOUT_MS = "20000";
    await runtime.configure({
      config: config({
        "service:apiKey": KEY,
        "service:baseUrl": server.url,
        "service:requestTimeoutMs": "150",
        "service:maxRetries": "0",
      }),
    });
    const started = Date.now();
    const err = await runtime
      .getClient()
      .eventSubscriptions.get(ESB)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect((err as Error).message).toBe(
      `GET /event_subscriptions/${ESB}: no complete response within 150 ms`,
    );
    expect((err as APIConnectionTimeoutError).attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("retryBudgetMs from the environment reaches the client: 0 means no retry", async () => {
    server = await startScriptedServer([
      serviceError(503, 500, "busy"),
      json(200, wireSubscription("http://svc", 1)),
    ]);
    process.env.SERVICE_RETRY_BUDGET_MS = "0";
    await runtime.configure({ config: config({ "service:apiKey": KEY, "service:baseUrl": server.url }) });
    const err = await runtime
      .getClient()
      .eventSubscriptions.get(fakeId("esb_", 1))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(server.requests).toHaveLength(1);
  });

  test("service:caCertificate: a service signed by a private CA is reached over TLS", async () => {
    const ca = makeTestCa();
    const emulator = await startTlsEmulator(ca);
    try {
      const base = { "service:apiKey": emulator.apiKeys[0], "service:baseUrl": emulator.url };
      await runtime.configure({ config: config(base) });
      const err = await runtime
        .getClient()
        .eventSubscriptions.get(ESB)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(APICertificateError);
      expect((err as Error).message).toContain("service:caCertificate");
      await runtime.configure({ config: config({ ...base, "service:caCertificate": ca.caPath }) });
      await expect(runtime.getClient().eventSubscriptions.get(ESB)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await runtime.configure({ config: config({}) });
      await emulator.close();
      ca.remove();
    }
  });

  describe("the request log", () => {
    async function retriedGet(): Promise<string[]> {
      server = await startScriptedServer([
        serviceError(503, 500, "busy"),
        json(200, wireSubscription("http://svc", 1)),
      ]);
      const lines: string[] = [];
      jest.spyOn(pulumi.log, "debug").mockImplementation(async (msg: string) => void lines.push(msg));
      await runtime.configure({ config: config({ "service:apiKey": KEY, "service:baseUrl": server.url }) });
      await runtime.getClient().eventSubscriptions.get(fakeId("esb_", 1));
      expect(server.requests).toHaveLength(2);
      return lines;
    }

    /** What is written to stderr from now to the end of the test (the spy is restored after each). */
    function captureStderr(): string[] {
      const written: string[] = [];
      jest
        .spyOn(process.stderr, "write")
        .mockImplementation((chunk: unknown) => (written.push(String(chunk)), true));
      return written;
    }

    test("each attempt of a retried GET goes to Pulumi's log at debug level, without the key", async () => {
      const lines = await retriedGet();
      expect(lines).toHaveLength(3);
      expect(lines[0]).toMatch(
        /^service: GET \/event_subscriptions\/esb_\w+ -> 503 in \d+ ms \(attempt 1 of 5/,
      );
      expect(lines[1]).toMatch(/^service: GET \/event_subscriptions\/esb_\w+: attempt 2 of 5 in \d+ ms$/);
      expect(lines[2]).toMatch(
        /^service: GET \/event_subscriptions\/esb_\w+ -> 200 in \d+ ms \(attempt 2 of 5/,
      );
      expect(lines.join("\n")).not.toContain(KEY);
    });

    test("SERVICE_LOG=debug: to stderr as well", async () => {
      process.env.SERVICE_LOG = "debug";
      const written = captureStderr();
      const lines = await retriedGet();
      expect(written.join("")).toBe(lines.map((l) => `${l}\n`).join(""));
    });

    test("SERVICE_LOG=off: nothing, neither to Pulumi's log nor to stderr", async () => {
      process.env.SERVICE_LOG = "off";
      const written = captureStderr();
      expect(await retriedGet()).toEqual([]);
      expect(written).toEqual([]);
    });
  });
});

/**
 * The engine's address, the provider process's last argument, reaches `@pulumi/pulumi`'s log
 * even when its settings were read before `configure` (without it, debug lines are dropped).
 */
test("configure hands the engine address to Pulumi's log, after --logflow's flags too", async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const state = require("@pulumi/pulumi/runtime/state") as {
    getStore(): { settings: { options: { engineAddr?: string } } };
  };
  const options = state.getStore().settings.options;
  const saved = { argv: process.argv, env: process.env.PULUMI_NODEJS_ENGINE, addr: options.engineAddr };
  try {
    delete process.env.PULUMI_NODEJS_ENGINE;
    options.engineAddr = undefined;
    process.argv = [
      process.argv[0],
      "dynamic-provider",
      "--logtostderr",
      "-v=9",
      "--tracing",
      "127.0.0.1:1",
      "127.0.0.1:45678",
    ];
    await runtime.configure({ config: config({}) });
    expect(options.engineAddr).toBe("127.0.0.1:45678");
    expect(process.env.PULUMI_NODEJS_ENGINE).toBe("127.0.0.1:45678");
  } finally {
    process.argv = saved.argv;
    options.engineAddr = saved.addr;
    if (saved.env === undefined) delete process.env.PULUMI_NODEJS_ENGINE;
    else process.env.PULUMI_NODEJS_ENGINE = saved.env;
  }
});

/**
 * Through the real engine (Automation API, the project's CLI, the built package): the request
 * log reaches `pulumi up --debug`'s output, without the API key or the destination's secret, and
 * a run without `--debug` shows none of it.
 */
describe("the request log through the real engine", () => {
  const DD_KEY = "dd-runtime-secret-key-93be1f";
  let emulator: RunningEmulator;
  let stack: Stack;

  beforeAll(async () => {
    emulator = await startEmulator({});
    ({ stack } = await localStack(
      path.join(__dirname, "..", "..", "fixtures", "lifecycle"),
      "log",
      freshBackend("runtime-log"),
      { SERVICE_LOG: "" },
    ));
    await stack.setConfig("service:baseUrl", { value: emulator.url });
    await stack.setConfig("service:apiKey", { value: emulator.apiKeys[0], secret: true });
    await stack.setConfig("ddApiKey", { value: DD_KEY, secret: true });
    const spec = {
      destinations: [
        { name: "dd", args: { target: { datadog: { apiKey: "secret:ddApiKey", ddsite: "datadoghq.eu" } } } },
      ],
      subscriptions: [],
      reports: [],
    };
    await stack.setConfig("spec", { value: JSON.stringify(spec) });
  }, 600_000);
  afterAll(async () => {
    await emulator?.close();
  });

  test("up --debug shows each request; destroy without it shows none", async () => {
    let out = "";
    await stack.up({ debug: true, onOutput: (o) => (out += o) });
    const lines = out.split("\n").filter((l) => l.includes("service: "));
    expect(
      lines.some((l) =>
        /debug: service: POST \/event_destinations -> 201 in \d+ ms \(attempt 1 of 5, operation op_\w+\)/.test(
          l,
        ),
      ),
    ).toBe(true);
    expect(lines.join("\n")).not.toContain(emulator.apiKeys[0]);
    expect(lines.join("\n")).not.toContain(DD_KEY);

    let quiet = "";
    await stack.destroy({ onOutput: (o) => (quiet += o) });
    expect(quiet).toContain("deleted");
    expect(quiet).not.toContain("service: DELETE");
  }, 600_000);
});
