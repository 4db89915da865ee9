/**
 * What the route modules share: the route config each module stamps on its routes, reading path
 * IDs and page parameters (checked in the handlers: the service checks them after the body), and
 * the checks of a valid body against the catalogue and the path.
 *
 * @packageDocumentation
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  EVENT_TYPES,
  isEventType,
  isWellFormedId,
  PAGE_LIMIT_MAX,
  PAGE_LIMIT_MIN,
  type ResourceDescriptor,
} from "service-contract";
import { ErrorReply } from "../errorReply";
import { routeNotFound, type RouteInfo } from "../routeInfo";
import { notFound } from "../store";

/**
 * Stamps every route the (encapsulated) plugin `app` registers from now on with who may call it:
 * `public` routes (their `POST`s are creates that honour `Idempotency-Key`; `abuse` ones need an
 * account authorized for abuse reports) or `operator` routes.
 */
export function routeAccess(app: FastifyInstance, access: "public" | "operator", abuse = false): void {
  app.addHook("onRoute", (route) => {
    const info: RouteInfo = { access, abuse, idempotent: access === "public" && route.method === "POST" };
    route.config = { ...route.config, ...info };
  });
}

/**
 * The `:id` of the path, an ID of `kind`'s, checked: 227 when it has another kind's prefix, 404
 * when it is not a well-formed ID of its kind (the message of a well-formed ID no record has).
 */
export function pathId(
  request: FastifyRequest,
  kind: Pick<ResourceDescriptor, "idPrefix" | "names">,
): string {
  const id = (request.params as { id: string }).id;
  const { idPrefix, names } = kind;
  if (id === "") throw routeNotFound(request);
  if (!id.startsWith(idPrefix)) {
    throw new ErrorReply(
      227,
      `the ID ${JSON.stringify(id)} in the path is not ${names.article} ID (they start with ${idPrefix})`,
    );
  }
  if (!isWellFormedId(id, idPrefix)) throw notFound(names.singular, id);
  return id;
}

/** `limit` (233 when not 1..100) and `before_id` (215 when not an ID of the kind) of a list. */
export function pageQuery(request: FastifyRequest, prefix: string): { limit: number; beforeId?: string } {
  const q = request.query as Record<string, unknown>;
  let limit = PAGE_LIMIT_MAX;
  if (q.limit !== undefined) {
    const n = typeof q.limit === "string" && /^\d{1,4}$/.test(q.limit) ? Number(q.limit) : NaN;
    if (!(n >= PAGE_LIMIT_MIN && n <= PAGE_LIMIT_MAX)) {
      throw new ErrorReply(
        233,
        `limit must be an integer between ${PAGE_LIMIT_MIN} and ${PAGE_LIMIT_MAX}, got ${JSON.stringify(q.limit)}`,
      );
    }
    limit = n;
  }
  let beforeId: string | undefined;
  if (q.before_id !== undefined) {
    if (typeof q.before_id !== "string" || !isWellFormedId(q.before_id, prefix)) {
      throw new ErrorReply(
        215,
        `before_id: must be an ID starting with ${prefix}, got ${JSON.stringify(q.before_id)}`,
      );
    }
    beforeId = q.before_id;
  }
  return { limit, beforeId };
}

/**
 * @throws ErrorReply 238 for the first source whose type is not in the catalogue (the message
 * names the field, not the rejected value).
 */
export function checkEventTypes(sources: { type: string }[] | undefined): void {
  sources?.forEach((s, i) => {
    if (!isEventType(s.type)) {
      throw new ErrorReply(
        238,
        `sources[${i}].type: unknown event type; known types include ${EVENT_TYPES.slice(0, 3).join(", ")}, … (${EVENT_TYPES.length} in all)`,
      );
    }
  });
}

/**
 * @throws ErrorReply 215 when a PATCH body repeats an `id` other than the path's (the message
 * gives the path's ID, not the body's value).
 */
export function checkBodyId(body: { id?: string }, id: string): void {
  if (body.id !== undefined && body.id !== id) {
    throw new ErrorReply(215, `id: must equal the ID in the path (${id})`);
  }
}
