/**
 * Routes of event destinations (the contract's descriptor): create, list (newest first, paged),
 * get, update, delete. Responses blank write-only secrets. Reference: docs/service-api.md
 * § Event destinations.
 *
 * @packageDocumentation
 */
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { keysToSnake, RESOURCES, type EventDestinationUpdate, type Wire } from "service-contract";
import { destinationFields, renderDestination, type DestinationFields } from "../records";
import { routeAccess } from "./common";
import { resourceRoutes } from "./resource";

/** The wire form of a validated body, which the stored fields are made of. */
const wire = (body: EventDestinationUpdate) => keysToSnake(body) as Wire<EventDestinationUpdate>;

/** The event destination routes (an encapsulated plugin). */
export const eventDestinationRoutes: FastifyPluginCallbackZod = (app, _opts, done) => {
  const { store } = app;
  routeAccess(app, "public");
  resourceRoutes(app, RESOURCES.eventDestination, {
    create: (request, body) =>
      store.createDestination(request.accountId(), destinationFields(wire(body), false) as DestinationFields),
    get: (request, id) => store.getDestination(request.accountId(), id),
    list: store.listDestinations,
    update: (request, id, body) =>
      store.updateDestination(request.accountId(), id, destinationFields(wire(body), true)),
    remove: store.deleteDestination,
    render: renderDestination,
  });
  done();
};
