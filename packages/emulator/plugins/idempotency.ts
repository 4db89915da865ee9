/**
 * Idempotency plugin: a `POST` that creates a resource and carries an `Idempotency-Key` runs at
 * most once per account and key within {@link IDEMPOTENCY_KEY_TTL_MS} and among the account's
 * newest `limits.idempotencyKeysPerAccount` keys (older ones are forgotten): the key is stored in the
 * same transaction as the resource, a repeat with the same method, path and body gets the first
 * response again (plus `Idempotent-Replayed: true`), and a repeat with another request gets
 * 409 / 240. Every response to such a POST echoes the key: that echo is how a client tells that
 * the server honours keys. With `idempotency` off the header is ignored entirely.
 * Reference: docs/service-api.md § Idempotency keys.
 *
 * @packageDocumentation
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { matchedRoute, sha256, type EmulatorContext, type WithContext } from "../context";
import { ServiceError } from "../errors";

/** How long the emulator remembers an `Idempotency-Key`: 24 hours, in **milliseconds**. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** Well-formed `Idempotency-Key` values: 1 to 255 visible ASCII characters (a UUID fits). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The `Idempotency-Key` to echo on the response: the request's own key, when it is a
 * well-formed key on a create route and keys are honoured; otherwise `undefined`.
 */
function echoedIdempotencyKey(ctx: EmulatorContext, request: FastifyRequest): string | undefined {
  if (!ctx.control.idempotencyKeys || request.method !== "POST") return undefined;
  const key = request.headers["idempotency-key"];
  if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) return undefined;
  return matchedRoute(request)?.idempotent ? key : undefined;
}

/**
 * Answers a create with 201 and the body `run()` renders. With an `Idempotency-Key` (when
 * honoured), `run` happens inside the store's `idempotentCreate`: at most once per account and
 * key, in the transaction that stores the key; a repeat gets the first response again.
 *
 * @throws ServiceError 215 for a malformed key, 240 for a key reused with another request, and
 * whatever `run` throws.
 */
export function create(
  ctx: EmulatorContext,
  request: FastifyRequest,
  reply: FastifyReply,
  run: () => unknown,
): FastifyReply {
  const raw = ctx.control.idempotencyKeys ? request.headers["idempotency-key"] : undefined;
  if (raw === undefined) return reply.code(201).send(run());
  if (typeof raw !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(raw)) {
    throw new ServiceError(
      215,
      "Idempotency-Key: must be 1 to 255 visible ASCII characters (a UUID, for example)",
    );
  }
  const body = typeof request.body === "string" ? request.body : "";
  const fingerprint = sha256(`${request.method} ${request.url}\n${body}`).toString("hex");
  const result = ctx.store.idempotentCreate(
    ctx.accountOf(request).id,
    {
      key: raw,
      fingerprint,
      nowMs: ctx.clock(),
      ttlMs: IDEMPOTENCY_KEY_TTL_MS,
      maxPerAccount: ctx.limits.idempotencyKeysPerAccount,
    },
    () => ({ status: 201, body: JSON.stringify(run()) }),
  );
  if (result.replayed) {
    ctx.replays.add(request);
    reply.header("idempotent-replayed", "true");
  }
  return reply.code(result.status).type("application/json; charset=utf-8").send(result.body);
}

/** Echoes a create's `Idempotency-Key` when keys are honoured (`onSend`). */
export const idempotencyPlugin = fp<WithContext>(
  (app, { ctx }, done) => {
    app.addHook("onSend", (request, reply, payload, next) => {
      const key = echoedIdempotencyKey(ctx, request);
      if (key !== undefined) reply.header("idempotency-key", key);
      next(null, payload);
    });
    done();
  },
  { name: "idempotency", dependencies: ["errors"] },
);
