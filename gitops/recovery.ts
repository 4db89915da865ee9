/**
 * Recovery after an interrupted deployment.
 *
 * When the Pulumi engine dies in the middle of `pulumi up` (SIGKILL, a CI job cancelled, a lost
 * machine), every create it had started but not finished stays in the stack as a **pending
 * create**: the URN and inputs are known, but not whether the resource was made. Many were:
 * the provider process outlives the engine long enough to finish requests in flight. Pulumi
 * 3.248 offers `pulumi refresh --clear-pending-creates`, which forgets them (the next `up`
 * makes them again: any that had been made become orphans), and
 * `--import-pending-creates URN ID`, which in 3.248 turns the operation into a pending import
 * that neither `refresh` nor `up` acts upon (tested: the resource never enters the state). So the
 * recovery edits the exported stack instead (`pulumi stack export` / `pulumi stack import`):
 *
 * - a pending create whose resource the service holds is **adopted**: moved into the stack's
 *   resources with its ID, so `pulumi refresh` reads it and `up` leaves it alone;
 * - one the service does not hold is **cleared**: `up` creates it;
 * - one that cannot be settled is **kept** (and reported): several candidates match, or an
 *   abuse report (reports cannot be listed).
 *
 * A pending create is matched like an ambiguous create (provider/impl/create/createOnce.ts): an ID the
 * engine recorded is checked with a GET; otherwise the resources of the kind made since
 * {@link CLOCK_SKEW_MS} before the operation started, not already in the stack and not adopted
 * for another pending create, whose fields equal the create's inputs exactly.
 *
 * A run that skipped checkpoints (`PULUMI_EXPERIMENTAL=true PULUMI_SKIP_CHECKPOINTS=true`) and
 * was killed leaves no pending create: the state is as it was before the run. What it made is
 * then found by time instead: {@link findUnrecorded} lists what the service made since the run
 * started that the stack holds nowhere (`service-recover --since TIME --found FILE`), and the
 * next `pulumi up --refresh` with `SERVICE_ADOPT_FROM=FILE` adopts, create by create, those whose
 * values equal the program's (provider/impl/create/recoveryAdoption.ts): only the program's inputs, which that
 * `up` has and an exported stack does not, can tell which resource is which.
 *
 * The command line is `service-recover` (gitops/recover-cli.ts); docs/reliability.md has the
 * whole procedure.
 *
 * @packageDocumentation
 */
import type { ServiceClient } from "../client";
import { NotFoundError } from "../client";
import { CLOCK_SKEW_MS } from "../provider/impl/create/lostAnswer";
import {
  matchesInputs as destinationMatches,
  type DestinationInputs,
} from "../provider/impl/eventDestination";
import {
  matchesInputs as subscriptionMatches,
  type SubscriptionInputs,
} from "../provider/impl/eventSubscription";

/** Type tokens of this package's resources in a Pulumi state. */
export const TYPE_TOKENS = {
  subscription: "pulumi-nodejs:dynamic/service:EventSubscription",
  destination: "pulumi-nodejs:dynamic/service:EventDestination",
  report: "pulumi-nodejs:dynamic/service:AbuseReport",
} as const;

/** The signature Pulumi puts on a secret value in an exported state. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** One resource of an exported stack (the members recovery reads; the rest is kept as is). */
export interface StateResource {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  /** When the operation on it started (RFC 3339). */
  created?: string;
  [member: string]: unknown;
}

/** One pending operation of an exported stack. */
export interface PendingOperation {
  resource: StateResource;
  /** `creating`, `updating`, `deleting`, `reading`, `importing`. */
  type: string;
  [member: string]: unknown;
}

/** The JSON of `pulumi stack export` (version 3). */
export interface ExportedStack {
  version: number;
  deployment: {
    resources?: StateResource[];
    pending_operations?: PendingOperation[];
    [member: string]: unknown;
  };
}

/** What recovery does with one pending operation. */
export interface RecoveryDecision {
  /** URN of the pending operation's resource. */
  urn: string;
  /** The pending operation's type (`creating`, `updating`…); only creates are settled here. */
  operation: string;
  /**
   * `adopt`: the service holds it; it joins the stack's resources with `id`. `clear`: the
   * service does not hold it; the pending create is dropped and `up` creates it. `keep`: left
   * pending, for a person to decide (see `reason`).
   */
  action: "adopt" | "clear" | "keep";
  /** ID of the adopted resource. */
  id?: string;
  /** Why, in words. */
  reason: string;
  /** IDs that matched, when several did. */
  candidates?: string[];
}

/** Options of {@link planRecovery}. */
export interface RecoveryOptions {
  /** How far before an operation's start the lookup reaches, in **ms**; default {@link CLOCK_SKEW_MS}. */
  clockSkewMs?: number;
}

/**
 * A state value as a plain value: a secret exported with `--show-secrets` is unwrapped.
 * @throws Error for an encrypted secret (the stack was exported without `--show-secrets`).
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (o[SECRET_SIG] === SECRET_SIG_VALUE) {
      if (typeof o.plaintext === "string") return plain(JSON.parse(o.plaintext));
      throw new Error(
        "the exported stack holds encrypted secrets: export it with `pulumi stack export --show-secrets`",
      );
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

async function exists(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return true;
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
}

/**
 * Decides, for every pending operation of `stack`, what recovery does (see the module comment).
 * Only reads from the service.
 *
 * @throws Error when the stack holds encrypted secrets, or a client error (authentication,
 *   connection…) after the client's retries.
 */
export async function planRecovery(
  stack: ExportedStack,
  client: ServiceClient,
  options: RecoveryOptions = {},
): Promise<RecoveryDecision[]> {
  const skew = options.clockSkewMs ?? CLOCK_SKEW_MS;
  const taken = new Set((stack.deployment.resources ?? []).map((r) => r.id).filter((id) => id));
  const decisions: RecoveryDecision[] = [];
  for (const op of stack.deployment.pending_operations ?? []) {
    const r = op.resource;
    const decide = (d: Omit<RecoveryDecision, "urn" | "operation">) => {
      decisions.push({ urn: r.urn, operation: op.type, ...d });
      if (d.action === "adopt") taken.add(d.id);
    };
    if (op.type !== "creating") {
      decide({ action: "keep", reason: `a pending ${op.type}, not a create: pulumi refresh settles it` });
      continue;
    }
    const kind =
      r.type === TYPE_TOKENS.subscription
        ? "subscription"
        : r.type === TYPE_TOKENS.destination
          ? "destination"
          : r.type === TYPE_TOKENS.report
            ? "report"
            : undefined;
    if (!kind) {
      decide({ action: "keep", reason: `not a resource of this package (${r.type})` });
      continue;
    }
    const get =
      kind === "subscription"
        ? (id: string) => client.eventSubscriptions.get(id)
        : kind === "destination"
          ? (id: string) => client.eventDestinations.get(id)
          : (id: string) => client.abuseReports.get(id);
    if (r.id && !taken.has(r.id) && (await exists(() => get(r.id!)))) {
      decide({
        action: "adopt",
        id: r.id,
        reason: "the engine had recorded its ID, and the service holds it",
      });
      continue;
    }
    if (kind === "report") {
      decide({
        action: "keep",
        reason:
          "abuse reports cannot be listed, so whether this one was filed cannot be found out; clear it with " +
          "`pulumi refresh --clear-pending-creates` (then `pulumi up` files it, maybe a second time), or put the " +
          "report's ID in the state by hand",
      });
      continue;
    }
    const inputs = plain(r.inputs ?? {}) as Record<string, unknown>;
    const startedMs = r.created ? Date.parse(r.created) : NaN;
    const since = Number.isNaN(startedMs) ? -Infinity : startedMs - skew;
    const found: string[] = [];
    const list = kind === "subscription" ? client.eventSubscriptions.list() : client.eventDestinations.list();
    for await (const live of list) {
      if (Date.parse(live.createdAt) < since) break;
      if (taken.has(live.id)) continue;
      const match =
        kind === "subscription"
          ? subscriptionMatches(
              live as Parameters<typeof subscriptionMatches>[0],
              inputs as unknown as SubscriptionInputs,
            )
          : destinationMatches(
              live as Parameters<typeof destinationMatches>[0],
              inputs as unknown as DestinationInputs,
            );
      if (match) found.push(live.id);
    }
    if (found.length === 1) {
      decide({
        action: "adopt",
        id: found[0],
        reason: "the service holds exactly one resource with its values, made after the create started",
      });
    } else if (found.length === 0) {
      decide({
        action: "clear",
        reason: "the service holds no resource with its values made since: the create did not happen",
      });
    } else {
      decide({
        action: "keep",
        candidates: found,
        reason: `${found.length} resources not in the stack have exactly its values (${found.join(", ")}); keep one (adopt it by hand) and delete the others`,
      });
    }
  }
  return decisions;
}

/**
 * `stack` with the decisions applied: adopted pending creates move to the end of the resources
 * with their ID (outputs: those the engine recorded, else the inputs, which `pulumi refresh`
 * replaces with the live values), cleared ones are dropped, kept ones stay pending. Pure: the
 * argument is not changed.
 */
export function applyRecovery(stack: ExportedStack, decisions: RecoveryDecision[]): ExportedStack {
  const byUrn = new Map(decisions.map((d) => [d.urn, d]));
  const resources = [...(stack.deployment.resources ?? [])];
  const pending: PendingOperation[] = [];
  for (const op of stack.deployment.pending_operations ?? []) {
    const d = op.type === "creating" ? byUrn.get(op.resource.urn) : undefined;
    if (!d || d.action === "keep") {
      pending.push(op);
    } else if (d.action === "adopt") {
      const outputs =
        op.resource.outputs && Object.keys(op.resource.outputs).length > 0
          ? op.resource.outputs
          : { ...(op.resource.inputs ?? {}) };
      resources.push({ ...op.resource, id: d.id, outputs });
    }
  }
  return { ...stack, deployment: { ...stack.deployment, resources, pending_operations: pending } };
}

/** A resource on the service that an exported stack does not hold (see {@link findUnrecorded}). */
export interface UnrecordedResource {
  /** `subscription` or `destination`. */
  kind: "subscription" | "destination";
  /** The service's ID. */
  id: string;
  /** When the service made it (RFC 3339, the API's `created_at`). */
  createdAt: string;
  /** Its description (empty when it has none). */
  description: string;
}

/**
 * The event subscriptions and destinations the service made since `sinceMs` (less
 * `options.clockSkewMs`, default {@link CLOCK_SKEW_MS}) whose IDs `stack` does not hold, among its
 * resources or its pending operations, newest first per kind. After a `pulumi up` killed while it
 * skipped checkpoints (`PULUMI_SKIP_CHECKPOINTS=true`), the state holds nothing of what that run
 * made: these are its creates (and anything else made meanwhile in the account, such as another
 * stack's resources). The next `pulumi up --refresh` with `SERVICE_ADOPT_FROM` naming a file of
 * them (`service-recover --found`) adopts those the program declares. Abuse reports cannot be listed and are not looked for.
 * Only reads from the service.
 *
 * @param sinceMs - when the interrupted run started, in **milliseconds** since the Unix epoch.
 * @throws a client error (authentication, connection…) after the client's retries.
 */
export async function findUnrecorded(
  stack: ExportedStack,
  client: ServiceClient,
  sinceMs: number,
  options: RecoveryOptions = {},
): Promise<UnrecordedResource[]> {
  const since = sinceMs - (options.clockSkewMs ?? CLOCK_SKEW_MS);
  const held = new Set(
    [
      ...(stack.deployment.resources ?? []),
      ...(stack.deployment.pending_operations ?? []).map((op) => op.resource),
    ]
      .map((r) => r.id)
      .filter((id) => id),
  );
  const found: UnrecordedResource[] = [];
  const kinds = [
    ["subscription", () => client.eventSubscriptions.list()],
    ["destination", () => client.eventDestinations.list()],
  ] as const;
  for (const [kind, list] of kinds) {
    for await (const live of list()) {
      if (Date.parse(live.createdAt) < since) break;
      if (!held.has(live.id)) {
        found.push({ kind, id: live.id, createdAt: live.createdAt, description: live.description });
      }
    }
  }
  return found;
}
