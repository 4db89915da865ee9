/**
 * The provider process's request log (provider/impl/process/debugLog.ts): each request's line to
 * Pulumi's log at debug level, in batches, sent before the process ends; `SERVICE_LOG`; and the
 * connection of `@pulumi/pulumi`'s log to the engine that `configure` makes. Through the real
 * engine: debugLog.engine.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";
import { spawn } from "node:child_process";
import * as path from "node:path";
import { configure, getClient } from "../../../../provider/impl/process/client";
import {
  connectLogToEngine,
  DEBUG_LOG_BATCH_CHARS,
  DEBUG_LOG_FLUSH_MS,
  flushDebugLog,
  providerLogger,
  warn,
} from "../../../../provider/impl/process/debugLog";
import { startEmulator } from "../../../helpers/emulator";
import { configBag, isolateSettings } from "../../../helpers/provider-settings";
import {
  fakeId,
  json,
  serviceError,
  startScriptedServer,
  wireSubscription,
} from "../../../helpers/scripted-server";
import { SERVER } from "../../../../provider/native/server";

const KEY = "sk_test_RUNTIME_SECRET_0123456789";
/** The repository's root. */
const REPO = path.resolve(__dirname, "../../../..");

describe("the request log", () => {
  const state = isolateSettings();

  /** The messages sent to Pulumi's log at debug level from now on (the spy is restored after each test). */
  async function spyDebug(): Promise<string[]> {
    // Lines of earlier tests still waiting go first, to the real log (no engine: dropped).
    await flushDebugLog();
    const messages: string[] = [];
    jest.spyOn(pulumi.log, "debug").mockImplementation(async (msg: string) => void messages.push(msg));
    return messages;
  }

  /** The lines of Pulumi's debug messages, in order: a message holds the lines of a batch. */
  const linesOf = (messages: string[]) => messages.flatMap((m) => m.split("\n"));

  /** A scripted server answering one GET of a subscription, the client configured for it, and the debug messages from then on. */
  async function oneGetServer(): Promise<string[]> {
    state.server = await startScriptedServer([json(200, wireSubscription("http://svc", 1))]);
    const messages = await spyDebug();
    await configure({ config: configBag({ "service:apiKey": KEY, "service:baseUrl": state.server.url }) });
    return messages;
  }

  /** A GET answered 503 then 200, its request lines flushed: the debug messages sent. */
  async function retriedGet(): Promise<string[]> {
    state.server = await startScriptedServer([
      serviceError(503, 500, "busy"),
      json(200, wireSubscription("http://svc", 1)),
    ]);
    const messages = await spyDebug();
    await configure({ config: configBag({ "service:apiKey": KEY, "service:baseUrl": state.server.url }) });
    await getClient().eventSubscriptions.get(fakeId("esb_", 1));
    expect(state.server.requests).toHaveLength(2);
    await flushDebugLog();
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
      await configure({
        config: configBag({ "service:apiKey": emulator.apiKeys[0], "service:baseUrl": emulator.url }),
      });
      const ids = Array.from({ length: 1000 }, (_, i) => fakeId("esb_", i + 1));
      const started = Date.now();
      for (const id of ids) await expect(getClient().eventSubscriptions.get(id)).rejects.toThrow();
      const seconds = (Date.now() - started) / 1000;
      await flushDebugLog();
      const lines = linesOf(messages);
      expect(lines).toHaveLength(1000);
      lines.forEach((line, i) => expect(line).toContain(`GET /event_subscriptions/${ids[i]} -> 404`));
      // One message per DEBUG_LOG_FLUSH_MS of requests, and the last flush: not one per request.
      expect(messages.length).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / DEBUG_LOG_FLUSH_MS) + 2);
      expect(messages.length).toBeLessThan(50);
    } finally {
      await configure({ config: configBag({}) });
      await emulator.close();
    }
  }, 120_000);

  test("lines left waiting go by themselves within DEBUG_LOG_FLUSH_MS", async () => {
    const messages = await oneGetServer();
    await getClient().eventSubscriptions.get(fakeId("esb_", 1));
    expect(messages).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, DEBUG_LOG_FLUSH_MS + 200));
    expect(linesOf(messages)).toEqual([expect.stringMatching(/GET \/event_subscriptions\/esb_\w+ -> 200/)]);
  });

  test("the native plugin's Cancel (sent by the engine before it stops a provider) sends the lines waiting", async () => {
    const messages = await oneGetServer();
    await getClient().eventSubscriptions.get(fakeId("esb_", 1));
    expect(messages).toEqual([]);
    await new Promise<void>((resolve, reject) =>
      SERVER.cancel!({ request: undefined } as never, (err) => (err ? reject(err) : resolve())),
    );
    expect(linesOf(messages)).toEqual([expect.stringMatching(/GET \/event_subscriptions\/esb_\w+ -> 200/)]);
  });

  /** A line as the client logs it, through the provider's logger (SERVICE_LOG unset). */
  const logLine = (line: string) => providerLogger()!(line, {} as never);

  test(`lines reaching ${DEBUG_LOG_BATCH_CHARS} characters (a newline each) go at once, as one message; a flush with none waiting sends nothing`, async () => {
    const messages = await spyDebug();
    await flushDebugLog();
    expect(messages).toEqual([]);
    logLine("short");
    const long = "x".repeat(DEBUG_LOG_BATCH_CHARS - "short\n".length - 1);
    logLine(long.slice(0, -1));
    expect(messages).toEqual([]); // one character short
    await flushDebugLog();
    logLine("short");
    logLine(long);
    expect(messages).toEqual([`short\n${long.slice(0, -1)}`, `short\n${long}`]);
    logLine("next");
    await flushDebugLog();
    expect(messages.at(-1)).toBe("next");
  });

  test("SERVICE_LOG is read without case or surrounding spaces: ' Off ' logs nothing", () => {
    process.env.SERVICE_LOG = " Off ";
    expect(providerLogger()).toBeUndefined();
    process.env.SERVICE_LOG = "";
    expect(providerLogger()).toBeInstanceOf(Function);
  });

  test("a process about to exit for want of work sends the lines waiting; the hook is installed once", async () => {
    const messages = await spyDebug();
    logLine("first");
    const hooks = process.listenerCount("beforeExit");
    logLine("second");
    logLine("third");
    expect(process.listenerCount("beforeExit")).toBe(hooks);
    expect(messages).toEqual([]);
    process.emit("beforeExit", 0);
    expect(messages).toEqual(["first\nsecond\nthird"]);
  });

  // The signal hooks are installed once per module load, and each runs once: SIGINT is tried
  // with another listener, SIGTERM alone. process.kill is replaced: a signal raised again in
  // earnest would end the test run.
  test("SIGINT sends the lines waiting at once, and leaves the signal to the process's other listener", async () => {
    const messages = await spyDebug();
    const kill = jest.spyOn(process, "kill").mockImplementation(() => true);
    logLine("before the signal");
    const other = () => {};
    process.on("SIGINT", other);
    try {
      process.emit("SIGINT");
      const atOnce = [...messages];
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(atOnce).toEqual(["before the signal"]);
      expect(kill).not.toHaveBeenCalled();
    } finally {
      process.off("SIGINT", other);
    }
  });

  test("SIGTERM alone: waits for Pulumi's log at most a second, then raises the signal again", async () => {
    await flushDebugLog();
    const tried: string[] = [];
    jest.spyOn(pulumi.log, "debug").mockImplementation((msg: string) => {
      tried.push(msg);
      return new Promise<void>(() => {}); // never sent
    });
    const kill = jest.spyOn(process, "kill").mockImplementation(() => true);
    logLine("before the signal");
    const started = Date.now();
    process.emit("SIGTERM");
    // Checked once the signal is raised again (to the spy): a failure before that would leave
    // the hook to raise it in earnest after the test.
    const triedAtOnce = [...tried];
    while (kill.mock.calls.length === 0 && Date.now() - started < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waited = Date.now() - started;
    // Pulumi's log answers again, so that later flushes do not wait on the message never sent.
    jest.spyOn(pulumi.log, "debug").mockResolvedValue();
    logLine("after the signal");
    await flushDebugLog();
    expect(triedAtOnce).toEqual(["before the signal"]);
    expect(kill.mock.calls).toEqual([[process.pid, "SIGTERM"]]);
    expect(waited).toBeGreaterThanOrEqual(900);
  });

  test("a warning that cannot reach Pulumi's log is dropped, never an error", async () => {
    const tried: string[] = [];
    jest.spyOn(pulumi.log, "warn").mockImplementation(async (msg: string) => {
      tried.push(msg);
      throw new Error("the engine is gone");
    });
    await expect(warn("a note")).resolves.toBeUndefined();
    expect(tried).toEqual(["a note"]);
  });

  test("SIGINT (how the engine stops a provider, after Cancel) sends the lines waiting, then ends the process", async () => {
    state.server = await startScriptedServer([json(200, wireSubscription("http://svc", 1))]);
    // The built runtime (npm run build), as deployed providers load it, in a process of its own,
    // Pulumi's log writing to stdout.
    const script = `
      const pulumi = require("@pulumi/pulumi");
      pulumi.log.debug = async (m) => void process.stdout.write("sent: " + m + "\\n");
      // The batch timer never fires here, however slow the machine: only the signal sends the line.
      const setTimer = global.setTimeout;
      global.setTimeout = (fn, ms, ...args) => (ms === ${DEBUG_LOG_FLUSH_MS} ? { unref() {} } : setTimer(fn, ms, ...args));
      const runtime = require(${JSON.stringify(path.join(REPO, "dist/provider/impl/runtime.js"))});
      const values = { "service:apiKey": "sk_test", "service:baseUrl": process.env.URL };
      runtime.configure({ config: { get: (k) => values[k] } })
        .then(() => runtime.getClient().eventSubscriptions.get(process.env.ID))
        .then(() => { process.stdout.write("ready\\n"); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, ["-e", script], {
      cwd: REPO,
      env: { ...process.env, URL: state.server.url, ID: fakeId("esb_", 1), SERVICE_LOG: "" },
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

/**
 * The engine's address, the provider process's last argument, reaches `@pulumi/pulumi`'s log
 * even when its settings were read before `configure` (without it, debug lines are dropped).
 */
describe("connectLogToEngine", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const state = require("@pulumi/pulumi/runtime/state") as {
    getStore(): { settings: { options: { engineAddr?: string } } };
  };
  const options = state.getStore().settings.options;
  const saved = { argv: process.argv, env: process.env.PULUMI_NODEJS_ENGINE, addr: options.engineAddr };
  afterEach(() => {
    process.argv = saved.argv;
    options.engineAddr = saved.addr;
    if (saved.env === undefined) delete process.env.PULUMI_NODEJS_ENGINE;
    else process.env.PULUMI_NODEJS_ENGINE = saved.env;
  });

  it("configure hands the engine address to Pulumi's log, after --logflow's flags too", async () => {
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
    await configure({ config: configBag({}) });
    expect(options.engineAddr).toBe("127.0.0.1:45678");
    expect(process.env.PULUMI_NODEJS_ENGINE).toBe("127.0.0.1:45678");
  });

  it.each<[string, string[], string | undefined]>([
    ["a host and port", ["localhost:45678"], "localhost:45678"],
    ["an IPv6 address and port", ["[::1]:45678"], "[::1]:45678"],
    ["a port of one digit", ["127.0.0.1:7"], "127.0.0.1:7"],
    ["no argument but flags", ["--logtostderr", "-v=9"], undefined],
    ["the tracing endpoint alone", ["--tracing", "127.0.0.1:1"], undefined],
    ["a path before the address", ["/x:1"], undefined],
    ["a port followed by more", ["127.0.0.1:1x"], undefined],
    ["no port", ["127.0.0.1:"], undefined],
  ])("takes the engine's address from the arguments: %s", (_what, args, expected) => {
    delete process.env.PULUMI_NODEJS_ENGINE;
    options.engineAddr = undefined;
    process.argv = [process.argv[0], "dynamic-provider", ...args];
    connectLogToEngine();
    expect([process.env.PULUMI_NODEJS_ENGINE, options.engineAddr]).toEqual([expected, expected]);
  });

  it("keeps an address the process was given already", () => {
    process.env.PULUMI_NODEJS_ENGINE = "127.0.0.1:1111";
    options.engineAddr = "127.0.0.1:2222";
    process.argv = [process.argv[0], "dynamic-provider", "127.0.0.1:3333"];
    connectLogToEngine();
    expect([process.env.PULUMI_NODEJS_ENGINE, options.engineAddr]).toEqual([
      "127.0.0.1:1111",
      "127.0.0.1:2222",
    ]);
  });
});
