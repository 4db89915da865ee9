/**
 * Routes of event destinations: create, list (newest first, paged), get, update, delete.
 * Responses blank write-only secrets. Reference: docs/service-api.md § Event destinations.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import {
  EventDestinationCreate,
  EventDestinationUpdate,
  ID_PREFIX,
  keysToSnake,
  type Wire,
} from "service-contract";
import { ServiceError } from "../errors";
import { destinationFields, renderDestination, type DestinationFields } from "../resources";
import { checkBodyId, pageQuery, pathId, routeAccess } from "./common";

const WHAT = "an event destination";

/** The wire form of a validated body, which the stored fields are made of. */
const wire = (body: EventDestinationUpdate) => keysToSnake(body) as Wire<EventDestinationUpdate>;

/** The event destination routes (an encapsulated plugin). */
export const eventDestinationRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const { store } = app;
  routeAccess(app, "public");
  app.post("/event_destinations", { schema: { body: EventDestinationCreate } }, (request, reply) =>
    reply.created(() => {
      const fields = destinationFields(wire(request.body), false) as DestinationFields;
      return renderDestination(store.createDestination(request.accountId(), fields), request.baseUrl());
    }),
  );
  app.get("/event_destinations", (request) => {
    const q = pageQuery(request, ID_PREFIX.eventDestination);
    const page = store.listDestinations(request.accountId(), q);
    const b = request.baseUrl();
    const last = page.items[page.items.length - 1];
    return {
      event_destinations: page.items.map((d) => renderDestination(d, b)),
      uri: `${b}/event_destinations`,
      next_page_uri: page.hasMore ? `${b}/event_destinations?before_id=${last.id}&limit=${q.limit}` : null,
    };
  });
  app.get("/event_destinations/:id", (request) => {
    const id = pathId(request, ID_PREFIX.eventDestination, WHAT);
    const dest = store.getDestination(request.accountId(), id);
    if (!dest) throw new ServiceError(404, `no event destination with ID ${JSON.stringify(id)}`);
    return renderDestination(dest, request.baseUrl());
  });
  app.patch("/event_destinations/:id", { schema: { body: EventDestinationUpdate } }, (request) => {
    const id = pathId(request, ID_PREFIX.eventDestination, WHAT);
    checkBodyId(request.body, id);
    const dest = store.updateDestination(
      request.accountId(),
      id,
      destinationFields(wire(request.body), true),
    );
    return renderDestination(dest, request.baseUrl());
  });
  app.delete("/event_destinations/:id", (request, reply) => {
    const id = pathId(request, ID_PREFIX.eventDestination, WHAT);
    store.deleteDestination(request.accountId(), id);
    return reply.code(204).send();
  });
  done();
};
