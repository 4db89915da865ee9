/**
 * The OpenAPI 3.1 document of the service (and of the emulator's operator endpoints), generated
 * from the contract's schemas: every path, parameter, request body, response body, error body,
 * header that matters and the bearer auth schemes. Written to `docs/openapi.json` by
 * `npm run docs:contract`; served by the emulator at `GET /openapi.json`.
 *
 * Schemas are converted with zod's `z.toJSONSchema` (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1) and their property names renamed to the wire's snake_case (the operator's fault
 * configuration keeps its camelCase names, as on the wire).
 *
 * @packageDocumentation
 */
import { idPattern } from "./common";
import { ERROR_CODES } from "./errors";
import { COMPONENTS, json, type Json } from "./jsonSchema";
import { ID_BODY_LENGTH, ID_PREFIX, PAGE_LIMIT_MAX, PAGE_LIMIT_MIN, SERVICE_VERSION } from "./limits";

/** Version of the document (`info.version`): the service's `Service-Version`. */
export const OPENAPI_INFO_VERSION = SERVICE_VERSION;

const HEADERS = {
  "Operation-Id": {
    description: "ID of this request's operation (`op_…`), also in an error body's `details`",
    schema: { type: "string" },
  },
  "Retry-After": {
    description: "seconds to wait before sending again (429, 503)",
    schema: { type: "string" },
  },
  "Idempotency-Key": {
    description: "the request's `Idempotency-Key`, echoed when the service honours it",
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this response is the first response of the same key, replayed",
    schema: { type: "string" },
  },
};

const errors = (...codes: number[]) => {
  const byStatus = new Map<number, number[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code as keyof typeof ERROR_CODES].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Json = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
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
const COMMON = [201, 202, 203, 217, 218, 216, 210, 211, 226, 500];
const BODY = [213, 214, 215, 413];

const ok = (status: number, description: string, schema?: string, extraHeaders: string[] = []) => ({
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
const idSchema = (prefix: string) => ({ type: "string", pattern: idPattern(prefix).source });
const idParam = (prefix: string, what: string) => ({
  name: "id",
  in: "path",
  required: true,
  description: `ID of the ${what} (\`${prefix}\` + ${ID_BODY_LENGTH} base62 characters)`,
  schema: idSchema(prefix),
});
const pageParams = (prefix: string) => [
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
const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  description: "1 to 255 visible ASCII characters; a repeat within 24 hours gets the first response",
  schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,255}$" },
};
const serviceVersion = {
  name: "Service-Version",
  in: "header",
  required: true,
  schema: { type: "string", const: SERVICE_VERSION },
};
const body = (name: string) => ({ required: true, ...json(name) });

/** One public operation. */
function op(tag: string, id: string, summary: string, responses: Json, extra: Json = {}): Json {
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

/** One operator operation (admin key, no `Service-Version`). */
function operatorOp(id: string, summary: string, responses: Json, extra: Json = {}): Json {
  return { tags: ["operator"], operationId: id, summary, security: [{ adminKey: [] }], ...extra, responses };
}

const SUB = ID_PREFIX.eventSubscription;
const DEST = ID_PREFIX.eventDestination;
const REPORT = ID_PREFIX.abuseReport;

/**
 * The emulator's default TCP port (`service-emulator` without `--port`, `npm run demo`), and the
 * port of the document's first server.
 */
export const EMULATOR_DEFAULT_PORT = 8787;

/**
 * Builds the OpenAPI 3.1 document (a plain JSON object), the same on every call.
 */
export function buildOpenApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: {
      title: "Event subscriptions, event destinations and abuse reports",
      version: OPENAPI_INFO_VERSION,
      description:
        "The service as this package's client, providers and emulator use it. Field names on the wire are " +
        "snake_case. Every request needs `Authorization: Bearer <API key>` and `Service-Version: 2`. " +
        "The `operator` tag lists the emulator's own endpoints (admin key), which the service does not have.",
    },
    servers: [
      { url: `http://127.0.0.1:${EMULATOR_DEFAULT_PORT}`, description: "the emulator's default address" },
      {
        url: "{base_url}",
        description: "the service: its base URL, as given to the client (`SERVICE_BASE_URL`)",
        variables: {
          base_url: {
            default: "https://service.example.com",
            description:
              "base URL of the service, with a path prefix if it has one, without a trailing slash",
          },
        },
      },
    ],
    security: [{ apiKey: [] }],
    tags: [
      { name: "abuse reports" },
      { name: "event subscriptions" },
      { name: "event destinations" },
      { name: "operator", description: "emulator only: admin key; no Service-Version" },
    ],
    paths: {
      "/abuse_reports": {
        post: op(
          "abuse reports",
          "createAbuseReport",
          "File an abuse report",
          {
            ...ok(201, "the report, PENDING", "AbuseReport", ["Idempotency-Key", "Idempotent-Replayed"]),
            ...errors(...COMMON, ...BODY, 221, 240, 241),
          },
          { parameters: [idempotencyKey], requestBody: body("AbuseReportCreate") },
        ),
      },
      "/abuse_reports/{id}": {
        get: op(
          "abuse reports",
          "getAbuseReport",
          "Read an abuse report",
          { ...ok(200, "the report", "AbuseReport"), ...errors(...COMMON, 221, 227, 404) },
          { parameters: [idParam(REPORT, "abuse report")] },
        ),
      },
      "/event_subscriptions": {
        get: op(
          "event subscriptions",
          "listEventSubscriptions",
          "List event subscriptions, newest first",
          { ...ok(200, "one page", "EventSubscriptionList"), ...errors(...COMMON, 215, 233) },
          { parameters: pageParams(SUB) },
        ),
        post: op(
          "event subscriptions",
          "createEventSubscription",
          "Create an event subscription",
          {
            ...ok(201, "the subscription", "EventSubscription", ["Idempotency-Key", "Idempotent-Replayed"]),
            ...errors(...COMMON, ...BODY, 223, 238, 240),
          },
          { parameters: [idempotencyKey], requestBody: body("EventSubscriptionCreate") },
        ),
      },
      "/event_subscriptions/{id}": {
        get: op(
          "event subscriptions",
          "getEventSubscription",
          "Read an event subscription",
          { ...ok(200, "the subscription", "EventSubscription"), ...errors(...COMMON, 227, 404) },
          { parameters: [idParam(SUB, "event subscription")] },
        ),
        patch: op(
          "event subscriptions",
          "updateEventSubscription",
          "Update an event subscription (fields left out keep their value)",
          {
            ...ok(200, "the subscription", "EventSubscription"),
            ...errors(...COMMON, ...BODY, 223, 227, 238, 404),
          },
          { parameters: [idParam(SUB, "event subscription")], requestBody: body("EventSubscriptionUpdate") },
        ),
        delete: op(
          "event subscriptions",
          "deleteEventSubscription",
          "Delete an event subscription",
          { ...ok(204, "deleted"), ...errors(...COMMON, 227, 404) },
          { parameters: [idParam(SUB, "event subscription")] },
        ),
      },
      "/event_subscriptions/{id}/sources/{type}": {
        get: op(
          "event subscriptions",
          "getEventSource",
          "Read one source of an event subscription",
          { ...ok(200, "the source", "EventSource"), ...errors(...COMMON, 227, 404) },
          {
            parameters: [
              idParam(SUB, "event subscription"),
              { name: "type", in: "path", required: true, schema: { type: "string" } },
            ],
          },
        ),
      },
      "/event_destinations": {
        get: op(
          "event destinations",
          "listEventDestinations",
          "List event destinations, newest first",
          { ...ok(200, "one page", "EventDestinationList"), ...errors(...COMMON, 215, 233) },
          { parameters: pageParams(DEST) },
        ),
        post: op(
          "event destinations",
          "createEventDestination",
          "Create an event destination",
          {
            ...ok(201, "the destination, secrets blanked", "EventDestination", [
              "Idempotency-Key",
              "Idempotent-Replayed",
            ]),
            ...errors(...COMMON, ...BODY, 240),
          },
          { parameters: [idempotencyKey], requestBody: body("EventDestinationCreate") },
        ),
      },
      "/event_destinations/{id}": {
        get: op(
          "event destinations",
          "getEventDestination",
          "Read an event destination (secrets blanked)",
          { ...ok(200, "the destination", "EventDestination"), ...errors(...COMMON, 227, 404) },
          { parameters: [idParam(DEST, "event destination")] },
        ),
        patch: op(
          "event destinations",
          "updateEventDestination",
          "Update an event destination (fields left out keep their value; target replaced whole)",
          { ...ok(200, "the destination", "EventDestination"), ...errors(...COMMON, ...BODY, 227, 404) },
          { parameters: [idParam(DEST, "event destination")], requestBody: body("EventDestinationUpdate") },
        ),
        delete: op(
          "event destinations",
          "deleteEventDestination",
          "Delete an event destination no subscription uses",
          { ...ok(204, "deleted"), ...errors(...COMMON, 227, 404, 409) },
          { parameters: [idParam(DEST, "event destination")] },
        ),
      },
      "/_operator/abuse_reports/{id}/review": {
        post: operatorOp(
          "reviewAbuseReport",
          "Set the status of hostnames of any account's abuse report",
          { ...ok(200, "the report", "AbuseReport"), ...errors(203, 213, 214, 215, 227, 404) },
          { parameters: [idParam(REPORT, "abuse report")], requestBody: body("Review") },
        ),
      },
      "/_operator/faults": {
        get: operatorOp("getFaults", "The fault configuration in force", {
          ...ok(200, "the configuration", "FaultConfig"),
          ...errors(203),
        }),
        put: operatorOp(
          "setFaults",
          "Replace the fault configuration (`{}` switches faults off)",
          { ...ok(200, "the configuration now in force", "FaultConfig"), ...errors(203, 213, 214, 215) },
          { requestBody: body("FaultConfig") },
        ),
      },
      "/_operator/requests": {
        get: operatorOp(
          "getRequestLog",
          "The request log, oldest first, a page at a time",
          { ...ok(200, "one page", "RequestLogPage"), ...errors(203, 215, 233) },
          {
            parameters: [
              {
                name: "since",
                in: "query",
                description: "entries with a greater `seq`",
                schema: { type: "integer", minimum: 0 },
              },
              {
                name: "limit",
                in: "query",
                description: "page size, 1 to 1000",
                schema: { type: "integer", minimum: 1, maximum: 1000 },
              },
            ],
          },
        ),
        delete: operatorOp("clearRequestLog", "Empty the request log", {
          ...ok(204, "emptied"),
          ...errors(203),
        }),
      },
      "/openapi.json": {
        get: {
          tags: ["operator"],
          operationId: "getOpenApiDocument",
          summary: "This document (emulator only; no authentication)",
          security: [],
          responses: {
            "200": {
              description: "the OpenAPI document",
              content: { "application/json": { schema: { type: "object" } } },
            },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "an API key of the account" },
        adminKey: {
          type: "http",
          scheme: "bearer",
          description: "the emulator's admin key (operator endpoints)",
        },
      },
      schemas: COMPONENTS,
    },
  };
}
