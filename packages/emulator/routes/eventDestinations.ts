/**
 * Routes of event destinations: create, list (newest first, paged), get, update, delete.
 * Responses blank write-only secrets. Reference: docs/service-api.md § Event destinations.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { ID_PREFIX } from "service-contract";
import type { WithContext } from "../context";
import { ServiceError } from "../errors";
import { create } from "../plugins/idempotency";
import { destinationFields, renderDestination, type DestinationFields } from "../resources";
import { EventDestinationCreate, EventDestinationUpdate } from "service-contract";
import {
  parseJsonObject,
  validateBody,
  type CreateDestinationInput,
  type UpdateDestinationInput,
} from "../body";
import { checkBodyId, pageQuery, pathId, route } from "./common";

const WHAT = "an event destination";

/** The event destination routes. */
export const eventDestinationRoutes = fp<WithContext>(
  (app, { ctx }, done) => {
    const { store } = ctx;
    route(app, ctx, "public", "POST", "/event_destinations", (request, reply) =>
      create(ctx, request, reply, () => {
        const body = validateBody<CreateDestinationInput>(
          parseJsonObject(request.body),
          EventDestinationCreate,
        );
        const fields = destinationFields(body, false) as DestinationFields;
        const dest = store.createDestination(ctx.accountOf(request).id, fields);
        return renderDestination(dest, ctx.base(request));
      }),
    );
    route(app, ctx, "public", "GET", "/event_destinations", (request) => {
      const q = pageQuery(request, ID_PREFIX.eventDestination);
      const page = store.listDestinations(ctx.accountOf(request).id, q);
      const b = ctx.base(request);
      const last = page.items[page.items.length - 1];
      return {
        event_destinations: page.items.map((d) => renderDestination(d, b)),
        uri: `${b}/event_destinations`,
        next_page_uri: page.hasMore ? `${b}/event_destinations?before_id=${last.id}&limit=${q.limit}` : null,
      };
    });
    route(app, ctx, "public", "GET", "/event_destinations/:id", (request) => {
      const id = pathId(request, ID_PREFIX.eventDestination, WHAT);
      const dest = store.getDestination(ctx.accountOf(request).id, id);
      if (!dest) throw new ServiceError(404, `no event destination with ID ${JSON.stringify(id)}`);
      return renderDestination(dest, ctx.base(request));
    });
    route(app, ctx, "public", "PATCH", "/event_destinations/:id", (request) => {
      const body = validateBody<UpdateDestinationInput>(
        parseJsonObject(request.body),
        EventDestinationUpdate,
      );
      const id = pathId(request, ID_PREFIX.eventDestination, WHAT);
      checkBodyId(body, id);
      const dest = store.updateDestination(ctx.accountOf(request).id, id, destinationFields(body, true));
      return renderDestination(dest, ctx.base(request));
    });
    route(app, ctx, "public", "DELETE", "/event_destinations/:id", (request, reply) => {
      const id = pathId(request, ID_PREFIX.eventDestination, WHAT);
      store.deleteDestination(ctx.accountOf(request).id, id);
      return reply.code(204).send();
    });
    done();
  },
  { name: "event-destination-routes" },
);
