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
import { IDEMPOTENCY_KEY_PATTERN } from "service-contract";
import { sha256 } from "../accounts";
import { ErrorReply } from "../errorReply";
import { matchedRoute } from "../routeInfo";

declare module "fastify" {
  interface FastifyRequest {
    /** The request was answered with the replay of an idempotency key's first response. */
    idempotentReplay: boolean;
  }
  interface FastifyReply {
    /**
     * Answers a create with 201 and the body `run()` renders. With an `Idempotency-Key` (when
     * honoured), `run` happens inside the store's `idempotentCreate`: at most once per account
     * and key, in the transaction that stores the key; a repeat gets the first response again.
     *
     * @throws ErrorReply 240 for a key reused with another request, and whatever `run` throws.
     */
    created(run: () => unknown): FastifyReply;
  }
}

/** How long the emulator remembers an `Idempotency-Key`: 24 hours, in **milliseconds**. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;

/** Well-formed `Idempotency-Key` values (the contract's): 1 to 255 visible ASCII characters. */
export { IDEMPOTENCY_KEY_PATTERN };

/** Options of {@link idempotencyPlugin}. */
export interface IdempotencyOptions {
  /** Most responses remembered per account (a count, at least 1). */
  maxPerAccount: number;
}

/**
 * The request's `Idempotency-Key` when keys are honoured and its route is a create (the route's
 * `idempotent` flag, routes/common.ts); else `undefined`.
 */
function keyOf(request: FastifyRequest): string | string[] | undefined {
  if (!request.server.emulator.idempotencyKeys) return undefined;
  return matchedRoute(request)?.idempotent ? request.headers["idempotency-key"] : undefined;
}

/**
 * Keyed creates (see the module comment): the key's format is checked before the body
 * (`preValidation`, 215), `reply.created` runs the create at most once per key, and `onSend`
 * echoes a well-formed key on every answer to a create.
 */
export const idempotencyPlugin = fp<IdempotencyOptions>(
  (app, { maxPerAccount }, done) => {
    app.decorateRequest("idempotentReplay", false);
    app.decorateReply("created", function (this: FastifyReply, run: () => unknown) {
      const { request } = this;
      const key = keyOf(request);
      if (typeof key !== "string") return this.code(201).send(run());
      const fingerprint = sha256(`${request.method} ${request.url}\n${request.rawBody ?? ""}`).toString(
        "hex",
      );
      const result = app.store.idempotentCreate(
        request.accountId(),
        { key, fingerprint, nowMs: app.clock(), ttlMs: IDEMPOTENCY_KEY_TTL_MS, maxPerAccount },
        () => ({ status: 201, body: JSON.stringify(run()) }),
      );
      if (result.replayed) {
        request.idempotentReplay = true;
        this.header("idempotent-replayed", "true");
      }
      return this.code(result.status).type("application/json; charset=utf-8").send(result.body);
    });
    app.addHook("preValidation", (request, _reply, next) => {
      const key = keyOf(request);
      if (key !== undefined && (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key))) {
        next(
          new ErrorReply(
            215,
            "Idempotency-Key: must be 1 to 255 visible ASCII characters (a UUID, for example)",
          ),
        );
        return;
      }
      next();
    });
    app.addHook("onSend", (request, reply, payload, next) => {
      const key = keyOf(request);
      if (typeof key === "string" && IDEMPOTENCY_KEY_PATTERN.test(key)) reply.header("idempotency-key", key);
      next(null, payload);
    });
    done();
  },
  { name: "idempotency", dependencies: ["errors", "validation", "accounts"] },
);
