/**
 * The types of the Pulumi package schema (provider/native/schema.ts): each zod schema of the
 * contract resolved to a schema type, its object types and enums named after the contract's
 * exports ({@link TypeBuilder}), a response's parts named after the request parts they mirror.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import * as contract from "service-contract";

/** A JSON object of the schema. */
type Json = Record<string, unknown>;

/** Description of a property the contract's metadata does not describe, by property name. */
export const PROSE: Record<string, string> = {
  uri: "Absolute URI of the resource: `{base_url}/<collection>/<id>`.",
  createdAt: "Creation time, RFC 3339 UTC with whole seconds.",
  metadata: 'Machine-readable data; `""` when not set. Removing it clears it.',
  description: 'Human-readable description; `""` when not set. Removing it clears it.',
  sources: "Event types that trigger the subscription (1 to 10, no duplicates); order does not matter.",
  destinationIds: "IDs (`ed_…`) of 1 to 10 event destinations of the account; order does not matter.",
  destinations: "The destinations as references (`id`, `uri`), in the service's order.",
  type: "An event type of the catalogue, e.g. `ip_policy_created.v0`.",
  id: "ID of the referenced resource.",
  format: 'Payload format; only `"json"` exists (the default).',
  target:
    "Where events are sent: exactly one kind. A secret, inputs and outputs alike; write-only " +
    'credentials, which the API returns as `""`, are kept as the program gave them.',
  urls: "1 to 100 absolute http(s) URLs with a host that contain suspected abusive content.",
  status: "Review status of the report, as of the last create or refresh.",
  hostnames: "One entry per distinct hostname, in order of first appearance in `urls`.",
  hostname: "A hostname of a reported URL, lower-cased.",
  role: "AWS authentication by an IAM role the service assumes.",
  creds: "AWS authentication by an access key.",
  auth: "AWS authentication: exactly one of `role` or `creds`.",
  firehose: "Amazon Data Firehose.",
  kinesis: "Amazon Kinesis.",
  cloudwatchLogs: "Amazon CloudWatch Logs.",
  datadog: "Datadog.",
  azureLogsIngestion: "Azure Monitor Logs Ingestion.",
  adoptId:
    "ID of an existing resource to take under management on create instead of creating one " +
    "(read only on create). The native provider also supports `pulumi import` and the `import` " +
    "resource option, the Pulumi way to do the same.",
};

/** A zod schema's wrappers taken off, with their metadata merged. */
function unwrap(schema: z.ZodType): { inner: z.ZodType; optional: boolean; meta: Json } {
  let inner = schema;
  let optional = false;
  let meta: Json = { ...contract.metaOf(schema) };
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    optional ||= inner instanceof z.ZodOptional;
    inner = inner.unwrap() as z.ZodType;
    meta = { ...contract.metaOf(inner), ...meta };
  }
  return { inner, optional, meta };
}

/** The contract's export name of each zod schema, the name of its object or enum type. */
const NAMES = new Map<unknown, string>();
for (const [name, value] of Object.entries(contract)) {
  if (value instanceof z.ZodType && !NAMES.has(value)) NAMES.set(value, name);
}

/**
 * Gives the parts of a response schema the names of the request parts they mirror, where the
 * contract builds them apart (a destination's target: its secrets are `""` in responses), so that
 * an input and an output of one resource share one object type.
 */
function nameAlike(request: z.ZodType, response: z.ZodType, root = false): void {
  const req = unwrap(request).inner;
  const res = unwrap(response).inner;
  const name = NAMES.get(req);
  if (name !== undefined && (root || !NAMES.has(res))) NAMES.set(res, name);
  if (req instanceof z.ZodObject && res instanceof z.ZodObject) {
    const resShape = res.shape as Record<string, z.ZodType>;
    for (const [k, v] of Object.entries(req.shape as Record<string, z.ZodType>))
      if (resShape[k]) nameAlike(v, resShape[k]);
  } else if (req instanceof z.ZodUnion && res instanceof z.ZodUnion) {
    const resOptions = res.options as z.ZodType[];
    (req.options as z.ZodType[]).forEach((o, i) => resOptions[i] && nameAlike(o, resOptions[i]));
  }
}
nameAlike(contract.DestinationTarget, contract.DestinationTargetResponse, true);

/** The enum of event types (`EventSourceReplace.type`), named in PascalCase. */
const EVENT_TYPE = "EventType";

/** Enum member name of a value: `ip_policy_created.v0` → `IpPolicyCreatedV0`. */
function memberName(value: string): string {
  return value
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase())
    .join("");
}

/**
 * Builds the `types` section of the schema while property types are resolved: an object type per
 * named zod object of the contract, an enum per enumeration (event types as `EventType`), a
 * `$ref` to each.
 */
export class TypeBuilder {
  readonly types: Record<string, Json> = {};

  /** @param pkg - the package's name, the first part of each type token (`<pkg>:index:<Type>`). */
  constructor(private readonly pkg: string) {}

  ref(name: string): Json {
    return { $ref: `#/types/${this.pkg}:index:${name}` };
  }

  private enumType(name: string, values: readonly string[], description: string): Json {
    this.types[`${this.pkg}:index:${name}`] ??= {
      type: "string",
      description,
      enum: values.map((value) => ({ name: memberName(value), value })),
    };
    return this.ref(name);
  }

  private objectType(
    name: string,
    description: string,
    properties: Record<string, Json>,
    required: string[],
  ) {
    this.types[`${this.pkg}:index:${name}`] = {
      type: "object",
      description,
      properties,
      ...(required.length > 0 ? { required } : {}),
    };
    return this.ref(name);
  }

  /** Properties and required names of a zod object's shape. */
  properties(shape: Record<string, z.ZodType>): { properties: Record<string, Json>; required: string[] } {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const [key, schema] of Object.entries(shape)) {
      const { optional, meta } = unwrap(schema);
      const described = [PROSE[key], meta.description as string | undefined].filter(Boolean);
      properties[key] = {
        ...this.typeOf(schema),
        description: described.length > 0 ? described.join(" ") : key,
        ...(meta.writeOnly === true ? { secret: true } : {}),
        ...("default" in meta ? { default: meta.default } : {}),
      };
      if (!optional) required.push(key);
    }
    return { properties, required };
  }

  /** The type spec of a zod schema. @throws Error for a kind of schema the mapping lacks. */
  typeOf(schema: z.ZodType): Json {
    const { inner, meta } = unwrap(schema);
    const kind = inner.type;
    const name = NAMES.get(inner);
    if (kind === "string") {
      if (Array.isArray(meta.enum)) return this.enumType(EVENT_TYPE, meta.enum as string[], "An event type.");
      return { type: "string" };
    }
    if (kind === "number") return { type: "number" };
    if (kind === "boolean") return { type: "boolean" };
    if (inner instanceof z.ZodArray) return { type: "array", items: this.typeOf(inner.element as z.ZodType) };
    if (inner instanceof z.ZodEnum) {
      if (!name) throw new Error("an enum of the contract without an export name");
      return this.enumType(name, inner.options as string[], `${name}: one of ${inner.options.join(", ")}.`);
    }
    if (inner instanceof z.ZodObject) {
      if (!name)
        throw new Error(`an object of the contract without an export name: ${Object.keys(inner.shape)}`);
      if (!this.types[`${this.pkg}:index:${name}`]) {
        this.types[`${this.pkg}:index:${name}`] = {}; // placeholder against cycles
        const { properties, required } = this.properties(inner.shape as Record<string, z.ZodType>);
        this.objectType(name, `${name} (see docs/service-api.md).`, properties, required);
      }
      return this.ref(name);
    }
    if (inner instanceof z.ZodUnion) {
      // A union of one-member objects (a target's kind, an AWS auth): one object type whose
      // members are all optional, exactly one of which is set.
      if (!name) throw new Error("a union of the contract without an export name");
      // Each option holds its member (the others only as `null`, see the contract's exactlyOne).
      const shape: Record<string, z.ZodType> = {};
      const members = contract.membersOf(inner);
      (inner.options as z.ZodType[]).forEach((option, i) => {
        const o = unwrap(option).inner;
        const member = members[i];
        if (!(o instanceof z.ZodObject) || member === undefined)
          throw new Error(`${name}: only unions of one-member objects map to the schema`);
        shape[member] = (o.shape as Record<string, z.ZodType>)[member].optional();
      });
      if (!this.types[`${this.pkg}:index:${name}`]) {
        this.types[`${this.pkg}:index:${name}`] = {};
        const { properties } = this.properties(shape);
        const members = Object.keys(shape).map((k) => `\`${k}\``);
        this.objectType(name, `${name}: exactly one of ${members.join(", ")}.`, properties, []);
      }
      return this.ref(name);
    }
    throw new Error(`no schema type for a zod ${kind}`);
  }
}
