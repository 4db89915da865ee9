/**
 * The provider process's runtime (provider/impl/runtime.ts): a `preview` or a run without
 * changes calls only `configure`, `check` and `diff`, which send no request, so the HTTP stack
 * (undici) is loaded with the client, on the first request, not at the process's start. Its
 * settings (stack config, then environment) and its request log.
 */
import * as pulumi from "@pulumi/pulumi";
import { spawn } from "node:child_process";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import * as runtime from "../../../provider/impl/runtime";
import { legacyKeyStamp } from "../../../provider/impl/keyStamp";
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
import { SERVER } from "../../../provider/native/server";

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
    /** The messages sent to Pulumi's log at debug level from now on (the spy is restored after each test). */
    async function spyDebug(): Promise<string[]> {
      // Lines of earlier tests still waiting go first, to the real log (no engine: dropped).
      await runtime.flushDebugLog();
      const messages: string[] = [];
      jest.spyOn(pulumi.log, "debug").mockImplementation(async (msg: string) => void messages.push(msg));
      return messages;
    }

    /** The lines of Pulumi's debug messages, in order: a message holds the lines of a batch. */
    const linesOf = (messages: string[]) => messages.flatMap((m) => m.split("\n"));

    /** A GET answered 503 then 200, its request lines flushed: the debug messages sent. */
    async function retriedGet(): Promise<string[]> {
      server = await startScriptedServer([
        serviceError(503, 500, "busy"),
        json(200, wireSubscription("http://svc", 1)),
      ]);
      const messages = await spyDebug();
      await runtime.configure({ config: config({ "service:apiKey": KEY, "service:baseUrl": server.url }) });
      await runtime.getClient().eventSubscriptions.get(fakeId("esb_", 1));
      expect(server.requests).toHaveLength(2);
      await runtime.flushDebugLog();
      return messages;
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
      const messages = await retriedGet();
      // The three lines, logged within milliseconds, go as one message.
      expect(messages).toHaveLength(1);
      const lines = linesOf(messages);
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
      const lines = linesOf(await retriedGet());
      expect(lines).toHaveLength(3);
      expect(written.join("")).toBe(lines.map((l) => `${l}\n`).join(""));
    });

    test("SERVICE_LOG=off: nothing, neither to Pulumi's log nor to stderr", async () => {
      process.env.SERVICE_LOG = "off";
      const written = captureStderr();
      expect(await retriedGet()).toEqual([]);
      expect(written).toEqual([]);
    });

    test("1,000 requests: every line reaches Pulumi's log, in order, in a handful of messages", async () => {
      const emulator = await startEmulator({});
      try {
        const messages = await spyDebug();
        await runtime.configure({
          config: config({ "service:apiKey": emulator.apiKeys[0], "service:baseUrl": emulator.url }),
        });
        const ids = Array.from({ length: 1000 }, (_, i) => fakeId("esb_", i + 1));
        const started = Date.now();
        for (const id of ids) await expect(runtime.getClient().eventSubscriptions.get(id)).rejects.toThrow();
        const seconds = (Date.now() - started) / 1000;
        await runtime.flushDebugLog();
        const lines = linesOf(messages);
        expect(lines).toHaveLength(1000);
        lines.forEach((line, i) => expect(line).toContain(`GET /event_subscriptions/${ids[i]} -> 404`));
        // One message per DEBUG_LOG_FLUSH_MS of requests, and the last flush: not one per request.
        expect(messages.length).toBeLessThanOrEqual(
          Math.ceil((seconds * 1000) / runtime.DEBUG_LOG_FLUSH_MS) + 2,
        );
        expect(messages.length).toBeLessThan(50);
      } finally {
        await runtime.configure({ config: config({}) });
        await emulator.close();
      }
    }, 120_000);

    test("lines left waiting go by themselves within DEBUG_LOG_FLUSH_MS", async () => {
      const messages = await (async () => {
        server = await startScriptedServer([json(200, wireSubscription("http://svc", 1))]);
        const sent = await spyDebug();
        await runtime.configure({ config: config({ "service:apiKey": KEY, "service:baseUrl": server.url }) });
        await runtime.getClient().eventSubscriptions.get(fakeId("esb_", 1));
        return sent;
      })();
      expect(messages).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, runtime.DEBUG_LOG_FLUSH_MS + 200));
      expect(linesOf(messages)).toEqual([expect.stringMatching(/GET \/event_subscriptions\/esb_\w+ -> 200/)]);
    });

    test("the native plugin's Cancel (sent by the engine before it stops a provider) sends the lines waiting", async () => {
      server = await startScriptedServer([json(200, wireSubscription("http://svc", 1))]);
      const messages = await spyDebug();
      await runtime.configure({ config: config({ "service:apiKey": KEY, "service:baseUrl": server.url }) });
      await runtime.getClient().eventSubscriptions.get(fakeId("esb_", 1));
      expect(messages).toEqual([]);
      await new Promise<void>((resolve, reject) =>
        SERVER.cancel!({ request: undefined } as never, (err) => (err ? reject(err) : resolve())),
      );
      expect(linesOf(messages)).toEqual([expect.stringMatching(/GET \/event_subscriptions\/esb_\w+ -> 200/)]);
    });

    test("SIGINT (how the engine stops a provider, after Cancel) sends the lines waiting, then ends the process", async () => {
      server = await startScriptedServer([json(200, wireSubscription("http://svc", 1))]);
      // The built runtime (npm run build) in a process of its own, Pulumi's log writing to stdout.
      const script = `
        const pulumi = require("@pulumi/pulumi");
        pulumi.log.debug = async (m) => void process.stdout.write("sent: " + m + "\\n");
        // The batch timer never fires here, however slow the machine: only the signal sends the line.
        const setTimer = global.setTimeout;
        global.setTimeout = (fn, ms, ...args) => (ms === ${runtime.DEBUG_LOG_FLUSH_MS} ? { unref() {} } : setTimer(fn, ms, ...args));
        const runtime = require(${JSON.stringify(path.resolve(__dirname, "../../../dist/provider/impl/runtime.js"))});
        const values = { "service:apiKey": "sk_test", "service:baseUrl": process.env.URL };
        runtime.configure({ config: { get: (k) => values[k] } })
          .then(() => runtime.getClient().eventSubscriptions.get(process.env.ID))
          .then(() => { process.stdout.write("ready\\n"); setInterval(() => {}, 1000); });`;
      const child = spawn(process.execPath, ["-e", script], {
        cwd: path.resolve(__dirname, "../../.."),
        env: { ...process.env, URL: server.url, ID: fakeId("esb_", 1), SERVICE_LOG: "" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      const ended = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on("exit", (_code, signal) => resolve(signal)),
      );
      await new Promise<void>((resolve) =>
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("ready\n")) resolve();
        }),
      );
      expect(out).toBe("ready\n");
      child.kill("SIGINT");
      expect(await ended).toBe("SIGINT");
      expect(out).toMatch(/^ready\nsent: service: GET \/event_subscriptions\/esb_\w+ -> 200 in \d+ ms/);
    }, 60_000);
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
 * The key stamps of the provider's key (keyStamp.ts through runtime.ts): the stamp a process
 * writes, the one comparison every check uses, what a write keeps or replaces, and what it costs.
 */
describe("key stamps", () => {
  const KEY = "sk_runtime_stamp_key_5e1a";
  const OTHER = "sk_runtime_stamp_other_77b2";
  const useKey = (apiKey?: string) =>
    runtime.configure({
      config: config(apiKey ? { "service:apiKey": apiKey, "service:baseUrl": "http://127.0.0.1:9" } : {}),
    });
  /** keyStamp.ts loaded afresh: the stamps another provider process writes. */
  const anotherProcess = () => {
    let fresh: typeof import("../../../provider/impl/keyStamp") | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      fresh = require("../../../provider/impl/keyStamp");
    });
    return fresh!;
  };
  const notFound = () =>
    Promise.reject(
      new NotFoundError(
        { status: 404, method: "GET", path: `/event_subscriptions/${ESB}`, bodyText: "{}" },
        { body: {} },
      ),
    );
  /** Node's crypto module itself (an `import *` would be a copy), to count the scrypt derivations. */
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const crypto = require("node:crypto") as typeof import("node:crypto");
  const saved = process.env.SERVICE_API_KEY;

  beforeEach(() => delete process.env.SERVICE_API_KEY);
  afterEach(async () => {
    await useKey();
    if (saved !== undefined) process.env.SERVICE_API_KEY = saved;
    jest.restoreAllMocks();
  });

  test("currentKeyStamp is the salted stamp of the configured key, derived once; isCurrentKeyStamp tells its key's stamps from others", async () => {
    const scrypt = jest.spyOn(crypto, "scryptSync");
    await useKey(KEY);
    const stamp = runtime.currentKeyStamp();
    expect(stamp).toMatch(/^s1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    expect(runtime.currentKeyStamp()).toBe(stamp);
    expect(runtime.isCurrentKeyStamp(stamp)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(1);

    const elsewhere = anotherProcess();
    expect(runtime.isCurrentKeyStamp(elsewhere.keyStamp(KEY))).toBe(true);
    expect(runtime.isCurrentKeyStamp(elsewhere.keyStamp(OTHER))).toBe(false);
    expect(runtime.isCurrentKeyStamp(legacyKeyStamp(KEY))).toBe(true);
    expect(runtime.isCurrentKeyStamp(legacyKeyStamp(OTHER))).toBe(false);
    expect(runtime.isCurrentKeyStamp(undefined)).toBeUndefined();
    expect(runtime.isCurrentKeyStamp("not a stamp")).toBeUndefined();

    await useKey(OTHER);
    expect(runtime.isCurrentKeyStamp(stamp)).toBe(false);
    expect(runtime.currentKeyStamp()).not.toBe(stamp);
    await useKey();
    expect(() => runtime.isCurrentKeyStamp(stamp)).toThrow(/No API key/i);
    expect(runtime.isCurrentKeyStamp(undefined)).toBeUndefined();
  });

  test("checking the stamps of 1,000 resources written by 3 processes costs 3 derivations, not 1,000", async () => {
    const writers = [anotherProcess(), anotherProcess(), anotherProcess()];
    const stamps = Array.from({ length: 1_000 }, (_, i) => writers[i % 3].keyStamp(KEY));
    await useKey(KEY);
    runtime.currentKeyStamp();
    const scrypt = jest.spyOn(crypto, "scryptSync");
    expect(stamps.every((s) => runtime.isCurrentKeyStamp(s) === true)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(3);
  });

  test("a write stamps the outputs; a refresh keeps its key's salted stamp as it is and replaces an earlier version's or another key's", async () => {
    await useKey(KEY);
    const current = runtime.currentKeyStamp();
    expect(runtime.stamped({ description: "made" })).toEqual({ description: "made", __keyStamp: current });

    const elsewhere = anotherProcess().keyStamp(KEY);
    expect(runtime.stamped({ description: "read" }, { description: "was", __keyStamp: elsewhere })).toEqual({
      description: "read",
      __keyStamp: elsewhere,
    });
    for (const replaced of [legacyKeyStamp(KEY), anotherProcess().keyStamp(OTHER), legacyKeyStamp(OTHER)]) {
      expect(runtime.stamped({ description: "read" }, { description: "was", __keyStamp: replaced })).toEqual({
        description: "read",
        __keyStamp: current,
      });
    }
    // A state written before stamps keeps its shape: an upgrade refreshes to no change.
    expect(runtime.stamped({ description: "read" }, { description: "was" })).toEqual({ description: "read" });
  });

  test("a 404 to the key of an earlier version's stamp counts as gone; to another key it fails, naming no stamp in full", async () => {
    await useKey(KEY);
    const state = { what: `event subscription ${ESB}`, props: { __keyStamp: legacyKeyStamp(KEY) } };
    await expect(runtime.getUnlessGone(notFound, state)).resolves.toBeUndefined();

    await useKey(OTHER);
    const current = runtime.currentKeyStamp();
    const error = String(await runtime.getUnlessGone(notFound, state).catch((e: unknown) => e));
    expect(error).toContain(
      `event subscription ${ESB} was made with another service API key (key stamp of an earlier provider version) ` +
        `than this provider's (key stamp ${current.split(".")[2].slice(0, 6)}…)`,
    );
    expect(error).not.toContain(legacyKeyStamp(KEY).slice(0, 4));
    expect(error).not.toContain(current.split(".")[1].slice(0, 6));
    expect(error).not.toContain(current.split(".")[2].slice(0, 7));
    expect(error).not.toContain(OTHER);
  });
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
      subscriptions: ["a", "b", "c"].map((name) => ({
        name,
        destinations: ["dd"],
        args: { sources: [{ type: "ip_policy_created.v0" }] },
      })),
      reports: [],
    };
    await stack.setConfig("spec", { value: JSON.stringify(spec) });
  }, 600_000);
  afterAll(async () => {
    await emulator?.close();
  });

  test("up --debug shows each request, in order; destroy without it shows none", async () => {
    let out = "";
    await stack.up({ debug: true, onOutput: (o) => (out += o) });
    const lines = out.split("\n").filter((l) => l.includes("service: "));
    // The lines reach the engine in batches (one debug message of several lines), the last ones
    // as the engine stops the provider: each request's line is there (the display may show a
    // message twice: as it comes, and among the diagnostics), the destination's first.
    const posts = new Set(
      lines
        .map(
          (l) =>
            /service: POST \/event_\w+ -> 201 in \d+ ms \(attempt 1 of 5, operation op_\w+\)/.exec(l)?.[0],
        )
        .filter((l) => l !== undefined),
    );
    expect([...posts].map((l) => /POST \/(\w+)/.exec(l)![1])).toEqual([
      "event_destinations",
      "event_subscriptions",
      "event_subscriptions",
      "event_subscriptions",
    ]);
    expect(lines.join("\n")).not.toContain(emulator.apiKeys[0]);
    expect(lines.join("\n")).not.toContain(DD_KEY);

    let quiet = "";
    await stack.destroy({ onOutput: (o) => (quiet += o) });
    expect(quiet).toContain("deleted");
    expect(quiet).not.toContain("service: DELETE");
  }, 600_000);
});
