/**
 * Implementation of the `EventDestination` dynamic provider, loaded by package name inside the
 * provider methods (see provider/eventDestination.ts). Reference: docs/service-api.md § Event destinations.
 *
 * Write-only secrets (`awsSecretAccessKey`, Datadog `apiKey`, Azure `clientSecret`) come back
 * from the API as `""`; the provider keeps the values the program gave, so a refresh shows no
 * perpetual diff. They stay secret: the resource marks `target` as a secret input and output.
 * A secret changed outside Pulumi cannot be seen (the API never returns it).
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import type { DestinationTarget, EventDestination } from "../../sdk";
import { checkEventDestinationInputs } from "../validation";
import { changedProperties, sameJson } from "./compare";
import { OPTIONAL_STRINGS, SECRET_PATHS } from "../../contract/eventDestination";
import { readForAdoption } from "./adopt";
import { claimId, createOnce } from "./ambiguous";
import { deleteUnlessGone, getClient, getUnlessGone, warn } from "./runtime";

/** Inputs as the provider receives them (after `check`). */
export interface DestinationInputs {
  format?: "json";
  target: DestinationTarget;
  description?: string;
  metadata?: string;
  adoptId?: string;
}

/** Outputs (the state) of an `EventDestination`. */
export interface DestinationOutputs {
  format: "json";
  target: DestinationTarget;
  description: string;
  metadata: string;
  uri: string;
  createdAt: string;
}

type Json = Record<string, unknown>;

function kindOf(target: unknown): string | undefined {
  return target && typeof target === "object" ? Object.keys(target as Json)[0] : undefined;
}

function getPath(obj: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((o, k) => (o && typeof o === "object" ? (o as Json)[k] : undefined), obj);
}

function setPath(obj: Json, path: readonly string[], value: unknown): void {
  let o: Json = obj;
  for (const k of path.slice(0, -1)) {
    if (!o[k] || typeof o[k] !== "object") return;
    o = o[k] as Json;
  }
  o[path[path.length - 1]] = value;
}

/** `target` with unset optional strings as `""`, the form the API returns. */
export function normalizeTarget(target: DestinationTarget): DestinationTarget {
  const kind = kindOf(target);
  if (!kind) return target;
  const copy = JSON.parse(JSON.stringify(target)) as Json;
  for (const field of OPTIONAL_STRINGS[kind] ?? []) {
    const inner = copy[kind] as Json;
    if (inner[field] === undefined || inner[field] === null) inner[field] = "";
  }
  return copy as DestinationTarget;
}

/**
 * The live target with each write-only secret the API blanked (`""`) taken from `known` (the
 * program's or the last deployment's target), when both are of the same kind.
 */
export function withKnownSecrets(
  live: DestinationTarget,
  known: DestinationTarget | undefined,
): DestinationTarget {
  const kind = kindOf(live);
  if (!kind || !known || kindOf(known) !== kind) return live;
  const copy = JSON.parse(JSON.stringify(live)) as Json;
  for (const path of SECRET_PATHS[kind] ?? []) {
    const full = [kind, ...path];
    if (getPath(copy, full) === "" && typeof getPath(known, full) === "string") {
      setPath(copy, full, getPath(known, full));
    }
  }
  return copy as DestinationTarget;
}

/** Maps the API's destination to outputs, keeping the known write-only secrets. */
export function toOutputs(dest: EventDestination, known: DestinationTarget | undefined): DestinationOutputs {
  return {
    format: dest.format,
    target: withKnownSecrets(normalizeTarget(dest.target), known),
    description: dest.description,
    metadata: dest.metadata,
    uri: dest.uri,
    createdAt: dest.createdAt,
  };
}

/** The inputs that describe `out` exactly (returned by `read`). */
export function toInputs(out: DestinationOutputs): DestinationInputs {
  const inputs: DestinationInputs = { format: out.format, target: out.target };
  if (out.description) inputs.description = out.description;
  if (out.metadata) inputs.metadata = out.metadata;
  return inputs;
}

function body(news: DestinationInputs) {
  return {
    format: news.format ?? "json",
    target: news.target,
    description: news.description ?? "",
    metadata: news.metadata ?? "",
  };
}

/** `target` in the form the API returns it: optional strings `""`, write-only secrets `""`. */
export function asReturned(target: DestinationTarget): DestinationTarget {
  const copy = normalizeTarget(target) as unknown as Json;
  const kind = kindOf(copy);
  for (const path of kind ? (SECRET_PATHS[kind] ?? []) : []) {
    if (typeof getPath(copy, [kind!, ...path]) === "string") setPath(copy, [kind!, ...path], "");
  }
  return copy as unknown as DestinationTarget;
}

/**
 * True when the live destination has exactly the values a create with these inputs sends:
 * format, description, metadata (`""` when absent) and target — compared in the form the API
 * returns, so write-only secrets, which come back as `""`, cannot tell two destinations apart.
 * Used to find the destination an ambiguous create made and by recovery after an
 * interrupted deployment.
 */
export function matchesInputs(live: EventDestination, news: DestinationInputs): boolean {
  return (
    live.format === (news.format ?? "json") &&
    live.description === (news.description ?? "") &&
    live.metadata === (news.metadata ?? "") &&
    sameJson(asReturned(live.target), asReturned(news.target))
  );
}

/** `check`: validates with the client's rules; unknown values are not failures. */
export async function check(_olds: unknown, news: DestinationInputs): Promise<pulumi.dynamic.CheckResult> {
  return { inputs: news, failures: checkEventDestinationInputs(news as unknown as Json) };
}

/** The properties `diff` compares, each with "equal?" on old outputs and new inputs. */
const MANAGED: Record<string, (olds: DestinationOutputs, news: DestinationInputs) => boolean> = {
  format: (o, n) => (o.format ?? "json") === (n.format ?? "json"),
  description: (o, n) => (o.description ?? "") === (n.description ?? ""),
  metadata: (o, n) => (o.metadata ?? "") === (n.metadata ?? ""),
  target: (o, n) => sameJson(normalizeTarget(o.target), normalizeTarget(n.target)),
};

/** `diff`: every change (the target's kind included) is an update in place. */
export async function diff(
  id: string,
  olds: DestinationOutputs,
  news: DestinationInputs,
): Promise<pulumi.dynamic.DiffResult> {
  claimId(id);
  const changes = changedProperties(MANAGED, olds, news).length > 0;
  return { changes, replaces: [], stables: ["uri", "createdAt"], deleteBeforeReplace: false };
}

/**
 * True when `target` holds a write-only secret (`awsSecretAccessKey`, Datadog `apiKey`, Azure
 * `clientSecret`) with a value: such a target cannot be compared with the live one, whose
 * secrets the API returns as `""`.
 */
export function hasWriteOnlySecret(target: DestinationTarget | undefined): boolean {
  const kind = kindOf(target);
  if (!kind) return false;
  return (SECRET_PATHS[kind] ?? []).some((path) => {
    const value = getPath(target, [kind, ...path]);
    return typeof value === "string" && value !== "";
  });
}

/**
 * `create`: creates the destination, or, with `adoptId`, takes an existing one under management:
 * reads it (an error naming the ID if it does not exist in this account) and
 * updates it with one `PATCH` of every managed field, unless its live values already equal the
 * program's. That shortcut applies only to targets without a write-only secret: a secret
 * cannot be read back, so a target holding one is always sent (the PATCH re-sends the
 * configured secret and changes nothing else when the other values match).
 */
export async function create(news: DestinationInputs): Promise<pulumi.dynamic.CreateResult> {
  const client = getClient();
  if (news.adoptId) {
    claimId(news.adoptId);
    const live = await readForAdoption("event destination", "ed_", news.adoptId, (id) =>
      client.eventDestinations.get(id),
    );
    if (!hasWriteOnlySecret(news.target)) {
      const outs = toOutputs(live, news.target);
      const changed = await diff(news.adoptId, outs, news);
      if (!changed.changes) return { id: news.adoptId, outs };
    }
    const dest = await client.eventDestinations.update(news.adoptId, body(news));
    return { id: dest.id, outs: toOutputs(dest, news.target) };
  }
  // One Idempotency-Key per logical create; an answer lost on the way back is resolved without
  // a duplicate or an orphan (see ambiguous.ts).
  const dest = await createOnce({
    what: "event destination",
    create: (idempotencyKey) =>
      client.eventDestinations.create(
        {
          format: news.format ?? "json",
          target: news.target,
          ...(news.description ? { description: news.description } : {}),
          ...(news.metadata ? { metadata: news.metadata } : {}),
        },
        { idempotencyKey },
      ),
    list: () => client.eventDestinations.list(),
    matches: (live) => matchesInputs(live, news),
    keysHonoured: () => client.idempotency.honoured,
    warn,
  });
  return { id: dest.id, outs: toOutputs(dest, news.target) };
}

/** `read` (refresh): the live destination, secrets kept from the state; a 404 removes it. */
export async function read(id: string, props: DestinationOutputs): Promise<pulumi.dynamic.ReadResult> {
  claimId(id);
  const dest = await getUnlessGone(() => getClient().eventDestinations.get(id));
  if (!dest) return {};
  const outs = toOutputs(dest, props?.target);
  return { id, props: outs, inputs: toInputs(outs) };
}

/** `update`: sends every managed field, the whole target included. */
export async function update(
  id: string,
  _olds: DestinationOutputs,
  news: DestinationInputs,
): Promise<pulumi.dynamic.UpdateResult> {
  claimId(id);
  const dest = await getClient().eventDestinations.update(id, body(news));
  return { outs: toOutputs(dest, news.target) };
}

/** `delete`: deletes the destination; one already gone (404) counts as deleted. */
export async function remove(id: string): Promise<void> {
  await deleteUnlessGone(() => getClient().eventDestinations.delete(id));
}
