/**
 * Code generation of `service-drift generate`: a TypeScript Pulumi program that
 * adopts every event destination and event subscription of an account, so that existing
 * resources come under code without being created again.
 *
 * The program:
 * - declares each resource with `EventDestination.adopt(name, id, args)` /
 *   `EventSubscription.adopt(...)` and the live values as `args`, so the first `pulumi up`
 *   sends no create and no delete, and no update where the live values can be compared (see
 *   the providers' adoption);
 * - names resources after their description (`"Audit stream"` → `audit-stream`), or their ID
 *   when they have none; duplicates get `-2`, `-3`, … in the order of their IDs, which is the
 *   order of creation, so names of existing resources never change when others are added;
 * - refers to destinations from subscriptions by resource (`auditStreamDestination.id`), and
 *   only by literal ID to a destination that the account listing does not hold;
 * - reads each write-only secret (the API returns them as `""`) from a secret config value,
 *   `config.requireSecret("<key>")`, to set with `pulumi config set --secret <key> <value>`.
 *   Such a destination gets one `PATCH` on adoption, which re-sends that secret.
 *
 * Output is deterministic: the same account gives the same text. No text from the service is
 * written raw: IDs are checked against the full ID format, and every value goes through
 * {@link stringLiteral}; comments hold only our own text, checked IDs and config keys.
 *
 * @packageDocumentation
 */
import type { DestinationTarget, EventDestination, EventSubscription, ServiceClient } from "../client";
import { ID_BODY_LENGTH, isWellFormedId, type ResourceDescriptor } from "service-contract";
import { OPTIONAL_STRINGS, RESOURCES, SECRET_PATHS } from "service-contract";
import { writableFields } from "service-contract";

const { eventDestination, eventSubscription } = RESOURCES;

/**
 * A TypeScript string literal of `text` that means exactly `text`: JSON's escapes plus U+2028
 * and U+2029 (line terminators to some parsers). The only way a value from the service enters
 * a generated program.
 */
export function stringLiteral(text: string): string {
  return JSON.stringify(text)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/**
 * Checks that `id` is a full ID of the kind `resource` (its prefix + 27 base62 characters)
 * before it is written into a program.
 *
 * @param what - the holder of the ID in words, by default the resource's (`an event destination`).
 * @throws Error naming `what` and the expected format, with the ID quoted by {@link stringLiteral}.
 */
function checkId(id: string, resource: ResourceDescriptor, what = resource.names.article): void {
  const prefix = resource.idPrefix;
  if (!isWellFormedId(id, prefix)) {
    throw new Error(
      `generate: ${what} has the ID ${stringLiteral(String(id)).slice(0, 120)}, which is not ${prefix} followed by ` +
        `${ID_BODY_LENGTH} letters or digits; refusing to write it into a program`,
    );
  }
}

/** What `generate` works from: every destination and subscription of the account. */
export interface Inventory {
  /** The account's event destinations (any order). */
  destinations: EventDestination[];
  /** The account's event subscriptions (any order). */
  subscriptions: EventSubscription[];
}

/** A write-only secret the generated program reads from the stack configuration. */
export interface SecretPlaceholder {
  /** Config key (project namespace), e.g. `auditStreamAwsSecretAccessKey`. */
  configKey: string;
  /** Pulumi name of the destination, e.g. `audit-stream`. */
  resourceName: string;
  /** ID of the destination (`ed_…`). */
  id: string;
  /** Path of the secret in the destination's inputs, e.g. `target.kinesis.auth.creds.awsSecretAccessKey`. */
  path: string;
}

/** The generated program and what it needs. */
export interface GeneratedProgram {
  /** TypeScript source of `index.ts`. */
  source: string;
  /** Secrets to set with `pulumi config set --secret` before `pulumi up`. */
  secrets: SecretPlaceholder[];
  /** Pulumi name of each resource, by ID. */
  names: Record<string, string>;
}

/**
 * Every destination and subscription of the account behind `client` (all pages).
 * @throws the client's errors, e.g. `AuthenticationError` for a bad key.
 */
export async function listInventory(client: ServiceClient): Promise<Inventory> {
  const destinations: EventDestination[] = [];
  for await (const d of client.eventDestinations.list()) destinations.push(d);
  const subscriptions: EventSubscription[] = [];
  for await (const s of client.eventSubscriptions.list()) subscriptions.push(s);
  return { destinations, subscriptions };
}

/**
 * A resource name from a description: lower case ASCII letters and digits joined by `-`,
 * accents dropped, at most 48 characters (cut at a `-` when possible); `""` when nothing is left.
 */
export function slug(text: string): string {
  const words = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let out = "";
  for (const w of words) {
    const next = out ? `${out}-${w}` : w;
    if (next.length > 48) {
      if (!out) out = w.slice(0, 48);
      break;
    }
    out = next;
  }
  return out;
}

/** Picks `base`, else `base-2`, `base-3`, … — the first not in `taken` — and records it. */
function unique(base: string, taken: Set<string>, sep = "-"): string {
  let name = base;
  for (let i = 2; taken.has(name); i += 1) name = `${base}${sep}${i}`;
  taken.add(name);
  return name;
}

/**
 * Stable Pulumi names for resources: {@link slug} of the description, else the ID; in ID order
 * (creation order), later duplicates get `-2`, `-3`, ….
 * @returns the name of each resource, by ID.
 */
export function assignNames(items: readonly { id: string; description: string }[]): Map<string, string> {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  for (const item of [...items].sort((a, b) => compareIds(a.id, b.id))) {
    names.set(item.id, unique(slug(item.description) || item.id, taken));
  }
  return names;
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A camelCase identifier from a name: `audit-stream` → `auditStream`, `ed_2Xy…` → `ed2Xy…`. */
export function identifier(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const id = parts
    .map((p, i) => (i === 0 ? p[0].toLowerCase() + p.slice(1) : p[0].toUpperCase() + p.slice(1)))
    .join("");
  if (!id) return "resource";
  return /^[0-9]/.test(id) ? `r${id}` : id;
}

/** Raw TypeScript inserted as is by {@link render}. */
class Code {
  constructor(readonly code: string) {}
}

/** An object key as TypeScript: bare when it is an identifier, else a string literal. */
function propertyKey(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? key : stringLiteral(key);
}

/** TypeScript text of a JSON-like value; objects and lists on one line when short. */
function render(value: unknown, indent: string): string {
  if (value instanceof Code) return value.code;
  if (Array.isArray(value)) {
    const items = value.map((v) => render(v, `${indent}  `));
    const inline = `[${items.join(", ")}]`;
    if (!inline.includes("\n") && indent.length + inline.length <= 90) return inline;
    return `[\n${items.map((i) => `${indent}  ${i},`).join("\n")}\n${indent}]`;
  }
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const items = entries.map(([k, v]) => `${propertyKey(k)}: ${render(v, `${indent}  `)}`);
    const inline = items.length === 0 ? "{}" : `{ ${items.join(", ")} }`;
    if (!inline.includes("\n") && indent.length + inline.length <= 90) return inline;
    return `{\n${items.map((i) => `${indent}  ${i},`).join("\n")}\n${indent}}`;
  }
  if (typeof value === "string") return stringLiteral(value);
  if (value === null) return "null";
  if (typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  throw new Error(`generate: cannot write a value of type ${typeof value} into a program`);
}

function capitalize(s: string): string {
  return s[0].toUpperCase() + s.slice(1);
}

/**
 * The target as program input: optional strings that are `""` left out, each write-only secret
 * replaced by `config.requireSecret(key)` (recorded in `secrets`).
 */
function targetInput(
  target: DestinationTarget,
  dest: EventDestination,
  name: string,
  keys: Set<string>,
  secrets: SecretPlaceholder[],
): unknown {
  const kind = Object.keys(target)[0];
  const copy = JSON.parse(JSON.stringify(target)) as Record<string, Record<string, unknown>>;
  for (const field of OPTIONAL_STRINGS[kind] ?? []) {
    if (copy[kind][field] === "" || copy[kind][field] === null) delete copy[kind][field];
  }
  const out = copy as Record<string, unknown>;
  for (const secretPath of SECRET_PATHS[kind] ?? []) {
    let holder: Record<string, unknown> | undefined = copy[kind];
    for (const k of secretPath.slice(0, -1)) {
      const next: unknown = holder?.[k];
      holder = next && typeof next === "object" ? (next as Record<string, unknown>) : undefined;
    }
    const field = secretPath[secretPath.length - 1];
    if (!holder || !(field in holder)) continue;
    const configKey = unique(`${identifier(name)}${capitalize(field)}`, keys);
    holder[field] = new Code(`config.requireSecret(${stringLiteral(configKey)})`);
    secrets.push({
      configKey,
      resourceName: name,
      id: dest.id,
      path: ["target", kind, ...secretPath].join("."),
    });
  }
  return out;
}

/**
 * The program's `args` of a live resource: each field of the descriptor's create schema, in its
 * order, from `special` when it names the field (a value the response holds in another form),
 * else the response's own value unless it is the field's default or `""` (left out).
 */
function liveArgs(
  resource: ResourceDescriptor,
  live: object,
  special: Record<string, () => unknown>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const field of writableFields(resource.schemas.create)) {
    const value = (live as Record<string, unknown>)[field.name];
    if (field.name in special) args[field.name] = special[field.name]();
    else if (value !== field.default && value !== "") args[field.name] = value;
  }
  return args;
}

/**
 * The TypeScript program that adopts everything in `inventory` (see the module comment).
 * Pure and deterministic.
 */
export function generateProgram(inventory: Inventory): GeneratedProgram {
  for (const d of inventory.destinations) checkId(d.id, eventDestination);
  for (const s of inventory.subscriptions) {
    checkId(s.id, eventSubscription);
    for (const ref of s.destinations) {
      checkId(ref.id, eventDestination, `a destination of ${eventSubscription.names.singular} ${s.id}`);
    }
  }
  const destinations = [...inventory.destinations].sort((a, b) => compareIds(a.id, b.id));
  const subscriptions = [...inventory.subscriptions].sort((a, b) => compareIds(a.id, b.id));
  const destNames = assignNames(destinations);
  const subNames = assignNames(subscriptions);
  const idents = new Set<string>([
    "pulumi",
    "config",
    eventDestination.pulumiType,
    eventSubscription.pulumiType,
  ]);
  const keys = new Set<string>();
  const secrets: SecretPlaceholder[] = [];
  const destVars = new Map<string, string>();

  const blocks: string[] = [];
  for (const d of destinations) {
    const name = destNames.get(d.id) as string;
    const v = unique(`${identifier(name)}Destination`, idents, "");
    destVars.set(d.id, v);
    const args = liveArgs(eventDestination, d, {
      target: () => targetInput(d.target, d, name, keys, secrets),
    });
    blocks.push(
      `const ${v} = ${eventDestination.pulumiType}.adopt(${stringLiteral(name)}, ${stringLiteral(d.id)}, ${render(args, "")});`,
    );
  }
  const subVars = new Map<string, string>();
  for (const s of subscriptions) {
    const name = subNames.get(s.id) as string;
    const v = unique(`${identifier(name)}Subscription`, idents, "");
    subVars.set(s.id, v);
    const args = liveArgs(eventSubscription, s, {
      sources: () => s.sources.map((src) => ({ type: src.type })),
      destinationIds: () =>
        s.destinations.map((ref) => (destVars.has(ref.id) ? new Code(`${destVars.get(ref.id)}.id`) : ref.id)),
    });
    blocks.push(
      `const ${v} = ${eventSubscription.pulumiType}.adopt(${stringLiteral(name)}, ${stringLiteral(s.id)}, ${render(args, "")});`,
    );
  }

  const setup = [
    "//   pulumi config set service:baseUrl <base URL of the service>",
    "//   pulumi config set --secret service:apiKey <API key>",
    ...secrets.map((p) => `//   pulumi config set --secret ${p.configKey} <value>   # ${p.path} of ${p.id}`),
  ];
  const exportsOf = (vars: Map<string, string>, names: Map<string, string>) =>
    [...vars.entries()].map(([id, v]) => `  ${propertyKey(names.get(id) as string)}: ${v}.id,`).join("\n");

  const source = [
    "// Generated by `service-drift generate`: adopts the existing event destinations and event",
    `// subscriptions of the account (${destinations.length} destination(s), ${subscriptions.length} subscription(s)).`,
    "// The first `pulumi up` creates and deletes nothing on the service: it reads each resource and",
    "// updates only those whose live values cannot be compared (destinations with a write-only",
    "// secret, which the API never returns: their PATCH re-sends the configured secret).",
    "//",
    "// Before the first `pulumi up`, set:",
    ...setup,
    "//",
    "// `pulumi destroy` deletes adopted resources like any other; add `{ retainOnDelete: true }`",
    "// as the last argument of `adopt` to keep one on the service.",
    ...(secrets.length > 0 ? ['import * as pulumi from "@pulumi/pulumi";'] : []),
    `import { ${eventDestination.pulumiType}, ${eventSubscription.pulumiType} } from "pulumi-service";`,
    "",
    ...(secrets.length > 0 ? ["const config = new pulumi.Config();", ""] : []),
    ...blocks.flatMap((b) => [b, ""]),
    `export const destinationIds = {${destVars.size ? `\n${exportsOf(destVars, destNames)}\n` : ""}};`,
    `export const subscriptionIds = {${subVars.size ? `\n${exportsOf(subVars, subNames)}\n` : ""}};`,
    "",
  ].join("\n");

  const names: Record<string, string> = {};
  for (const [id, n] of [...destNames, ...subNames]) names[id] = n;
  return { source, secrets, names };
}
