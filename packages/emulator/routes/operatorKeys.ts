/**
 * The operator endpoints of API keys, registered under `/_operator` (admin key): a key added to
 * the account of another (key rotation), and a key revoked. Keys travel in request bodies only,
 * never in a path (the request log and Fastify's log record paths), and no answer or message
 * quotes one. Reference: docs/emulator.md § Operator endpoints.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { ApiKeyAdd, ApiKeyRevoke } from "service-contract";
import type { KeyChange } from "../accounts";
import { routeAccess } from "./common";

/** The answer of both routes (the contract's `ApiKeyAccount`, wire names): never a key. */
const answer = ({ account, keyCount }: KeyChange) => ({ account_id: account.id, key_count: keyCount });

/** The API key routes (an encapsulated plugin, registered with the prefix `/_operator`). */
export const operatorKeyRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  routeAccess(app, "operator");
  app.post("/keys", { schema: { body: ApiKeyAdd } }, (request, reply) => {
    const { apiKey, sameAccountAs } = request.body;
    return reply.code(201).send(answer(app.keys.add(apiKey, sameAccountAs, app.clock())));
  });
  app.post("/keys/revoke", { schema: { body: ApiKeyRevoke } }, (request) =>
    answer(app.keys.revoke(request.body.apiKey, app.clock())),
  );
  done();
};
