/**
 * Builders of the schemas every resource has in the same shape: the fields a response starts
 * with, the `PATCH` body made from the create body, and a page of a list. Internal to the
 * contract: what it exports are the schemas built with them.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { Id, Timestamp } from "./common";

/**
 * The fields a resource of the service starts with in a response: its `id` (`prefix` + 27
 * base62 characters), its absolute `uri` (`{base_url}/<collection>/<id>`) and `createdAt`.
 */
export function resourceFields(prefix: string) {
  return { id: Id(prefix), uri: z.string(), createdAt: Timestamp };
}

/**
 * Body of a resource's `PATCH`: every field of its `create` body optional, after an optional `id`
 * that may repeat the resource's own ID (it must then be the one in the path). `patch` says what
 * sending a field does (`x-patch`).
 */
export function updateBody<S extends z.ZodRawShape>(create: z.ZodObject<S>, patch: string) {
  return z.strictObject({ id: z.string().optional(), ...create.partial().shape }).meta({ "x-patch": patch });
}

/**
 * One page of a list (newest first): the resources under `key`, the page's `uri`, and
 * `nextPageUri`, the absolute URI of the next page (`null` on the last page).
 */
export function pageOf<K extends string, T extends z.ZodType>(key: K, item: T) {
  const items = { [key]: z.array(item) } as Record<K, z.ZodArray<T>>;
  return z.object({ ...items, uri: z.string(), nextPageUri: z.string().nullable() });
}
