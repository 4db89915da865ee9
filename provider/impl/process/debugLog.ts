/**
 * The provider process's request log: each request's line to Pulumi's log at debug level, in
 * batches, flushed before the process ends ({@link flushDebugLog}); the connection of
 * `@pulumi/pulumi`'s log to the engine; and warnings ({@link warn}). The queue of waiting lines is
 * process-global state, as are the settings (settings.ts) and the client (client.ts).
 *
 * @packageDocumentation
 */
// Pulumi's log module alone, not the package's root: the root loads the whole SDK (581 more
// modules, about 0.45 s more at every start of the plugin), of which the providers use the log.
import * as pulumiLog from "@pulumi/pulumi/log";
import { loggerFromEnv, type RequestLogger } from "../../../client/log";

/**
 * Longest a request's log line waits, in milliseconds, before the lines waiting go to Pulumi's
 * log as one debug message ({@link flushDebugLog}).
 */
export const DEBUG_LOG_FLUSH_MS = 500;

/** Characters of waiting lines past which they go at once, without waiting for the timer. */
export const DEBUG_LOG_BATCH_CHARS = 256 * 1024;

/** Longest a signal waits for the waiting lines to reach the engine before the process goes on ending. */
const SIGNAL_FLUSH_MS = 1_000;

/** The lines not yet handed to Pulumi's log, their characters, and the timer that will send them. */
const debugLog = {
  lines: [] as string[],
  chars: 0,
  timer: undefined as NodeJS.Timeout | undefined,
  /** Settles when every message handed to Pulumi's log so far has been sent (or failed). */
  sent: Promise.resolve(),
  /** The process's signal and exit hooks are installed (on the first line). */
  hooked: false,
};

/**
 * Sends the request lines waiting for Pulumi's log now, as one debug message (lines joined by
 * newlines, in the order they were logged), and resolves once it and every message before it
 * have been sent (a message that cannot be sent is dropped, never an error).
 *
 * Why batches: the engine shows debug messages only when asked (`pulumi up --debug`, or `-v=N`
 * with `--logtostderr`), and it does not tell a provider whether it was asked: `--debug` is an
 * option of the CLI's display, and `--logtostderr`/`-v` reach a plugin only with `--logflow`
 * (`buildPluginArguments` in Pulumi's `sdk/go/common/resource/plugin/plugin.go`). So the lines
 * are always sent, but a message per request cost a gRPC call each, about 1.1 s of CPU for an
 * `up` of 1,000 (docs/performance.md). Lines wait at most {@link DEBUG_LOG_FLUSH_MS} (or until
 * they reach {@link DEBUG_LOG_BATCH_CHARS}), and are sent before the provider ends: the native
 * plugin flushes on the engine's `Cancel`, which the engine sends to every provider before it
 * stops it, and any process flushes on `SIGINT` or `SIGTERM` (for up to a second, then ends as
 * the signal asks) and before it exits for want of work.
 */
export function flushDebugLog(): Promise<void> {
  if (debugLog.timer) clearTimeout(debugLog.timer);
  debugLog.timer = undefined;
  if (debugLog.lines.length > 0) {
    const message = debugLog.lines.join("\n");
    debugLog.lines = [];
    debugLog.chars = 0;
    // Pulumi's log sends its messages one after the other, in the order they were given.
    debugLog.sent = pulumiLog.debug(message).catch(() => {});
  }
  return debugLog.sent;
}

/** Queues `line` for Pulumi's log ({@link flushDebugLog}), starting the timer that sends it. */
function queueDebugLine(line: string): void {
  hookProcessEnd();
  debugLog.lines.push(line);
  debugLog.chars += line.length + 1;
  if (debugLog.chars >= DEBUG_LOG_BATCH_CHARS) void flushDebugLog();
  else if (!debugLog.timer) {
    debugLog.timer = setTimeout(() => void flushDebugLog(), DEBUG_LOG_FLUSH_MS);
    // The lines never keep a process alive: the exit and signal hooks send them.
    debugLog.timer.unref();
  }
}

/**
 * Once per process: the waiting lines are sent before it exits for want of work (`beforeExit`)
 * and on `SIGINT` or `SIGTERM` (how the engine stops a provider after `Cancel`), for up to
 * {@link SIGNAL_FLUSH_MS}; then the signal ends the process as it would have without this hook,
 * unless another listener of the process handles it.
 */
function hookProcessEnd(): void {
  if (debugLog.hooked) return;
  debugLog.hooked = true;
  process.on("beforeExit", () => {
    if (debugLog.lines.length > 0) void flushDebugLog();
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, SIGNAL_FLUSH_MS).unref());
      void Promise.race([flushDebugLog(), timeout]).then(() => {
        // Alone, this hook kept the signal from ending the process: raise it again, untrapped.
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
}

/**
 * The request logger of the provider: each line at debug level to Pulumi's log (which the
 * engine shows only when asked: `pulumi up --debug`, or `-v=3` or more with `--logtostderr`), in
 * batches ({@link flushDebugLog}), and to stderr as well, at once, with `SERVICE_LOG=debug`; none
 * with `SERVICE_LOG=off`.
 * @throws Error (a ServiceError) naming SERVICE_LOG for any other value.
 */
export function providerLogger(): RequestLogger | undefined {
  const value = (process.env.SERVICE_LOG ?? "").trim().toLowerCase();
  if (value === "off") return undefined;
  const stderr = loggerFromEnv();
  return (line, entry) => {
    stderr?.(line, entry);
    queueDebugLine(line);
  };
}

/**
 * The dynamic-provider process gets the engine's address as its last argument (after
 * `--logtostderr -v=N` with `pulumi up --logflow`) but does not hand it to `@pulumi/pulumi`'s
 * log; doing so makes `pulumi.log` messages reach the engine (its display, `--debug`, and
 * `-v=N --logtostderr`) instead of only the process's stderr, and debug messages at all (they
 * are dropped without an engine). `@pulumi/pulumi` reads `PULUMI_NODEJS_ENGINE` into its
 * settings once, when its state is first made, which may be before `configure`, so the address
 * is set there too (an internal of `@pulumi/pulumi` 3.x; where its layout differs, only the debug lines are lost).
 */
export function connectLogToEngine(): void {
  const args = process.argv.slice(2);
  // Flags come first: `--logtostderr`, `-v=N`, `--tracing <endpoint>`.
  const addr = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "--tracing");
  if (!addr || !/^[\w.[\]:-]+:\d+$/.test(addr)) return;
  process.env.PULUMI_NODEJS_ENGINE ||= addr;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const state = require("@pulumi/pulumi/runtime/state") as {
      getStore(): { settings: { options: { engineAddr?: string } } };
    };
    const options = state.getStore().settings.options;
    options.engineAddr ||= process.env.PULUMI_NODEJS_ENGINE;
  } catch {
    // another layout of @pulumi/pulumi: warnings still reach stderr, debug lines are lost
  }
}

/**
 * Logs a warning through Pulumi's log (shown by `pulumi up`). Never fails: a log that cannot be
 * written (the engine connection gone, say) loses the note, never the operation it describes.
 */
export async function warn(message: string): Promise<void> {
  try {
    await pulumiLog.warn(message);
  } catch {
    // the note is lost; the operation it describes is not
  }
}
