/**
 * Errors thrown by the client, and the one factory ({@link makeAPIError}) that turns an HTTP error
 * response into the right class.
 *
 * ```
 * ServiceError
 * ├── APIError {status, errorCode, operationId, body}      an HTTP error response
 * │   ├── BadRequestError            400
 * │   ├── AuthenticationError        401
 * │   ├── PermissionDeniedError      403
 * │   ├── NotFoundError              404 (whatever the body)
 * │   ├── ConflictError              409
 * │   ├── PayloadTooLargeError       413
 * │   ├── UnsupportedMediaTypeError  415
 * │   ├── RateLimitError             429 (retryAfterSeconds)
 * │   └── InternalServerError        5xx
 * ├── APIConnectionError             no HTTP response (reset, refused, DNS…)
 * │   ├── APIConnectionTimeoutError  no complete response within timeoutMs
 * │   └── APICertificateError        the service's TLS certificate was rejected (untrusted CA…)
 * ├── APIResponseValidationError     a response that does not match its schema
 * └── ValidationError                input rejected on the client, before any request
 * ```
 *
 * No error ever holds the API key: the client never puts request headers in an error, and
 * scrubs the key from any response text before it reaches an error (see `ServiceClient`).
 *
 * Reference: docs/service-api.md § Errors.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import { keysToCamel } from "service-contract";
import { ErrorBody } from "service-contract";

/** One problem found by client-side validation. `message` starts with `field`. */
export interface ValidationIssue {
  /** Path of the offending input in TypeScript (camelCase) form: `description`, `urls[2]`, `target.firehose.auth`. */
  field: string;
  /** E.g. `description: at most 255 characters, got 256`. */
  message: string;
}

/** Base class of every error thrown by this client. */
export class ServiceError extends Error {
  override name = "ServiceError";

  /** A plain-object form for logs and `JSON.stringify` (`Error` itself serializes to `{}`). */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [k, v] of Object.entries(this)) out[k] = v; // `cause` is not enumerable: left out
    return out;
  }
}

/** Everything the factory needs to know about an HTTP error response. */
export interface APIErrorInit {
  /** HTTP status code (≥ 400). */
  status: number;
  /** Request method, e.g. `POST`. */
  method: string;
  /** Request path without the origin, e.g. `/event_subscriptions/esb_…`. */
  path: string;
  /** Value of the `Operation-Id` response header, if any. */
  operationId?: string;
  /** Value of the `Retry-After` response header, if any. */
  retryAfter?: string;
  /** Response body as text (already scrubbed of the API key). */
  bodyText: string;
}

/** An HTTP error response from the service. Subclasses name the status; see {@link makeAPIError}. */
export class APIError extends ServiceError {
  override name = "APIError";
  /** HTTP status code. */
  readonly status: number;
  /** Service error code, e.g. `ERR_SERVICE_215`; `undefined` when the body has none (e.g. a bare 404). */
  readonly errorCode: string | undefined;
  /** `op_…` from the `Operation-Id` header (or `details.operation_id` of the body). */
  readonly operationId: string | undefined;
  /** Response body: the parsed JSON in wire (snake_case) form, or the raw text when it is not JSON. */
  readonly body: unknown;
  /** `Retry-After` of the response in **seconds**, when present and readable (429 and some 503). */
  readonly retryAfterSeconds: number | undefined;
  /** Method and path of the request, e.g. `GET /event_subscriptions/esb_…`. */
  readonly request: string;
  /** The service's own message (`msg`), without the status and operation id. */
  readonly serviceMessage: string;
  /** Number of attempts made, retries included (set by the retry layer). */
  attempts = 1;
  /**
   * True when this attempt or an earlier one of the same call reached the service and its
   * answer was lost (a reset or timeout after sending, or a 502 / 504 / 503 without
   * `Retry-After`), so the operation may have taken effect even though the call failed (set by
   * the retry layer). A create that fails with `maybeApplied` may have made its resource.
   */
  maybeApplied = false;

  /**
   * Built by {@link makeAPIError} from a response: `init` (status, method, path, headers'
   * operation ID) and `parsed` (the error body's `error_code`, `msg`, `operation_id`, and the
   * body itself). The message reads `POST /path failed with 400 ERR_…: msg (operation op_…)`.
   */
  constructor(
    init: APIErrorInit,
    parsed: { errorCode?: string; msg?: string; operationId?: string; body: unknown },
  ) {
    const operationId = init.operationId ?? parsed.operationId;
    const serviceMessage = parsed.msg ?? `HTTP ${init.status}`;
    const code = parsed.errorCode ? ` ${parsed.errorCode}` : "";
    super(
      `${init.method} ${init.path} failed with ${init.status}${code}: ${serviceMessage}` +
        ` (operation ${operationId ?? "unknown"})`,
    );
    this.status = init.status;
    this.errorCode = parsed.errorCode;
    this.operationId = operationId;
    this.body = parsed.body;
    this.retryAfterSeconds = parseRetryAfter(init.retryAfter);
    this.request = `${init.method} ${init.path}`;
    this.serviceMessage = serviceMessage;
  }
}

/** 400: malformed request, a field breaking a limit, unknown event type, unknown destination ID… */
export class BadRequestError extends APIError {
  override name = "BadRequestError";
}
/** 401: the API key is missing, malformed or unknown. */
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
/** 403: the account is not authorized for this operation (abuse reports, code 221). */
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
/**
 * 404: no such resource in this account, whatever the body. A `DELETE` retried after an
 * ambiguous first attempt (connection lost, 5xx) may answer 404 because the first attempt
 * succeeded; callers that delete may treat this error as success.
 */
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
/** 409: conflict, e.g. deleting an event destination still referenced by a subscription. */
export class ConflictError extends APIError {
  override name = "ConflictError";
}
/** 413: request body over 1 MiB. */
export class PayloadTooLargeError extends APIError {
  override name = "PayloadTooLargeError";
}
/** 415: `Content-Type` is not `application/json`. */
export class UnsupportedMediaTypeError extends APIError {
  override name = "UnsupportedMediaTypeError";
}
/** 429: rate limited (code 226). `retryAfterSeconds` holds the `Retry-After` header in seconds. */
export class RateLimitError extends APIError {
  override name = "RateLimitError";
}
/** Any 5xx status. */
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

/**
 * No HTTP response was received: connection refused or reset, DNS failure, socket closed
 * mid-response. `requestNotSent` is true only when the request provably never left the client
 * (the connection could not be opened), which makes even a POST safe to retry.
 */
export class APIConnectionError extends ServiceError {
  override name = "APIConnectionError";
  /** Method and path of the request. */
  readonly request: string;
  /** True when the failure happened before any byte of the request was sent. */
  readonly requestNotSent: boolean;
  /** Number of attempts made, retries included (set by the retry layer). */
  attempts = 1;
  /**
   * True when this attempt or an earlier one of the same call reached the service and its
   * answer was lost (a reset or timeout after sending, or a 502 / 504 / 503 without
   * `Retry-After`), so the operation may have taken effect even though the call failed (set by
   * the retry layer). A create that fails with `maybeApplied` may have made its resource.
   */
  maybeApplied = false;

  /**
   * Built by the transport when no HTTP response came back.
   * @param message - what failed, e.g. `POST /event_destinations: connection reset`.
   * @param opts - `request` (method and path), `requestNotSent` (nothing reached the network),
   *   `cause` (the underlying error).
   */
  constructor(message: string, opts: { request: string; requestNotSent?: boolean; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.request = opts.request;
    this.requestNotSent = opts.requestNotSent ?? false;
  }
}

/** No complete response within the per-attempt `timeoutMs` (or a connect/headers/body timeout). */
export class APIConnectionTimeoutError extends APIConnectionError {
  override name = "APIConnectionTimeoutError";
}

/**
 * The TLS handshake failed on the service's certificate: signed by a CA the client does not
 * trust (a private CA: see the client option `caCertificate`, the provider's
 * `service:caCertificate`, or `NODE_EXTRA_CA_CERTS`), expired, or issued for another host name.
 * Nothing was sent (`requestNotSent` is true), and the call is not retried. `code` is Node's
 * code, e.g. `SELF_SIGNED_CERT_IN_CHAIN`, `UNABLE_TO_VERIFY_LEAF_SIGNATURE`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`.
 */
export class APICertificateError extends APIConnectionError {
  override name = "APICertificateError";
  /** Node's (OpenSSL's) code of the rejection. */
  readonly code: string;

  /**
   * Built by the transport when the handshake rejected the certificate.
   * @param message - what failed and what to do about it.
   * @param opts - `request` (method and path), `code`, `cause` (Node's error).
   */
  constructor(message: string, opts: { request: string; code: string; cause?: unknown }) {
    super(message, { request: opts.request, requestNotSent: true, cause: opts.cause });
    this.code = opts.code;
  }
}

/**
 * A successful response whose body is not JSON or does not match the zod schema of the
 * operation. `zodError` is the zod error (absent when the body was not JSON at all).
 */
export class APIResponseValidationError extends ServiceError {
  override name = "APIResponseValidationError";
  /** HTTP status of the response. */
  readonly status: number;
  /** `op_…` from the `Operation-Id` header. */
  readonly operationId: string | undefined;
  /** The zod error, when the body was JSON but did not match. */
  readonly zodError: z.ZodError | undefined;
  /** The body that failed (parsed JSON in camelCase form, or raw text). */
  readonly body: unknown;

  /**
   * Built by a resource method when a response body does not match the contract.
   * @param message - what did not match, e.g. `GET /event_destinations/ed_…: unexpected body`.
   * @param opts - the response's `status`, `operationId`, the `zodError` and the `body`.
   */
  constructor(
    message: string,
    opts: { status: number; operationId?: string; zodError?: z.ZodError; body: unknown },
  ) {
    super(`${message} (operation ${opts.operationId ?? "unknown"})`);
    this.status = opts.status;
    this.operationId = opts.operationId;
    this.zodError = opts.zodError;
    this.body = opts.body;
  }
}

/**
 * Input rejected by client-side validation before any request was sent. `issues` lists every
 * problem found (see `requestValidation.ts`); `message` joins them.
 */
export class ValidationError extends ServiceError {
  override name = "ValidationError";
  /** Every problem found, in input order. */
  readonly issues: ValidationIssue[];

  /**
   * Built by a resource method before sending, from the validation issues.
   * @param issues - every problem found; the message joins their messages with `; `.
   */
  constructor(issues: ValidationIssue[]) {
    super(`Invalid input: ${issues.map((i) => i.message).join("; ")}`);
    this.issues = issues;
  }
}

/**
 * Parses a `Retry-After` header: delay in seconds, or an HTTP date (converted to seconds from
 * now). Returns `undefined` when absent or unreadable, never a negative number.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

const ERROR_CLASSES: Record<number, typeof APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError,
};

/**
 * The one factory of HTTP errors: picks the class by status alone (a 404 is a
 * {@link NotFoundError} whatever its body; any 5xx an {@link InternalServerError}; other
 * statuses a plain {@link APIError}) and reads `error_code`, `msg` and
 * `details.operation_id` from the body when it is the service's error JSON.
 */
export function makeAPIError(init: APIErrorInit): APIError {
  let body: unknown = init.bodyText;
  let parsed: ErrorBody = {};
  try {
    body = JSON.parse(init.bodyText);
    const result = ErrorBody.safeParse(keysToCamel(body));
    if (result.success) parsed = result.data;
  } catch {
    // Not JSON (a proxy page, an empty 404…): keep the text as the body.
  }
  const Class = ERROR_CLASSES[init.status] ?? (init.status >= 500 ? InternalServerError : APIError);
  return new Class(init, {
    errorCode: parsed.errorCode,
    msg: parsed.msg,
    operationId: parsed.details?.operationId,
    body,
  });
}
