/**
 * The routes of one resource, from its contract descriptor: for each operation it supports, in
 * the order create (`POST {path}`), list (`GET {path}`), get (`GET {path}/{id}`), update
 * (`PATCH {path}/{id}`), delete (`DELETE {path}/{id}`), with the descriptor's path, ID prefix,
 * list key and name; bodies validated by the descriptor's schemas. What is the resource's own
 * (how it is stored, rendered, checked beyond its schema) comes in {@link ResourceHandlers}.
 *
 * @packageDocumentation
 */
import type { FastifyRequest } from "fastify";
import type { FastifyPluginCallbackZod } from "fastify-type-provider-zod";
import { supports, type ResourceDescriptor, type ResourceSchemas } from "service-contract";
import type { z } from "zod";
import { notFound, type Page, type PageQuery } from "../store";
import { checkBodyId, pageQuery, pathId } from "./common";

/** The app a route plugin registers on (typed by `fastify-type-provider-zod`). */
export type ZodApp = Parameters<FastifyPluginCallbackZod>[0];

/** Body of a create of the resource with schemas `S` (camelCase). */
export type CreateBody<S extends ResourceSchemas> = z.output<S["create"]>;

/** Body of an update of the resource with schemas `S` (camelCase). */
export type UpdateBody<S extends ResourceSchemas> = z.output<NonNullable<S["update"]>>;

/** What a resource's routes do with its records `R`; one member per operation it supports. */
export interface ResourceHandlers<S extends ResourceSchemas, R> {
  /** Stores a new record from a valid create body; runs once per `Idempotency-Key`. */
  create(request: FastifyRequest, body: CreateBody<S>): R;
  /** The record `id` of the request's account; `undefined` when none. */
  get(request: FastifyRequest, id: string): R | undefined;
  /** One page of the account's records, newest first. */
  list?(accountId: string, query: PageQuery): Page<R>;
  /** Applies a valid update body to the record `id`. */
  update?(request: FastifyRequest, id: string, body: UpdateBody<S>): R;
  /** Deletes the record `id`. */
  remove?(accountId: string, id: string): void;
  /** The record's wire form; `base` is the absolute base URL without a trailing `/`. */
  render(record: R, base: string): unknown;
  /**
   * Checks of a valid body that its schema cannot state (the event-type catalogue, 238): in a
   * create before the record is stored, in an update before the path's ID is read.
   */
  checkBody?(body: CreateBody<S> | UpdateBody<S>): void;
}

/** Registers the routes of `descriptor` on the (encapsulated) plugin `app` (see the module comment). */
export function resourceRoutes<S extends ResourceSchemas, R>(
  app: ZodApp,
  descriptor: ResourceDescriptor<S>,
  h: ResourceHandlers<S, R>,
): void {
  const { path, idPrefix, names, wireListKey, schemas } = descriptor;
  const id = (request: FastifyRequest) => pathId(request, descriptor);
  if (supports(descriptor, "create")) {
    app.post(path, { schema: { body: schemas.create } }, (request, reply) =>
      reply.created(() => {
        const body = request.body as CreateBody<S>;
        h.checkBody?.(body);
        return h.render(h.create(request, body), request.baseUrl());
      }),
    );
  }
  if (supports(descriptor, "list") && h.list && wireListKey) {
    const list = h.list;
    app.get(path, (request) => {
      const q = pageQuery(request, idPrefix);
      const page = list(request.accountId(), q);
      const b = request.baseUrl();
      const last = page.items[page.items.length - 1];
      return {
        [wireListKey]: page.items.map((r) => h.render(r, b)),
        uri: `${b}${path}`,
        next_page_uri: page.hasMore
          ? `${b}${path}?before_id=${(last as { id: string }).id}&limit=${q.limit}`
          : null,
      };
    });
  }
  if (supports(descriptor, "get")) {
    app.get(`${path}/:id`, (request) => {
      const recordId = id(request);
      const record = h.get(request, recordId);
      if (record === undefined) throw notFound(names.singular, recordId);
      return h.render(record, request.baseUrl());
    });
  }
  if (supports(descriptor, "update") && h.update && schemas.update) {
    const update = h.update;
    app.patch(`${path}/:id`, { schema: { body: schemas.update } }, (request) => {
      const body = request.body as UpdateBody<S>;
      h.checkBody?.(body);
      const recordId = id(request);
      checkBodyId(body as { id?: string }, recordId);
      return h.render(update(request, recordId, body), request.baseUrl());
    });
  }
  if (supports(descriptor, "delete") && h.remove) {
    const remove = h.remove;
    app.delete(`${path}/:id`, (request, reply) => {
      remove(request.accountId(), id(request));
      return reply.code(204).send();
    });
  }
}
