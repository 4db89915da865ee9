/**
 * The unmanaged check of `service-drift unmanaged`: the event subscriptions and destinations an
 * account holds that are in none of the given stacks' states, such as a subscription someone made
 * by hand that sends the account's events to a destination nobody declared.
 *
 * How:
 *
 * 1. Each stack's state is read once, with `pulumi stack export` through the Automation API
 *    (`readStackStates`, stack-states.ts), in its project folder: the backend is the one `pulumi` uses
 *    there (`PULUMI_BACKEND_URL` of the stack's {@link StackRef.env}, else of the environment,
 *    else the project's `backend.url`, else the login), so file, PostgreSQL and Pulumi Cloud
 *    backends are read the same way, several in one run. Nothing is written.
 * 2. Each account is listed, every page of both lists (`GET /event_subscriptions`,
 *    `GET /event_destinations`, 100 a page).
 * 3. A listed resource is **managed** when a state holds its ID for that account (gitops/managed.ts:
 *    both doors; the account by the base URL and key stamp the state records), **excluded** when
 *    its ID is in {@link Exclusions.ids} or its description starts with one of
 *    {@link Exclusions.descriptionPrefixes}, else **unmanaged**.
 *
 * Abuse reports cannot be listed (the API has no list of them), so they are not checked: the
 * report says so ({@link UnmanagedReport.notChecked}).
 *
 * @packageDocumentation
 */
import * as fs from "fs";
import * as path from "path";
import { type PulumiCommand } from "@pulumi/pulumi/automation";
import { RESOURCES, ServiceClient, isWellFormedId, type ServiceClientOptions } from "../client";
import { assignNames, identifier, listInventory } from "./generate";
import { EXIT_CODES, redact } from "./io";
import {
  NATIVE_TYPES,
  heldInAccount,
  kindOfId,
  managedResources,
  normalizeBaseUrl,
  type ListedKind,
  type ManagedResource,
} from "./managed";
import { UnmanagedError, readStackStates, type StackRef, type StackState } from "./stack-states";

export { NATIVE_TYPES, type ListedKind } from "./managed";
export {
  UnmanagedError,
  parseStackRef,
  readStackStates,
  type ReadStatesOptions,
  type StackRef,
  type StackState,
} from "./stack-states";

/** An account to list. */
export interface ServiceAccount {
  /** What names it in the report (e.g. the variable that holds its key); never the key. */
  name: string;
  /** Base URL of the service, `http` or `https`. */
  baseUrl: string;
  /** Its API key. */
  apiKey: string;
}

/** Resources left out of the report on purpose. */
export interface Exclusions {
  /** IDs (`esb_…`, `ed_…`). */
  ids?: string[];
  /** Description prefixes, e.g. `[unmanaged]`: a resource whose description starts with one. */
  descriptionPrefixes?: string[];
}

/** One resource of an account that no stack manages. */
export interface UnmanagedResource {
  /** {@link ServiceAccount.name} of its account. */
  account: string;
  kind: ListedKind;
  /** The native door's type token, e.g. `service:index:EventSubscription`. */
  type: string;
  id: string;
  /** `""` when it has none. */
  description: string;
  /** RFC 3339 UTC. */
  createdAt: string;
  /** A subscription's destinations (their IDs, in its order); absent for a destination. */
  destinationIds?: string[];
}

/** A resource left out by {@link Exclusions}. */
export interface ExcludedResource {
  account: string;
  kind: ListedKind;
  id: string;
  /** `id` (listed in `ids`) or `description` (its description has a listed prefix). */
  by: "id" | "description";
}

/** Per account: what was listed and how it was counted. */
export interface AccountSummary {
  name: string;
  /** Base URL (no trailing `/`). */
  baseUrl: string;
  /** Subscriptions and destinations listed (all pages). */
  listed: Record<ListedKind, number>;
  managed: number;
  excluded: number;
  unmanaged: number;
}

/** Per stack: how many subscriptions and destinations its state manages. */
export interface StackSummary {
  stack: string;
  workDir: string;
  resources: number;
}

/** The report of the unmanaged check, as `service-drift unmanaged --format json` prints it. */
export interface UnmanagedReport {
  accounts: AccountSummary[];
  stacks: StackSummary[];
  /** Unmanaged resources: per account, destinations then subscriptions, each in ID order. */
  unmanaged: UnmanagedResource[];
  excluded: ExcludedResource[];
  /** What was not checked and why: abuse reports, which the API cannot list. */
  notChecked: { kind: "abuseReport"; reason: string }[];
  /** True when at least one resource is unmanaged (then `exitCode` is 2). */
  found: boolean;
  /** Absolute path of the bulk-import file written, when asked for. */
  importFile?: string;
  /** 0 (none unmanaged) or 2 (some), as the drift report's. */
  exitCode: 0 | 2;
}

/** The steps {@link UnmanagedOptions.onProgress} announces: `states`, `list` (per account), `done`. */
export type UnmanagedPhase = "states" | "list" | "done";

/** Options of {@link runUnmanagedCheck}. */
export interface UnmanagedOptions {
  /** The stacks whose states count (at least one), unless {@link states} is given. */
  stacks?: StackRef[];
  /** States already read (e.g. exported files); read in addition to {@link stacks}. */
  states?: StackState[];
  /** The accounts to list (at least one; names unique). */
  accounts: ServiceAccount[];
  exclude?: Exclusions;
  /** Write a bulk-import file here (`pulumi import --file`); one account only. */
  importFile?: string;
  /** Environment of the Pulumi CLI. Default: this process's environment. */
  env?: Record<string, string>;
  /** The Pulumi CLI. Default: see `findPulumiCommand` of gitops/drift.ts. */
  pulumiCommand?: PulumiCommand;
  /** Options of the clients, besides the account's key and URL (e.g. `maxRetries`). */
  clientOptions?: Partial<ServiceClientOptions>;
  /** Stacks read at once (default 4). */
  concurrency?: number;
  onProgress?: (phase: UnmanagedPhase, detail?: string) => void;
}

/** The text of {@link UnmanagedReport.notChecked}'s abuse reports. */
export const ABUSE_REPORTS_NOT_CHECKED =
  "abuse reports were not checked: the service's API cannot list them (only read one by its ID)";

/** Checks the options before anything is read or sent. @throws UnmanagedError naming the field. */
function checkOptions(opts: UnmanagedOptions): void {
  if ((opts.stacks?.length ?? 0) + (opts.states?.length ?? 0) === 0)
    throw new UnmanagedError(
      "No stack given: pass --stack [DIR:]STACK once per stack whose resources count.",
    );
  if (opts.accounts.length === 0) throw new UnmanagedError("No account given: set SERVICE_API_KEY.");
  const names = new Set<string>();
  for (const a of opts.accounts) {
    if (!a.apiKey) throw new UnmanagedError(`Account ${a.name}: no API key (empty).`);
    let url: URL | undefined;
    try {
      url = new URL(a.baseUrl);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol))
      throw new UnmanagedError(
        `Account ${a.name}: base URL ${JSON.stringify(a.baseUrl)} is not an http(s) URL.`,
      );
    if (names.has(a.name)) throw new UnmanagedError(`Account ${a.name} is given twice.`);
    names.add(a.name);
  }
  for (const id of opts.exclude?.ids ?? []) {
    const kind = kindOfId(id);
    if (!kind || !isWellFormedId(id, RESOURCES[kind].idPrefix))
      throw new UnmanagedError(
        `--exclude-id ${JSON.stringify(id)}: not an esb_… or ed_… ID (prefix + 27 letters or digits).`,
      );
  }
  if ((opts.exclude?.descriptionPrefixes ?? []).some((p) => p === ""))
    throw new UnmanagedError(
      "--exclude-description-prefix: the prefix is empty (it would exclude everything).",
    );
  if (opts.importFile !== undefined && opts.accounts.length > 1)
    throw new UnmanagedError("--import-file takes one account's resources: run the check once per account.");
}

/** Why `r` is excluded, or `undefined`. */
function exclusionOf(
  r: { id: string; description: string },
  exclude: Exclusions,
): "id" | "description" | undefined {
  if (exclude.ids?.includes(r.id)) return "id";
  if (exclude.descriptionPrefixes?.some((p) => r.description.startsWith(p))) return "description";
  return undefined;
}

/**
 * The unmanaged resources of `accounts` given the stacks' states (already read): lists each
 * account (all pages) and compares (see the module comment). Only reads from the service.
 * @throws UnmanagedError naming the account when one cannot be listed (a bad key: the client's
 *   `AuthenticationError`; an unreachable service…), after the client's retries.
 */
export async function findUnmanaged(
  states: readonly StackState[],
  accounts: readonly ServiceAccount[],
  opts: Pick<UnmanagedOptions, "exclude" | "clientOptions" | "onProgress"> = {},
): Promise<Omit<UnmanagedReport, "importFile">> {
  const byId = new Map<string, ManagedResource[]>();
  const stacks: StackSummary[] = [];
  for (const s of states) {
    const managed = managedResources(s.stack, s.deployment);
    stacks.push({ stack: s.stack, workDir: s.workDir, resources: managed.length });
    for (const m of managed) byId.set(m.id, [...(byId.get(m.id) ?? []), m]);
  }
  const exclude = opts.exclude ?? {};
  const summaries: AccountSummary[] = [];
  const unmanaged: UnmanagedResource[] = [];
  const excluded: ExcludedResource[] = [];
  for (const account of accounts) {
    opts.onProgress?.("list", account.name);
    const client = new ServiceClient({
      userAgent: "service-drift-unmanaged",
      ...opts.clientOptions,
      apiKey: account.apiKey,
      baseUrl: account.baseUrl,
    });
    let inventory;
    try {
      inventory = await listInventory(client);
    } catch (err) {
      const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new UnmanagedError(
        redact(`Listing account ${account.name} (${account.baseUrl}) failed: ${text}`, [account.apiKey]),
      );
    } finally {
      await client.close();
    }
    const summary: AccountSummary = {
      name: account.name,
      baseUrl: normalizeBaseUrl(account.baseUrl),
      listed: {
        eventSubscription: inventory.subscriptions.length,
        eventDestination: inventory.destinations.length,
      },
      managed: 0,
      excluded: 0,
      unmanaged: 0,
    };
    const live = [
      ...inventory.destinations.map((d) => ({
        kind: "eventDestination" as const,
        r: d,
        destinationIds: undefined,
      })),
      ...inventory.subscriptions.map((s) => ({
        kind: "eventSubscription" as const,
        r: s,
        destinationIds: s.destinations.map((d) => d.id),
      })),
    ].sort((a, b) =>
      a.kind === b.kind
        ? a.r.id < b.r.id
          ? -1
          : a.r.id > b.r.id
            ? 1
            : 0
        : a.kind === "eventDestination"
          ? -1
          : 1,
    );
    for (const { kind, r, destinationIds } of live) {
      if ((byId.get(r.id) ?? []).some((m) => m.kind === kind && heldInAccount(m, account))) {
        summary.managed += 1;
        continue;
      }
      const by = exclusionOf(r, exclude);
      if (by) {
        summary.excluded += 1;
        excluded.push({ account: account.name, kind, id: r.id, by });
        continue;
      }
      summary.unmanaged += 1;
      unmanaged.push({
        account: account.name,
        kind,
        type: NATIVE_TYPES[kind],
        id: r.id,
        description: r.description ?? "",
        createdAt: r.createdAt,
        ...(destinationIds ? { destinationIds } : {}),
      });
    }
    summaries.push(summary);
  }
  const found = unmanaged.length > 0;
  return {
    accounts: summaries,
    stacks,
    unmanaged,
    excluded,
    notChecked: [{ kind: "abuseReport", reason: ABUSE_REPORTS_NOT_CHECKED }],
    found,
    exitCode: found ? EXIT_CODES.attention : EXIT_CODES.ok,
  };
}

/** One entry of a bulk-import file. */
export interface ImportEntry {
  /** Native type token, e.g. `service:index:EventDestination`. */
  type: string;
  /** Resource name in the program (from the description, as `service-drift generate` names). */
  name: string;
  id: string;
}

/**
 * The bulk-import file of `unmanaged` (`pulumi import --file` reads it): destinations first, then
 * subscriptions, each named after its description as `service-drift generate` names resources
 * (generate.ts's `assignNames`: the ID when there is none, `-2`, `-3`… for duplicates, in ID
 * order), written as a camelCase identifier (`"Audit stream"` → `auditStream`), unique across both
 * kinds: every language's generated code can refer to it (Pulumi YAML's generator writes a
 * reference to `audit-stream` in a form its own converter cannot read).
 */
export function bulkImportFile(unmanaged: readonly UnmanagedResource[]): { resources: ImportEntry[] } {
  const slugs = assignNames(unmanaged);
  const taken = new Set<string>();
  const order = (k: ListedKind) => (k === "eventDestination" ? 0 : 1);
  const sorted = [...unmanaged].sort((a, b) => order(a.kind) - order(b.kind) || (a.id < b.id ? -1 : 1));
  const names = new Map<string, string>();
  for (const r of [...unmanaged].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const base = identifier(slugs.get(r.id) as string);
    let name = base;
    for (let i = 2; taken.has(name); i += 1) name = `${base}${i}`;
    taken.add(name);
    names.set(r.id, name);
  }
  return { resources: sorted.map((r) => ({ type: r.type, name: names.get(r.id) as string, id: r.id })) };
}

/**
 * Runs the unmanaged check: reads the stacks' states, lists the accounts, compares; writes the
 * bulk-import file when asked. Writes nothing to any state nor to the service.
 *
 * @returns the report; its `exitCode` is 0 (nothing unmanaged) or 2.
 * @throws UnmanagedError for bad options (before anything is read), a stack that cannot be read,
 *   or an account that cannot be listed (a bad key, an unreachable service…); its message holds
 *   no API key.
 */
export async function runUnmanagedCheck(opts: UnmanagedOptions): Promise<UnmanagedReport> {
  checkOptions(opts);
  const secrets = opts.accounts.map((a) => a.apiKey);
  try {
    opts.onProgress?.("states");
    const states = [...(opts.states ?? []), ...(await readStackStates(opts.stacks ?? [], opts))];
    const report: UnmanagedReport = await findUnmanaged(states, opts.accounts, opts);
    if (opts.importFile !== undefined) {
      const file = path.resolve(opts.importFile);
      fs.writeFileSync(file, `${JSON.stringify(bulkImportFile(report.unmanaged), null, 2)}\n`);
      report.importFile = file;
    }
    opts.onProgress?.("done");
    return report;
  } catch (err) {
    if (err instanceof UnmanagedError) throw new UnmanagedError(redact(err.message, secrets));
    const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new UnmanagedError(redact(`The unmanaged check failed: ${text}`, secrets));
  }
}
