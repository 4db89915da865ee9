/**
 * Validation of the emulator's responses against the committed OpenAPI document
 * (`docs/openapi.json`) with openapi-backend (Ajv underneath): the operation is found by method
 * and path, the body is validated against the schema of its status (or `default`), and a
 * response to a path that names no operation must be an error body.
 *
 * {@link attachResponseValidation} hooks it into an emulator app so that every response it sends
 * in a test is checked; the test helpers' `startEmulator` does it for every emulator a test
 * starts, and `close()` then fails when any response broke the document.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import OpenAPIBackend from "openapi-backend";
import type { FastifyInstance } from "fastify";

/** Absolute path of the committed OpenAPI document. */
export const OPENAPI_PATH = path.resolve(__dirname, "../../docs/openapi.json");

/** One response as the emulator sent it. */
export interface SentResponse {
  method: string;
  /** Path and query as requested, e.g. `/event_subscriptions?limit=2`. */
  url: string;
  status: number;
  /** The body as sent (`""` when none). */
  body: string;
}

let backend: Promise<OpenAPIBackend> | undefined;

/** The document, loaded and compiled once per test process. */
export function openApiBackend(): Promise<OpenAPIBackend> {
  backend ??= new OpenAPIBackend({
    definition: JSON.parse(readFileSync(OPENAPI_PATH, "utf8")),
    // The document's validity is tested against the OpenAPI 3.1 schema elsewhere
    // (test/contract/openapi.test.ts); openapi-backend's own check knows only 3.0.
    quick: true,
    strict: true,
    validate: true,
    ajvOpts: { strict: false, validateFormats: false },
  }).init();
  return backend;
}

/**
 * The ways `res` breaks the document: `[]` when it conforms. A response without a body (HEAD,
 * 204, a reset connection) is checked for having none where the document has no content.
 */
export function responseViolations(api: OpenAPIBackend, res: SentResponse): string[] {
  const [pathname, query = ""] = res.url.split("?", 2);
  if (res.method === "HEAD") return [];
  let body: unknown;
  if (res.body !== "") {
    try {
      body = JSON.parse(res.body);
    } catch {
      return [`body is not JSON: ${res.body.slice(0, 200)}`];
    }
  }
  let operation;
  try {
    operation = api.matchOperation({
      method: res.method.toLowerCase(),
      path: pathname,
      headers: {},
      query: Object.fromEntries(new URLSearchParams(query)),
    });
  } catch {
    operation = undefined;
  }
  if (!operation) {
    // No operation: only an error may answer it (404 no route, 405, a request Node rejected).
    if (res.status < 400) return [`${res.status} on a path the document does not have`];
    // Every operation answers errors with the one error body (its `default`).
    return errorsOf(api.validateResponse(body, "getEventSubscription", res.status));
  }
  if (body === undefined) {
    const expected = (operation.responses ?? {}) as Record<string, { content?: unknown }>;
    const spec = expected[String(res.status)] ?? expected.default;
    if (!spec) return [`status ${res.status} is not in the document`];
    return spec.content ? [`${res.status} without a body, but the document has one`] : [];
  }
  const declared = Object.keys((operation.responses ?? {}) as object);
  if (!declared.includes(String(res.status)) && !declared.includes("default"))
    return [`status ${res.status} is not in the document`];
  return errorsOf(api.validateResponse(body, operation, res.status));
}

function errorsOf(result: { valid: boolean; errors?: unknown[] | null }): string[] {
  if (result.valid) return [];
  return (result.errors ?? []).map((e) => JSON.stringify(e).slice(0, 400));
}

/**
 * Checks every response `app` sends against the document. Violations are collected (a hook must
 * not change the response); `app.close()` rejects with them, so a test that made the emulator
 * break its document fails.
 */
export async function attachResponseValidation(app: FastifyInstance): Promise<{ violations: string[] }> {
  const api = await openApiBackend();
  const violations: string[] = [];
  app.addHook("onSend", (request, reply, payload, done) => {
    // A body the `truncate` fault cuts mid-way is no answer: the connection closes in its middle.
    if (request.fault === "truncate") {
      done(null, payload);
      return;
    }
    const body =
      typeof payload === "string" ? payload : Buffer.isBuffer(payload) ? payload.toString("utf8") : "";
    // Validate against the path the server routed (decoded, normalized), not the raw spelling.
    const template = request.is404 ? undefined : request.routeOptions?.url;
    const params = (request.params ?? {}) as Record<string, string>;
    const routed =
      template === undefined
        ? request.url
        : template.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? "")) +
          (request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "");
    const problems = responseViolations(api, {
      method: request.method,
      url: routed,
      status: reply.statusCode,
      body,
    });
    for (const p of problems)
      violations.push(`${request.method} ${request.url.slice(0, 200)} → ${reply.statusCode}: ${p}`);
    done(null, payload);
  });
  app.addHook("onClose", (_instance, done) => {
    if (violations.length > 0) {
      done(
        new Error(
          `the emulator sent ${violations.length} response(s) that break docs/openapi.json:\n${violations.slice(0, 20).join("\n")}`,
        ),
      );
    } else done();
  });
  return { violations };
}
