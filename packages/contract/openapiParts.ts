/**
 * The parts the OpenAPI document (openapi.ts) is built of: response headers, error responses by
 * error code, success responses, ID and paging parameters, the `Idempotency-Key` and
 * `Service-Version` headers, request bodies, and one public or operator operation.
 *
 * @packageDocumentation
 */
import { idPattern } from "./common";
import { ERROR_CODES } from "./errorCodes";
import { json, type Json } from "./jsonSchema";
import {
  ID_BODY_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  SERVICE_VERSION,
} from "./limits";

/** A response header whose value is a string. */
export const stringHeader = (description: string) => ({ description, schema: { type: "string" } });

export const HEADERS = {
  "Operation-Id": stringHeader("ID of this request's operation (`op_…`), also in an error body's `details`"),
  "Retry-After": stringHeader("seconds to wait before sending again (429, 503)"),
  "Idempotency-Key": stringHeader("the request's `Idempotency-Key`, echoed when the service honours it"),
  "Idempotent-Replayed": stringHeader(
    "`true` when this response is the first response of the same key, replayed",
  ),
};

export const errors = (...codes: number[]) => {
  const byStatus = new Map<number, number[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  // No sort: an object lists its integer keys ("400", "404") in ascending order, whatever the order they were set in.
  for (const [status, list] of byStatus) {
    out[String(status)] = {
      description: list.map((c) => `${c}: ${ERROR_CODES[c as keyof typeof ERROR_CODES].when}`).join("; "),
      headers: { "Operation-Id": HEADERS["Operation-Id"] },
      ...json("Error"),
    };
  }
  out.default = { description: "any other error (see the error codes)", ...json("Error") };
  return out;
};

/** Errors every public request can get: auth, version, headers, rate limit, server. */
export const COMMON = [201, 202, 203, 217, 218, 216, 210, 211, 226, 500];
export const BODY = [213, 214, 215, 413];

export const ok = (status: number, description: string, schema?: string, extraHeaders: string[] = []) => ({
  [String(status)]: {
    description,
    headers: Object.fromEntries(
      ["Operation-Id", ...extraHeaders].map((h) => [h, HEADERS[h as keyof typeof HEADERS]]),
    ),
    ...(schema ? json(schema) : {}),
  },
});

/**
 * Schema of an ID parameter of one kind: the pattern the service checks (`prefix` + 27 base62
 * characters), so that a client (or a property-based tester) knows that any other value is
 * rejected (400 / 227 in a path, 400 / 215 in `before_id`) rather than looked up.
 */
export const idSchema = (prefix: string) => ({ type: "string", pattern: idPattern(prefix).source });
export const idParam = (prefix: string, what: string) => ({
  name: "id",
  in: "path",
  required: true,
  description: `ID of the ${what} (\`${prefix}\` + ${ID_BODY_LENGTH} base62 characters)`,
  schema: idSchema(prefix),
});
export const pageParams = (prefix: string) => [
  {
    name: "limit",
    in: "query",
    description: `page size, ${PAGE_LIMIT_MIN} to ${PAGE_LIMIT_MAX} (default ${PAGE_LIMIT_MAX})`,
    schema: { type: "integer", minimum: PAGE_LIMIT_MIN, maximum: PAGE_LIMIT_MAX },
  },
  {
    name: "before_id",
    in: "query",
    description: `return resources older than this ID (\`${prefix}…\`); from \`next_page_uri\``,
    schema: idSchema(prefix),
  },
];
export const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  description: "1 to 255 visible ASCII characters; a repeat within 24 hours gets the first response",
  schema: { type: "string", pattern: IDEMPOTENCY_KEY_PATTERN.source },
};
export const serviceVersion = {
  name: "Service-Version",
  in: "header",
  required: true,
  schema: { type: "string", const: SERVICE_VERSION },
};
export const body = (name: string) => ({ required: true, ...json(name) });

/** One public operation. */
export function op(tag: string, id: string, summary: string, responses: Json, extra: Json = {}): Json {
  const { parameters, ...rest } = extra as { parameters?: unknown[] };
  return {
    tags: [tag],
    operationId: id,
    summary,
    parameters: [serviceVersion, ...(parameters ?? [])],
    ...rest,
    responses,
  };
}
