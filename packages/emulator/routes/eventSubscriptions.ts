/**
 * Routes of event subscriptions (the contract's descriptor): create, list (newest first, paged),
 * get, update, delete, and one source. Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { RESOURCES } from "service-contract";
import { ErrorReply } from "../errorReply";
import { renderSubscription } from "../records";
import { notFound } from "../store";
import { checkEventTypes, pathId, routeAccess } from "./common";
import { resourceRoutes } from "./resource";

const { eventSubscription } = RESOURCES;

/** The event subscription routes (an encapsulated plugin). */
export const eventSubscriptionRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const { store } = app;
  routeAccess(app, "public");
  resourceRoutes(app, eventSubscription, {
    checkBody: (body) => checkEventTypes(body.sources),
    create: (request, body) =>
      store.createSubscription(request.accountId(), {
        metadata: body.metadata ?? "",
        description: body.description ?? "",
        sources: body.sources.map((s) => s.type),
        destinationIds: body.destinationIds,
      }),
    get: (request, id) => store.getSubscription(request.accountId(), id),
    list: store.listSubscriptions,
    update: (request, id, body) =>
      store.updateSubscription(request.accountId(), id, {
        metadata: body.metadata,
        description: body.description,
        sources: body.sources?.map((s) => s.type),
        destinationIds: body.destinationIds,
      }),
    remove: store.deleteSubscription,
    render: renderSubscription,
  });
  app.get(`${eventSubscription.path}/:id/sources/:type`, (request) => {
    const id = pathId(request, eventSubscription);
    const { type } = request.params as { type: string };
    const sub = store.getSubscription(request.accountId(), id);
    if (!sub) throw notFound(eventSubscription.names.singular, id);
    if (!sub.sources.includes(type))
      throw new ErrorReply(404, `event subscription ${id} has no source ${JSON.stringify(type)}`);
    return { type, uri: `${request.baseUrl()}${eventSubscription.path}/${id}/sources/${type}` };
  });
  done();
};
