/**
 * What stacks' states manage, for the unmanaged check (gitops/unmanaged.ts): the event
 * subscriptions and destinations an exported state (`pulumi stack export`) holds, through either
 * door, with the account each belongs to as the state records it.
 *
 * A resource of the state counts as managed when it is a custom resource of one of these types,
 * with a service ID:
 *
 * - the native door: `service:index:EventSubscription`, `service:index:EventDestination`;
 * - the dynamic door: `pulumi-nodejs:dynamic/service:EventSubscription` and `…:EventDestination`
 *   (gitops/recovery.ts's {@link TYPE_TOKENS}), and `pulumi-nodejs:dynamic:Resource` (a dynamic
 *   resource declared without a module) whose ID has a subscription's or destination's prefix.
 *
 * The state's resources and its pending operations (a create the engine recorded an ID for) count;
 * a resource read with `get` (`external: true`) does not: the stack reads it, someone else
 * manages it.
 *
 * The account of a resource is the one its provider configuration names, as far as the state
 * records it: the **base URL** from the resource's `uri` output (`{base_url}/<collection>/<id>`,
 * both doors), else from its provider's `baseUrl` input (an explicit or default provider of the
 * native door); and the **key stamp** (`__keyStamp`, provider/impl/keyStamp.ts) of the API key the
 * provider last used with it. {@link heldInAccount} compares both with an account's.
 *
 * @packageDocumentation
 */
import { RESOURCES, type ResourceDescriptor } from "service-contract";
import { stampIn, stampMatches } from "../provider/impl/keyStamp";
import { TYPE_TOKENS, type ExportedStack, type StateResource } from "./recovery";

/** The kinds the check lists: `eventSubscription` or `eventDestination`. */
export type ListedKind = "eventSubscription" | "eventDestination";

/** The native door's type token of each listed kind, e.g. `service:index:EventDestination`. */
export const NATIVE_TYPES: Readonly<Record<ListedKind, string>> = {
  eventSubscription: `service:index:${RESOURCES.eventSubscription.pulumiType}`,
  eventDestination: `service:index:${RESOURCES.eventDestination.pulumiType}`,
};

/** The kind of each type token that names one, both doors. */
const KIND_OF_TYPE: Readonly<Record<string, ListedKind>> = {
  [NATIVE_TYPES.eventSubscription]: "eventSubscription",
  [NATIVE_TYPES.eventDestination]: "eventDestination",
  [TYPE_TOKENS.subscription]: "eventSubscription",
  [TYPE_TOKENS.destination]: "eventDestination",
};

/** The type of a dynamic resource declared without a module. */
const BARE_DYNAMIC_TYPE = "pulumi-nodejs:dynamic:Resource";

/** One subscription or destination a stack's state holds. */
export interface ManagedResource {
  /** The service's ID. */
  id: string;
  kind: ListedKind;
  /** The stack whose state holds it. */
  stack: string;
  /** Base URL of the service its provider used (no trailing `/`), when the state records it. */
  baseUrl?: string;
  /** Its key stamp (`__keyStamp`), when the state has one. */
  stamp?: string;
}

/** The kind of an ID: by its prefix (`esb_`, `ed_`), `undefined` for another. */
export function kindOfId(id: string): ListedKind | undefined {
  if (id.startsWith(RESOURCES.eventSubscription.idPrefix)) return "eventSubscription";
  if (id.startsWith(RESOURCES.eventDestination.idPrefix)) return "eventDestination";
  return undefined;
}

/** `url` without its trailing `/`s: base URLs are compared in this form. */
export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, "");
}

/** The base URL `uri` (`{base_url}{collection path}/{id}`) was made from, if it is one. */
function baseUrlOfUri(uri: unknown, resource: ResourceDescriptor, id: string): string | undefined {
  if (typeof uri !== "string") return undefined;
  const tail = `${resource.path}/${id}`;
  return uri.endsWith(tail) ? normalizeBaseUrl(uri.slice(0, -tail.length)) : undefined;
}

/** A provider reference (`<urn>::<id>`) → the provider's `baseUrl` input, by its URN. */
function providerBaseUrls(resources: readonly StateResource[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of resources) {
    const base = r.inputs?.baseUrl ?? r.outputs?.baseUrl;
    if (r.type.startsWith("pulumi:providers:") && typeof base === "string") {
      out.set(`${r.urn}::${r.id ?? ""}`, normalizeBaseUrl(base));
    }
  }
  return out;
}

/**
 * The subscriptions and destinations the exported state `deployment` of stack `stack` manages
 * (see the module comment), in state order.
 */
export function managedResources(stack: string, deployment: ExportedStack["deployment"]): ManagedResource[] {
  const resources = deployment.resources ?? [];
  const pending = (deployment.pending_operations ?? []).map((op) => op.resource);
  const providers = providerBaseUrls(resources);
  const out: ManagedResource[] = [];
  for (const r of [...resources, ...pending]) {
    if (r.custom === false || r.external === true || typeof r.id !== "string" || r.id === "") continue;
    const kind = r.type === BARE_DYNAMIC_TYPE ? kindOfId(r.id) : KIND_OF_TYPE[r.type];
    if (!kind) continue;
    const baseUrl =
      baseUrlOfUri(r.outputs?.uri, RESOURCES[kind], r.id) ??
      (typeof r.provider === "string" ? providers.get(r.provider) : undefined);
    const stamp = stampIn(r.outputs);
    out.push({ id: r.id, kind, stack, ...(baseUrl ? { baseUrl } : {}), ...(stamp ? { stamp } : {}) });
  }
  return out;
}

/** The account an unmanaged check lists: its base URL and API key. */
export interface AccountKey {
  /** Base URL of the service, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The account's API key (never printed). */
  apiKey: string;
}

/**
 * Whether the state resource `r` belongs to `account`: its base URL, when recorded, is the
 * account's, and its key stamp, when it has one, is of the account's key. A resource whose state
 * records neither (states of old provider versions) belongs to every account. One scrypt
 * derivation per stamp salt and key, kept (provider/impl/keyStamp.ts).
 */
export function heldInAccount(r: ManagedResource, account: AccountKey): boolean {
  if (r.baseUrl !== undefined && r.baseUrl !== normalizeBaseUrl(account.baseUrl)) return false;
  return stampMatches(r.stamp, account.apiKey) !== false;
}
