/**
 * The single place where emulator errors become HTTP responses (docs/service-api.md § Errors).
 *
 * Every failure inside the emulator is an {@link ErrorReply} carrying a service error code; the
 * code table below fixes its HTTP status. {@link toErrorReply} also maps the few errors Fastify
 * raises by itself (body too large, broken content length, …) onto the same codes, and
 * {@link errorBody} renders the service's one error body shape.
 *
 * @packageDocumentation
 */

import { ERROR_STATUS, type ErrorCode } from "service-contract";

export { ERROR_STATUS, type ErrorCode };

/**
 * Body of every error response (docs/service-api.md § Errors):
 * `{ error_code: "ERR_SERVICE_<code>", status_code, msg, details: { operation_id } }`.
 */
export interface ErrorBody {
  /** `ERR_SERVICE_` followed by the code, e.g. `ERR_SERVICE_215`. */
  error_code: string;
  /** The HTTP status of the response. */
  status_code: number;
  /** Human-readable message; for validation errors it names the field and the limit. */
  msg: string;
  /** Always carries the operation ID, the same value as the `Operation-Id` response header. */
  details: { operation_id: string };
}

/** Extra parts of an error response besides its code and message. */
export interface ErrorReplyOptions {
  /** HTTP status to send instead of the code's usual one (used for injected 503s, code 500). */
  status?: number;
  /** Seconds for a `Retry-After` header (429 / 226 and injected 503s). */
  retryAfterSeconds?: number;
  /** Value of an `Allow` header (405). */
  allow?: string;
}

/**
 * An error the emulator answers with. Throw it anywhere in a request (hook, handler, store
 * transaction); the app's one error handler renders it. A throw inside a store transaction also
 * rolls the transaction back, so a failed request changes nothing.
 */
export class ErrorReply extends Error {
  /** HTTP status of the response. */
  readonly status: number;

  /**
   * @param code - service error code; fixes the HTTP status unless `options.status` is given.
   * @param message - the `msg` of the error body.
   */
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: ErrorReplyOptions = {},
  ) {
    super(message);
    this.name = "ErrorReply";
    this.status = options.status ?? ERROR_STATUS[code];
  }
}

/** Renders the service's error body of `err` for the request with the given operation ID. */
export function errorBody(err: ErrorReply, operationId: string): ErrorBody {
  return {
    error_code: `ERR_SERVICE_${err.code}`,
    status_code: err.status,
    msg: err.message,
    details: { operation_id: operationId },
  };
}

/**
 * Turns anything thrown during a request into a {@link ErrorReply}: service errors pass through,
 * Fastify's own client errors are mapped (413 → 413, 415 → 210, other 4xx → 213), everything
 * else becomes 500. The messages are fixed texts: Fastify's own messages may quote a header
 * (`Unsupported Media Type: …`), so only its error code (`FST_ERR_…`) is passed on.
 */
export function toErrorReply(err: unknown): ErrorReply {
  if (err instanceof ErrorReply) return err;
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === "number") {
    if (status === 413) return new ErrorReply(413, "request body is larger than 1 MiB (1048576 bytes)");
    if (status === 415) return new ErrorReply(210, "Content-Type must be application/json");
    if (status >= 400 && status < 500) {
      const code = (err as { code?: unknown }).code;
      const known = typeof code === "string" && /^FST_[A-Z0-9_]{1,60}$/.test(code) ? ` (${code})` : "";
      return new ErrorReply(213, `the request body could not be read${known}`);
    }
  }
  return new ErrorReply(500, "unexpected server error");
}
