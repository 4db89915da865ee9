/**
 * The client's debug log of requests: one entry per attempt (method, path, status or error,
 * duration, the service's `Operation-Id`, attempt number) and one per retry wait. Off unless a
 * `logger` is given or `SERVICE_LOG=debug` is set. An entry never holds a header, a body or a
 * query value, so no API key or destination secret can reach a log through it.
 *
 * @packageDocumentation
 */
import { ServiceError } from "./errors";

/** One attempt of a call, logged once its outcome is known. */
export interface AttemptLogEntry {
  kind: "attempt";
  /** HTTP method, e.g. `GET`. */
  method: string;
  /** Path with its query's values replaced by `…` (names kept), e.g. `/event_subscriptions?limit=…`. */
  path: string;
  /** Number of this attempt, from 1. */
  attempt: number;
  /** Most attempts the call may make (`maxRetries + 1`; the retry budget may end it sooner). */
  maxAttempts: number;
  /** From sending to the whole answer read (or the failure), in **milliseconds**. */
  durationMs: number;
  /** HTTP status of the answer; absent when none came. */
  status?: number;
  /** Why no answer came: an error code (`ECONNRESET`, `SELF_SIGNED_CERT_IN_CHAIN`, …) or `timeout`. */
  error?: string;
  /** The service's ID of the request (`Operation-Id` response header), when it sent one. */
  operationId?: string;
}

/** A retry about to wait: the next attempt's number and the wait. */
export interface RetryLogEntry {
  kind: "retry";
  method: string;
  /** As in {@link AttemptLogEntry.path}. */
  path: string;
  /** Number of the attempt that follows the wait. */
  attempt: number;
  maxAttempts: number;
  /** Wait before it (`Retry-After` or backoff), in **milliseconds**. */
  delayMs: number;
}

/** An entry of the request log. */
export type RequestLogEntry = AttemptLogEntry | RetryLogEntry;

/**
 * Receives the request log: `line` is the entry as one line of text (no newline), e.g.
 * `service: GET /event_subscriptions/esb_… -> 503 in 4 ms (attempt 1 of 5, operation op_…)`.
 * Called synchronously; what it throws is ignored.
 */
export type RequestLogger = (line: string, entry: RequestLogEntry) => void;

/** `path` with each query value replaced by `…` (a value could be a secret; names are kept). */
export function redactQuery(path: string): string {
  const q = path.indexOf("?");
  if (q < 0) return path;
  const params = path
    .slice(q + 1)
    .split("&")
    .map((p) => {
      const eq = p.indexOf("=");
      return eq < 0 ? p : `${p.slice(0, eq)}=…`;
    });
  return `${path.slice(0, q)}?${params.join("&")}`;
}

/** One line of text for an entry (see {@link RequestLogger}). */
export function formatLogEntry(e: RequestLogEntry): string {
  const of = `attempt ${e.attempt} of ${e.maxAttempts}`;
  if (e.kind === "retry") return `service: ${e.method} ${e.path}: ${of} in ${Math.round(e.delayMs)} ms`;
  const ms = Math.round(e.durationMs);
  const outcome = e.status !== undefined ? `${e.status} in ${ms} ms` : `${e.error ?? "error"} after ${ms} ms`;
  const op = e.operationId ? `, operation ${e.operationId}` : "";
  return `service: ${e.method} ${e.path} -> ${outcome} (${of}${op})`;
}

/** Writes each line to the process's stderr. */
export const stderrLogger: RequestLogger = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * The logger that the environment asks for: `SERVICE_LOG=debug` gives {@link stderrLogger};
 * unset, empty or `off` gives none.
 * @throws ServiceError naming `SERVICE_LOG` and its values for any other value.
 */
export function loggerFromEnv(
  value: string | undefined = process.env.SERVICE_LOG,
): RequestLogger | undefined {
  const v = (value ?? "").trim().toLowerCase();
  if (v === "" || v === "off") return undefined;
  if (v === "debug") return stderrLogger;
  throw new ServiceError(`SERVICE_LOG must be "debug" or "off" (or unset), got ${JSON.stringify(value)}`);
}
