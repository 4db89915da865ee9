/**
 * Adoption: taking an existing subscription or destination under management with
 * `adoptId` instead of creating one ({@link adoptExisting}). Loaded by the providers' implementations inside the
 * provider process, never captured by the serialized provider.
 *
 * @packageDocumentation
 */
import type { ResourceDescriptor } from "service-contract";
import { ValidationError } from "../../../client/errors";
import { processClaims } from "./claims";
import { isNotFound } from "../process/client";

/**
 * Runs the adoption of `id` (`adopt`: read it, and write the program's values to it) holding
 * `id` for this resource alone, as a lost create's lookup holds what it adopts: no other resource
 * of the deployment (in any provider process, when the registry is shared) can hold it at the
 * same time. When the adoption fails, `id` is given back.
 *
 * @param resource - the contract's descriptor of the kind (its names, for the message).
 * @throws Error naming `id` when another resource of the deployment already holds it (as when a
 *   resource still carrying `adoptId` is replaced: its old self holds the ID); what `adopt` throws.
 */
export async function adopting<T>(
  resource: ResourceDescriptor,
  id: string,
  adopt: () => Promise<T>,
): Promise<T> {
  if (!processClaims.tryClaim(id)) {
    throw new Error(
      `adoptId: ${resource.names.singular} ${id} is already held by another resource of this deployment, so it ` +
        `cannot be adopted twice. A resource is adopted once: remove adoptId from it after its first pulumi up ` +
        `(a replacement would otherwise adopt its own old self, which the replacement then deletes).`,
    );
  }
  try {
    return await adopt();
  } catch (err) {
    processClaims.release(id);
    throw err;
  }
}

/**
 * Reads the resource `id` that a program asked to adopt.
 *
 * @param resource - the contract's descriptor of the kind (its names and ID prefix, for the messages).
 * @param id - the `adoptId` of the program.
 * @param get - the client's `get` of the kind.
 * @returns the live resource (client form, camelCase).
 * @throws Error whose message names `id` when it does not exist in the account of the API key
 *   (HTTP 404, which is also what another account's ID answers) or is not an ID of the kind;
 *   any other client error (authentication, rate limit…) as is.
 */
export async function readForAdoption<T>(
  resource: ResourceDescriptor,
  id: string,
  get: (id: string) => Promise<T>,
): Promise<T> {
  const { names, idPrefix } = resource;
  try {
    return await get(id);
  } catch (err) {
    if (isNotFound(err)) {
      throw new Error(
        `adoptId: ${names.singular} ${id} does not exist in the account of this API key (deleted, mistyped, or ` +
          `owned by another account), so it cannot be adopted. To create a new one instead (e.g. after an ` +
          `adopted resource was deleted outside Pulumi), declare it without adoptId.`,
      );
    }
    if (err instanceof ValidationError) {
      throw new Error(
        `adoptId: ${JSON.stringify(id)} is not ${names.article} ID (${idPrefix}…), so it cannot be adopted`,
      );
    }
    throw err;
  }
}

/**
 * What adoption by ID ({@link adoptExisting}) needs of a kind: `T` is its live resource as the
 * client returns it, `I` its inputs, `O` its outputs (`ListedKind`, listedKind.ts, has all of it).
 */
export interface AdoptableKind<T extends { id: string }, I, O> {
  /** The contract's descriptor of the kind (its names and ID prefix, for the messages). */
  resource: ResourceDescriptor;
  /** The client's `get` of `id`. */
  get(id: string): Promise<T>;
  /** The client's `update` of `id` with every managed field of `news` (one `PATCH`). */
  update(id: string, news: I): Promise<T>;
  /** The outputs of `live`, keeping what the API does not return (write-only secrets) from `news`. */
  outputs(live: T, news: I): O;
  /** True when the adopted `id`, whose outputs are `live`, needs no write to hold the values `news`. */
  adoptedAsIs(live: O, news: I, id: string): boolean | Promise<boolean>;
}

/**
 * `create` with `adoptId`: holds `adoptId` for this resource ({@link adopting}), reads it
 * ({@link readForAdoption}) and, unless `kind.adoptedAsIs` says it already holds the program's
 * values `news`, sends them with one `PATCH`.
 *
 * @returns its ID and outputs (not yet stamped with the key: keyChecks.ts).
 * @throws Error naming `adoptId` when another resource holds it, when it does not exist in this
 *   account or is not an ID of the kind; any other client error as is.
 */
export async function adoptExisting<T extends { id: string }, I, O>(
  kind: AdoptableKind<T, I, O>,
  adoptId: string,
  news: I,
): Promise<{ id: string; outs: O }> {
  return adopting(kind.resource, adoptId, async () => {
    const live = kind.outputs(await readForAdoption(kind.resource, adoptId, (id) => kind.get(id)), news);
    if (await kind.adoptedAsIs(live, news, adoptId)) return { id: adoptId, outs: live };
    const updated = await kind.update(adoptId, news);
    return { id: updated.id, outs: kind.outputs(updated, news) };
  });
}
