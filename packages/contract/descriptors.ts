/**
 * One descriptor per resource of the service: what the contract knows about a resource besides
 * its schemas' fields. The OpenAPI document's paths and component schemas, the client's resource
 * groups, the providers' kinds and the program generator iterate {@link RESOURCES} instead of
 * restating paths, ID prefixes, list keys or names. A Pulumi package schema can be generated from
 * the same data: every member is plain data (strings, lists of field paths) next to the zod
 * schemas, so nothing needs zod's internals.
 *
 * Field paths are dotted TypeScript (camelCase) names from the resource's top level, e.g.
 * `target.datadog.apiKey`; {@link wirePath} gives the wire's snake_case form.
 *
 * Reference: docs/service-api.md.
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import { AbuseReport, AbuseReportCreate } from "./abuseReport";
import { metaOf } from "./common";
import type { ErrorCode } from "./errorCodes";
import {
  EventDestination,
  EventDestinationCreate,
  EventDestinationList,
  EventDestinationUpdate,
} from "./eventDestination";
import {
  EventSubscription,
  EventSubscriptionCreate,
  EventSubscriptionList,
  EventSubscriptionUpdate,
} from "./eventSubscription";
import { ID_PREFIX } from "./limits";
import { camelToSnake } from "./wire";
import { writeOnlyPaths } from "./fields";

/** An operation a resource supports: `GET` of the collection, `GET`/`PATCH`/`DELETE` of one, `POST`. */
export type Operation = "list" | "get" | "create" | "update" | "delete";

/** Every operation, in the order the document lists them. */
export const OPERATIONS: readonly Operation[] = ["list", "create", "get", "update", "delete"];

/** The names of a resource in the forms each consumer uses. */
export interface ResourceNames {
  /** TypeScript (camelCase) name, also the client's property: `eventDestination`. */
  camel: string;
  /** Wire (snake_case) name: `event_destination`. */
  wire: string;
  /** In words, singular: `event destination`. */
  singular: string;
  /** In words, plural: `event destinations`. */
  plural: string;
  /** With its article, for messages: `an event destination`. */
  article: string;
}

/** The schemas of a resource's bodies (camelCase zod schemas; `wire.ts` renames keys). */
export interface ResourceSchemas<
  R extends z.ZodObject = z.ZodObject,
  C extends z.ZodObject = z.ZodObject,
  U extends z.ZodObject | undefined = z.ZodObject | undefined,
  L extends z.ZodObject | undefined = z.ZodObject | undefined,
> {
  /** One resource as responses hold it (create, get, update). */
  response: R;
  /** Body of a create (`POST`). */
  create: C;
  /** Body of an update (`PATCH`); absent when the resource has no update. */
  update: U;
  /** One page of the list; absent when the resource has no list. */
  list: L;
}

/** Facts about a resource's fields, as lists of dotted camelCase paths (see the module comment). */
export interface FieldFacts {
  /** Sent in requests, never returned: responses hold `""` (read from the schemas' `writeOnly` metadata). */
  writeOnly: readonly string[];
  /** Inputs that hold a secret and are kept encrypted in a Pulumi state (inputs and outputs). */
  secret: readonly string[];
  /** Inputs whose change cannot be applied by an update: the resource is replaced. */
  immutable: readonly string[];
  /** Outputs only: set by the service, never sent. */
  computed: readonly string[];
}

/** One resource of the service (see the module comment). */
export interface ResourceDescriptor<S extends ResourceSchemas = ResourceSchemas> {
  /** Names: `eventDestination`, `event_destination`, `an event destination`, … */
  names: ResourceNames;
  /** Type name of the Pulumi resource and of the document's component schemas: `EventDestination`. */
  pulumiType: string;
  /** Path of the collection: `/event_destinations`; one resource is `{path}/{id}`. */
  path: string;
  /** Tag of the document's operations: `event destinations`. */
  tag: string;
  /** Prefix of its IDs: `ed_` (followed by 27 base62 characters). */
  idPrefix: string;
  /** Key of the items in one page of the list, camelCase (`eventDestinations`); absent without list. */
  listKey?: string;
  /** The same in wire form: `event_destinations`. */
  wireListKey?: string;
  /** The operations it supports. */
  operations: readonly Operation[];
  /** Its body schemas. */
  schemas: S;
  /** Facts about its fields. */
  fields: FieldFacts;
  /**
   * Fields a client sends with the value of their `default` metadata when a create leaves them
   * out, e.g. `{ format: "json" }`.
   */
  createDefaults: Readonly<Record<string, unknown>>;
  /** Service error codes an operation may answer besides those every request or body may get. */
  errors: Readonly<Partial<Record<Operation, readonly ErrorCode[]>>>;
  /** What an operation's summary adds to its plain words, e.g. `it starts PENDING`. */
  notes: Readonly<Partial<Record<Operation, string>>>;
}

/** The fields of `create` whose metadata gives a `default` (see {@link ResourceDescriptor.createDefaults}). */
function defaultsOf(create: z.ZodObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(create.shape as Record<string, z.ZodType>)) {
    const meta = metaOf(v);
    if ("default" in meta) out[k] = meta.default;
  }
  return out;
}

function names(singular: string, article: "a" | "an"): ResourceNames {
  const words = singular.split(" ");
  const camel = words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join("");
  return {
    camel,
    wire: words.join("_"),
    singular,
    plural: `${singular}s`,
    article: `${article} ${singular}`,
  };
}

type Spec<S extends ResourceSchemas> = Omit<
  ResourceDescriptor<S>,
  "names" | "pulumiType" | "path" | "tag" | "listKey" | "wireListKey" | "createDefaults" | "fields"
> & { fields: Omit<FieldFacts, "writeOnly"> };

/** A descriptor from the resource's words and what cannot be derived from them. */
function describe<S extends ResourceSchemas>(
  singular: string,
  article: "a" | "an",
  spec: Spec<S>,
): ResourceDescriptor<S> {
  const n = names(singular, article);
  const plural = `${n.camel}s`;
  const hasList = spec.operations.includes("list");
  return {
    names: n,
    pulumiType: n.camel[0].toUpperCase() + n.camel.slice(1),
    path: `/${n.wire}s`,
    tag: n.plural,
    ...(hasList ? { listKey: plural, wireListKey: camelToSnake(plural) } : {}),
    ...spec,
    fields: { writeOnly: writeOnlyPaths(spec.schemas.create).map((p) => p.join(".")), ...spec.fields },
    createDefaults: Object.freeze(defaultsOf(spec.schemas.create)),
  };
}

/** The body schemas of a resource, by role; `update` and `list` absent for a resource without them. */
function bodies<
  R extends z.ZodObject,
  C extends z.ZodObject,
  U extends z.ZodObject | undefined = undefined,
  L extends z.ZodObject | undefined = undefined,
>(response: R, create: C, update?: U, list?: L): ResourceSchemas<R, C, U, L> {
  return { response, create, update: update as U, list: list as L };
}

/** Abuse reports: filed and read only; any change of an input files a new report. */
export const abuseReport = describe("abuse report", "an", {
  idPrefix: ID_PREFIX.abuseReport,
  operations: ["create", "get"],
  schemas: bodies(AbuseReport, AbuseReportCreate),
  fields: {
    secret: [],
    immutable: ["urls", "metadata"],
    computed: ["uri", "createdAt", "status", "hostnames"],
  },
  errors: { create: [221, 240, 241], get: [221] },
  notes: { create: "it starts PENDING" },
});

/** Event subscriptions: which event types go to which destinations. */
export const eventSubscription = describe("event subscription", "an", {
  idPrefix: ID_PREFIX.eventSubscription,
  operations: ["list", "create", "get", "update", "delete"],
  schemas: bodies(EventSubscription, EventSubscriptionCreate, EventSubscriptionUpdate, EventSubscriptionList),
  fields: { secret: [], immutable: [], computed: ["uri", "createdAt", "destinations"] },
  errors: { create: [223, 238, 240], update: [223, 238] },
  notes: {},
});

/** Event destinations: where events are delivered; secrets in `target` are write-only. */
export const eventDestination = describe("event destination", "an", {
  idPrefix: ID_PREFIX.eventDestination,
  operations: ["list", "create", "get", "update", "delete"],
  schemas: bodies(EventDestination, EventDestinationCreate, EventDestinationUpdate, EventDestinationList),
  fields: { secret: ["target"], immutable: [], computed: ["uri", "createdAt"] },
  errors: { create: [240], delete: [409] },
  notes: { delete: "only when no subscription uses it" },
});

/** Every resource of the service, by camelCase name. */
export const RESOURCES = { abuseReport, eventSubscription, eventDestination } as const;

/** The descriptors of {@link RESOURCES} as a list, in the document's order. */
export const RESOURCE_LIST: readonly ResourceDescriptor[] = Object.values(RESOURCES);

/** The resource an ID prefix names, with its article, for messages: `ed_` → `an event destination`. */
export const ID_KIND_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  RESOURCE_LIST.map((r) => [r.idPrefix, r.names.article]),
);

/** The resource whose IDs start with `prefix`, or `undefined`. */
export function resourceByPrefix(prefix: string): ResourceDescriptor | undefined {
  return RESOURCE_LIST.find((r) => r.idPrefix === prefix);
}

/** `target.datadog.apiKey` → `target.datadog.api_key`. */
export function wirePath(path: string): string {
  return path.split(".").map(camelToSnake).join(".");
}

/** Whether `descriptor` supports `operation`. */
export function supports(descriptor: ResourceDescriptor, operation: Operation): boolean {
  return descriptor.operations.includes(operation);
}
