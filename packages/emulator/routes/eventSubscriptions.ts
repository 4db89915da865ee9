/**
 * Routes of event subscriptions: create, list (newest first, paged), get, update, delete, and
 * one source. Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { EventSubscriptionCreate, EventSubscriptionUpdate, ID_PREFIX } from "service-contract";
import { ServiceError } from "../errors";
import { renderSubscription } from "../resources";
import { checkBodyId, checkEventTypes, pageQuery, pathId, routeAccess } from "./common";

const WHAT = "an event subscription";

/** The event subscription routes (an encapsulated plugin). */
export const eventSubscriptionRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const { store } = app;
  routeAccess(app, "public");
  app.post("/event_subscriptions", { schema: { body: EventSubscriptionCreate } }, (request, reply) =>
    reply.created(() => {
      const { body } = request;
      checkEventTypes(body.sources);
      const sub = store.createSubscription(request.accountId(), {
        metadata: body.metadata ?? "",
        description: body.description ?? "",
        sources: body.sources.map((s) => s.type),
        destinationIds: body.destinationIds,
      });
      return renderSubscription(sub, request.baseUrl());
    }),
  );
  app.get("/event_subscriptions", (request) => {
    const q = pageQuery(request, ID_PREFIX.eventSubscription);
    const page = store.listSubscriptions(request.accountId(), q);
    const b = request.baseUrl();
    const last = page.items[page.items.length - 1];
    return {
      event_subscriptions: page.items.map((s) => renderSubscription(s, b)),
      uri: `${b}/event_subscriptions`,
      next_page_uri: page.hasMore ? `${b}/event_subscriptions?before_id=${last.id}&limit=${q.limit}` : null,
    };
  });
  app.get("/event_subscriptions/:id", (request) => {
    const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
    const sub = store.getSubscription(request.accountId(), id);
    if (!sub) throw new ServiceError(404, `no event subscription with ID ${JSON.stringify(id)}`);
    return renderSubscription(sub, request.baseUrl());
  });
  app.patch("/event_subscriptions/:id", { schema: { body: EventSubscriptionUpdate } }, (request) => {
    const { body } = request;
    checkEventTypes(body.sources);
    const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
    checkBodyId(body, id);
    const sub = store.updateSubscription(request.accountId(), id, {
      metadata: body.metadata,
      description: body.description,
      sources: body.sources?.map((s) => s.type),
      destinationIds: body.destinationIds,
    });
    return renderSubscription(sub, request.baseUrl());
  });
  app.delete("/event_subscriptions/:id", (request, reply) => {
    const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
    store.deleteSubscription(request.accountId(), id);
    return reply.code(204).send();
  });
  app.get("/event_subscriptions/:id/sources/:type", (request) => {
    const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
    const { type } = request.params as { type: string };
    const sub = store.getSubscription(request.accountId(), id);
    if (!sub) throw new ServiceError(404, `no event subscription with ID ${JSON.stringify(id)}`);
    if (!sub.sources.includes(type))
      throw new ServiceError(404, `event subscription ${id} has no source ${JSON.stringify(type)}`);
    return { type, uri: `${request.baseUrl()}/event_subscriptions/${id}/sources/${type}` };
  });
  done();
};
