/**
 * Accounts plugin: which account a request speaks for. Decorates `request.account` (set by
 * authentication), `request.accountId()` for handlers, and `app.accountOfRequest` (the account of
 * a request's bearer token without any check's error, for the request log of a faulted request).
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import type { AccountKeys } from "../accounts";
import { ErrorReply } from "../errorReply";
import { TOKEN_PATTERN } from "../options";
import type { Account } from "../records";

declare module "fastify" {
  interface FastifyInstance {
    /** The API keys and the admin key of the app. */
    readonly keys: AccountKeys;
    /** The account of the request's well-formed, known bearer token; `null` otherwise. */
    accountOfRequest(request: FastifyRequest): Account | null;
  }
  interface FastifyRequest {
    /** The account the request authenticated as; `null` before authentication or without one. */
    account: Account | null;
    /** The ID of the request's account. @throws ErrorReply 500 when it has none (a route bug). */
    accountId(): string;
  }
}

/** The token of a request's `Authorization: Bearer <token>` header, unchecked; `undefined` without one. */
export function bearerOf(request: FastifyRequest): string | undefined {
  const m = /^Bearer +(.*)$/i.exec(request.headers.authorization ?? "");
  return m === null || m[1] === "" ? undefined : m[1];
}

/** Options of {@link accountsPlugin}. */
export interface AccountsOptions {
  /** The app's keys, checked and registered by `createApp`. */
  keys: AccountKeys;
}

/** Account decorators of the app and its requests. */
export const accountsPlugin = fp<AccountsOptions>(
  (app, { keys }, done) => {
    app.decorate("keys", keys);
    app.decorate("accountOfRequest", (request: FastifyRequest) => {
      const token = bearerOf(request);
      return (token !== undefined && TOKEN_PATTERN.test(token) ? keys.accountOf(token) : undefined) ?? null;
    });
    app.decorateRequest("account", null);
    app.decorateRequest("accountId", function (this: FastifyRequest) {
      if (this.account === null) throw new ErrorReply(500, "request has no account");
      return this.account.id;
    });
    done();
  },
  { name: "accounts" },
);
