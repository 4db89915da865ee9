/**
 * Routes of event subscriptions: create, list (newest first, paged), get, update, delete, and
 * one source. Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ID_PREFIX } from "service-contract";
import type { WithContext } from "../context";
import { ServiceError } from "../errors";
import { create } from "../plugins/idempotency";
import { renderSubscription } from "../resources";
import { EventSubscriptionCreate, EventSubscriptionUpdate } from "service-contract";
import {
  parseJsonObject,
  validateBody,
  type CreateSubscriptionInput,
  type UpdateSubscriptionInput,
} from "../body";
import { checkBodyId, checkEventTypes, pageQuery, pathId, route } from "./common";

const WHAT = "an event subscription";

/** The event subscription routes. */
export const eventSubscriptionRoutes = fp<WithContext>(
  (app, { ctx }, done) => {
    const { store } = ctx;
    route(app, ctx, "public", "POST", "/event_subscriptions", (request, reply) =>
      create(ctx, request, reply, () => {
        const body = validateBody<CreateSubscriptionInput>(
          parseJsonObject(request.body),
          EventSubscriptionCreate,
        );
        checkEventTypes(body.sources);
        const sub = store.createSubscription(ctx.accountOf(request).id, {
          metadata: body.metadata ?? "",
          description: body.description ?? "",
          sources: body.sources.map((s) => s.type),
          destinationIds: body.destination_ids,
        });
        return renderSubscription(sub, ctx.base(request));
      }),
    );
    route(app, ctx, "public", "GET", "/event_subscriptions", (request) => {
      const q = pageQuery(request, ID_PREFIX.eventSubscription);
      const page = store.listSubscriptions(ctx.accountOf(request).id, q);
      const b = ctx.base(request);
      const last = page.items[page.items.length - 1];
      return {
        event_subscriptions: page.items.map((s) => renderSubscription(s, b)),
        uri: `${b}/event_subscriptions`,
        next_page_uri: page.hasMore ? `${b}/event_subscriptions?before_id=${last.id}&limit=${q.limit}` : null,
      };
    });
    route(app, ctx, "public", "GET", "/event_subscriptions/:id", (request) => {
      const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
      const sub = store.getSubscription(ctx.accountOf(request).id, id);
      if (!sub) throw new ServiceError(404, `no event subscription with ID ${JSON.stringify(id)}`);
      return renderSubscription(sub, ctx.base(request));
    });
    route(app, ctx, "public", "PATCH", "/event_subscriptions/:id", (request) => {
      const body = validateBody<UpdateSubscriptionInput>(
        parseJsonObject(request.body),
        EventSubscriptionUpdate,
      );
      checkEventTypes(body.sources);
      const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
      checkBodyId(body, id);
      const sub = store.updateSubscription(ctx.accountOf(request).id, id, {
        metadata: body.metadata,
        description: body.description,
        sources: body.sources?.map((s) => s.type),
        destinationIds: body.destination_ids,
      });
      return renderSubscription(sub, ctx.base(request));
    });
    route(app, ctx, "public", "DELETE", "/event_subscriptions/:id", (request, reply) => {
      const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
      store.deleteSubscription(ctx.accountOf(request).id, id);
      return reply.code(204).send();
    });
    route(app, ctx, "public", "GET", "/event_subscriptions/:id/sources/:type", (request) => {
      const id = pathId(request, ID_PREFIX.eventSubscription, WHAT);
      const { type } = request.params as { type: string };
      const sub = store.getSubscription(ctx.accountOf(request).id, id);
      if (!sub) throw new ServiceError(404, `no event subscription with ID ${JSON.stringify(id)}`);
      if (!sub.sources.includes(type))
        throw new ServiceError(404, `event subscription ${id} has no source ${JSON.stringify(type)}`);
      return { type, uri: `${ctx.base(request)}/event_subscriptions/${id}/sources/${type}` };
    });
    done();
  },
  { name: "event-subscription-routes" },
);
