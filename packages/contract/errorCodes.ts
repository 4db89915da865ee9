/**
 * The service's errors as data: every error code with its HTTP status and meaning, and the one
 * error body. Reference: docs/service-api.md § Errors.
 *
 * @packageDocumentation
 */
import { z } from "zod";

/**
 * Every error code, with the HTTP status it is sent with and when. Codes marked "(emulator)"
 * are the emulator's own choices where the production service sends no code.
 */
export const ERROR_CODES = {
  201: { status: 401, when: "the Authorization header is missing or not `Bearer <token>`" },
  202: { status: 401, when: "the token is malformed" },
  203: { status: 401, when: "the token is well formed but unknown (or the admin key is wrong)" },
  221: { status: 403, when: "the account is not authorized for abuse reports (create and get)" },
  217: { status: 400, when: "`Service-Version` is present but not `2`" },
  218: { status: 400, when: "`Service-Version` is missing" },
  216: { status: 400, when: "a body was sent without a Content-Type" },
  210: { status: 415, when: "the Content-Type is not `application/json`" },
  211: { status: 400, when: "a body was sent to a GET or DELETE" },
  213: { status: 400, when: "the body is not valid JSON, or not a JSON object" },
  214: { status: 400, when: "an unknown request field (the message lists the supported fields)" },
  215: {
    status: 400,
    when: "a field has the wrong type, is missing, or breaks a limit (the message names the field)",
  },
  223: { status: 400, when: "an ID in the body does not name a resource of the account" },
  227: { status: 400, when: "an ID in the path has the wrong prefix" },
  233: { status: 400, when: "`limit` is not between 1 and its maximum" },
  238: { status: 400, when: "an unknown event type" },
  404: { status: 404, when: "no such resource in this account, or no such route (emulator)" },
  405: {
    status: 405,
    when: "the method is not allowed on the path; `Allow` lists those that are (emulator)",
  },
  409: { status: 409, when: "the event destination is still used by a subscription (emulator)" },
  240: { status: 409, when: "an `Idempotency-Key` reused with a different request (emulator)" },
  241: { status: 409, when: "the account has the most abuse reports it may (emulator)" },
  413: { status: 413, when: "the request body is over 1 MiB (emulator)" },
  226: { status: 429, when: "rate limited; `Retry-After` gives the seconds to wait" },
  500: { status: 500, when: "unexpected server error, or service unavailable (503, with `Retry-After`)" },
} as const;

/** A service error code (a key of {@link ERROR_CODES}), e.g. `215`. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of each error code. */
export const ERROR_STATUS = Object.fromEntries(
  Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status]),
) as { readonly [C in ErrorCode]: (typeof ERROR_CODES)[C]["status"] };

/**
 * Body of an error response (camelCase form):
 * `{ errorCode: "ERR_SERVICE_218", statusCode: 400, msg: "…", details: { operationId: "op_…" } }`.
 * Every field is optional when parsing, because a 404 or a proxy's error may have any body.
 */
export const ErrorBody = z.object({
  errorCode: z.string().optional(),
  statusCode: z.number().optional(),
  msg: z.string().optional(),
  details: z.object({ operationId: z.string().optional() }).optional(),
});
/** Body of an error response. */
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The error body the service always sends (every field present), for the OpenAPI document. */
export const ErrorResponse = z.object({
  errorCode: z.string().regex(/^ERR_SERVICE_\d+$/),
  statusCode: z.number().int(),
  msg: z.string(),
  details: z.object({ operationId: z.string() }),
});
/** The error body the service always sends. */
export type ErrorResponse = z.infer<typeof ErrorResponse>;
