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
import { metaOf } from "./common";
import { COMPONENTS, componentNames, type Json } from "./jsonSchema";
import { BODY, COMMON, body, errors, idParam, idempotencyKey, ok, op, pageParams } from "./openapiParts";
import {
  abuseReport,
  eventSubscription,
  OPERATIONS,
  RESOURCE_LIST,
  supports,
  type Operation,
  type ResourceDescriptor,
} from "./descriptors";
import { SERVICE_VERSION } from "./limits";

/** Version of the document (`info.version`): the service's `Service-Version`. */
export const OPENAPI_INFO_VERSION = SERVICE_VERSION;

/** One operator operation (admin key, no `Service-Version`). */
function operatorOp(id: string, summary: string, responses: Json, extra: Json = {}): Json {
  return { tags: ["operator"], operationId: id, summary, security: [{ adminKey: [] }], ...extra, responses };
}

/**
 * The paths of one resource, from its descriptor: `{path}` (list, create) and `{path}/{id}` (get,
 * update, delete), each operation with the errors every request (and every body) may get plus the
 * resource's own ({@link ResourceDescriptor.errors}).
 */
function resourcePaths(r: ResourceDescriptor): [string, Json][] {
  const { names, tag, idPrefix, pulumiType } = r;
  const component = componentNames(pulumiType);
  const blanked = r.fields.writeOnly.length > 0 ? ", write-only secrets blanked" : "";
  const extra = (o: Operation) => (r.errors[o] ?? []) as number[];
  const summary = (o: Operation, words: string) => (r.notes[o] ? `${words} (${r.notes[o]})` : words);
  const id = [idParam(idPrefix, names.singular)];
  /**
   * An operation on one resource (`{path}/{id}`, its ID the first parameter): `<o><PulumiType>`
   * with `method`, summarized by `words` (and the descriptor's note), answering `responses`;
   * `more` adds to the operation (e.g. its `requestBody`).
   */
  const item = (
    o: Operation,
    method: string,
    words: string,
    responses: Json,
    more: Json = {},
  ): [string, string, Json] => [
    `${r.path}/{id}`,
    method,
    op(tag, `${o}${pulumiType}`, summary(o, words), responses, { parameters: id, ...more }),
  ];
  const operations: Record<Operation, () => [string, string, Json]> = {
    list: () => [
      r.path,
      "get",
      op(
        tag,
        `list${pulumiType}s`,
        summary("list", `List ${names.plural}, newest first`),
        { ...ok(200, "one page", component.list), ...errors(...COMMON, 215, 233, ...extra("list")) },
        { parameters: pageParams(idPrefix) },
      ),
    ],
    create: () => [
      r.path,
      "post",
      op(
        tag,
        `create${pulumiType}`,
        summary("create", `Create ${names.article}`),
        {
          ...ok(201, `the ${names.singular}${blanked}`, component.response, [
            "Idempotency-Key",
            "Idempotent-Replayed",
          ]),
          ...errors(...COMMON, ...BODY, ...extra("create")),
        },
        { parameters: [idempotencyKey], requestBody: body(component.create) },
      ),
    ],
    get: () =>
      item("get", "get", `Read ${names.article}`, {
        ...ok(200, `the ${names.singular}${blanked}`, component.response),
        ...errors(...COMMON, ...extra("get"), 227, 404),
      }),
    update: () =>
      item(
        "update",
        "patch",
        `Update ${names.article}: ${String(metaOf(r.schemas.update ?? r.schemas.create)["x-patch"])}`,
        {
          ...ok(200, `the ${names.singular}${blanked}`, component.response),
          ...errors(...COMMON, ...BODY, ...extra("update"), 227, 404),
        },
        { requestBody: body(component.update) },
      ),
    delete: () =>
      item("delete", "delete", `Delete ${names.article}`, {
        ...ok(204, "deleted"),
        ...errors(...COMMON, 227, 404, ...extra("delete")),
      }),
  };
  const paths = new Map<string, Json>();
  for (const o of OPERATIONS.filter((o) => supports(r, o))) {
    const [path, method, operation] = operations[o]();
    paths.set(path, { ...(paths.get(path) ?? {}), [method]: operation });
  }
  return [...paths];
}

/**
 * The emulator's default TCP port (`service-emulator` without `--port`, `npm run demo`), and the
 * port of the document's first server.
 */
export const EMULATOR_DEFAULT_PORT = 8787;

/** The document's `info`: title, version ({@link OPENAPI_INFO_VERSION}) and what it describes. */
function info(): Json {
  return {
    title: "Event subscriptions, event destinations and abuse reports",
    version: OPENAPI_INFO_VERSION,
    description:
      "The service as this package's client, providers and emulator use it. Field names on the wire are " +
      "snake_case. Every request needs `Authorization: Bearer <API key>` and `Service-Version: 2`. " +
      "The `operator` tag lists the emulator's own endpoints (admin key), which the service does not have.",
  };
}

/**
 * The document's `servers`: the emulator at its default address ({@link EMULATOR_DEFAULT_PORT}),
 * then the service at a base URL given as a variable.
 */
function servers(): Json[] {
  return [
    { url: `http://127.0.0.1:${EMULATOR_DEFAULT_PORT}`, description: "the emulator's default address" },
    {
      url: "{base_url}",
      description: "the service: its base URL, as given to the client (`SERVICE_BASE_URL`)",
      variables: {
        base_url: {
          default: "https://service.example.com",
          description: "base URL of the service, with a path prefix if it has one, without a trailing slash",
        },
      },
    },
  ];
}

/** The document's `tags`: one per resource, in {@link RESOURCE_LIST}'s order, then `operator`. */
function tags(): Json[] {
  return [
    ...RESOURCE_LIST.map((r) => ({ name: r.tag })),
    { name: "operator", description: "emulator only: admin key; no Service-Version" },
  ];
}

/**
 * The public path that no resource descriptor gives: `{path}/{id}/sources/{type}` of event
 * subscriptions (read one source), keyed by path.
 */
function eventSourcePaths(): Json {
  return {
    [`${eventSubscription.path}/{id}/sources/{type}`]: {
      get: op(
        eventSubscription.tag,
        "getEventSource",
        "Read one source of an event subscription",
        { ...ok(200, "the source", "EventSource"), ...errors(...COMMON, 227, 404) },
        {
          parameters: [
            idParam(eventSubscription.idPrefix, eventSubscription.names.singular),
            { name: "type", in: "path", required: true, schema: { type: "string" } },
          ],
        },
      ),
    },
  };
}

/**
 * The emulator's own paths (tag `operator`), keyed by path, in the document's order: review of an
 * abuse report, faults, the request log, API keys added and revoked (all with the admin key), and
 * this document (no authentication).
 */
function operatorPaths(): Json {
  return {
    "/_operator/abuse_reports/{id}/review": {
      post: operatorOp(
        "reviewAbuseReport",
        "Set the status of hostnames of any account's abuse report",
        { ...ok(200, "the report", "AbuseReport"), ...errors(203, 213, 214, 215, 227, 404) },
        {
          parameters: [idParam(abuseReport.idPrefix, abuseReport.names.singular)],
          requestBody: body("Review"),
        },
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
    "/_operator/keys": {
      post: operatorOp(
        "addApiKey",
        "Add an API key to the account of another (key rotation)",
        {
          ...ok(201, "the account and its number of keys", "ApiKeyAccount"),
          ...errors(203, 213, 214, 215),
        },
        { requestBody: body("ApiKeyAdd") },
      ),
    },
    "/_operator/keys/revoke": {
      post: operatorOp(
        "revokeApiKey",
        "Revoke an API key: from then on it answers 401 / 203, as an unknown key does",
        {
          ...ok(200, "the account and its number of keys left", "ApiKeyAccount"),
          ...errors(203, 213, 214, 215, 404),
        },
        { requestBody: body("ApiKeyRevoke") },
      ),
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
  };
}

/** The document's `components`: the two bearer security schemes (API key, admin key) and every schema. */
function components(): Json {
  return {
    securitySchemes: {
      apiKey: { type: "http", scheme: "bearer", description: "an API key of the account" },
      adminKey: {
        type: "http",
        scheme: "bearer",
        description: "the emulator's admin key (operator endpoints)",
      },
    },
    schemas: COMPONENTS,
  };
}

/**
 * Builds the OpenAPI 3.1 document (a plain JSON object), the same on every call: its paths are
 * each resource's (`resourcePaths`), then the event source's, then the operator's.
 */
export function buildOpenApiDocument(): Json {
  return {
    openapi: "3.1.0",
    info: info(),
    servers: servers(),
    security: [{ apiKey: [] }],
    tags: tags(),
    paths: {
      ...Object.fromEntries(RESOURCE_LIST.flatMap(resourcePaths)),
      ...eventSourcePaths(),
      ...operatorPaths(),
    },
    components: components(),
  };
}
