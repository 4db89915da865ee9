/**
 * Recovery adoption ({@link recoveryAdoption}, turned on by `SERVICE_ADOPT_FROM`): a
 * `pulumi up` killed while it skipped checkpoints leaves none of its creates in the state, so the
 * `up` that finishes it must not make them again. Each of its creates first takes an unclaimed
 * resource with exactly its values among those `service-recover --since` found (made since the
 * killed run started, held by no resource of the stack); the deployment's claims (claims.ts) keep
 * two creates from taking one. The limit of createOnce.ts applies: an identical resource made by
 * another deployment in that window is among them and can be taken.
 *
 * @packageDocumentation
 */
import { readFileSync } from "node:fs";
import type { ClaimStore } from "./createOnceSpec";
import { LISTINGS, describe } from "./lostAnswer";
import { listSince } from "./lookup";

/** What recovery adoption ({@link recoveryAdoption}) needs of one kind and one create. */
export interface RecoverySpec<T extends { id: string; createdAt: string }> {
  /** The kind, as a create names it (e.g. `event subscription`). */
  what: string;
  /** The resources an interrupted deployment made ({@link adoptionCandidates}). */
  from: AdoptionCandidates;
  /** Every resource of the kind, newest first. */
  list(): AsyncIterable<T>;
  /** True when `live` has exactly the values the create sends. */
  matches(live: T): boolean;
  /**
   * Called with the adopted resource before it is returned; what it returns is the create's
   * result (a destination writes its write-only secret again). Default: the resource as listed.
   */
  afterRecoveryAdoption?(adopted: T): Promise<T>;
  /** Says through Pulumi's log what was adopted. */
  warn?(message: string): Promise<void>;
}

/**
 * Recovery adoption as the create-once protocol's first step (`CreateOnceSpec.recover`,
 * createOnceSpec.ts): returns the step, which lists the kind's resources among `spec.from.ids`
 * once per claim store, newest first (back to `from.oldestMs`); claims the first that matches and
 * that no resource of this deployment holds, and gives it to `afterRecoveryAdoption`. When that
 * fails, the claim is given back, so that the next `up` (or another create of this deployment)
 * can take the resource instead of leaving it behind.
 *
 * The step returns the adopted resource (as `afterRecoveryAdoption` returns it), or `undefined`
 * when there is none (the create goes on as usual). It throws Error when the listing fails
 * `listings` times (default {@link LISTINGS}; nothing is created then), and Error saying the
 * resource was adopted but not written, with its cause, when `afterRecoveryAdoption` fails.
 */
export function recoveryAdoption<T extends { id: string; createdAt: string }>(
  spec: RecoverySpec<T>,
  listings = LISTINGS,
): (store: ClaimStore) => Promise<T | undefined> {
  return async (store) => {
    const candidates = await store.once(`recovery:${spec.what}`, () =>
      listSince(
        () => spec.list(),
        spec.from.oldestMs,
        (live) => spec.from.ids.has(live.id),
        listings,
        (err) =>
          new Error(
            `${spec.what}: SERVICE_ADOPT_FROM is set, and listing the ${spec.what}s it names failed ${listings} times ` +
              `(last: ${describe(err)}); nothing was created. Run pulumi up again.`,
          ),
      ),
    );
    // From the match to the claim, nothing awaits: no other create can take the same one.
    const adopted = candidates.find((live) => spec.matches(live) && store.tryClaim(live.id));
    if (!adopted) return undefined;
    await spec.warn?.(
      `${spec.what}: ${adopted.id} has exactly these values, is listed in SERVICE_ADOPT_FROM (made by an interrupted run, ` +
        `held by no resource of the stack) and no other resource of this deployment holds it: adopted it instead of creating one`,
    );
    if (!spec.afterRecoveryAdoption) return adopted;
    try {
      return await spec.afterRecoveryAdoption(adopted);
    } catch (err) {
      store.release(adopted.id);
      throw new Error(
        `${spec.what}: ${adopted.id} was adopted (made by an interrupted run), but writing the program's values to it failed ` +
          `(${describe(err)}); it is not held by this deployment, so running pulumi up again with the same SERVICE_ADOPT_FROM takes it`,
        { cause: err },
      );
    }
  };
}

/**
 * The environment variable that turns on **recovery adoption** of the providers' creates: the
 * path of the file `service-recover --since TIME --found FILE` writes, listing the event
 * subscriptions and destinations the service made since an interrupted `pulumi up` started that
 * the stack holds nowhere. Set it in the environment of the `pulumi up` that finishes such a run
 * (the provider process inherits it from the CLI). See {@link adoptionCandidates}.
 */
export const ADOPT_FROM_ENV = "SERVICE_ADOPT_FROM";

/** The resources of one kind that recovery adoption may take (see {@link adoptionCandidates}). */
export interface AdoptionCandidates {
  /** Their IDs. */
  ids: ReadonlySet<string>;
  /** The oldest one's `created_at`, in **milliseconds** since the Unix epoch: a listing stops there. */
  oldestMs: number;
}

/** The file of {@link ADOPT_FROM_ENV}, read once per process. */
let candidates: { file: string; byKind: Record<string, AdoptionCandidates> } | undefined;

/**
 * When {@link ADOPT_FROM_ENV} is set: the resources of `kind` listed in its file. Every create
 * of an event subscription or destination then first looks among them for one with exactly its
 * values that no other resource of the deployment holds, and adopts it instead of creating one
 * (see {@link recoveryAdoption}). This is how a deployment finishes one that was killed with
 * `PULUMI_SKIP_CHECKPOINTS=true`, whose creates the state does not record. Only resources the
 * stack did not hold when `service-recover` read it are listed, so none is ever taken from
 * another resource of the stack.
 *
 * @returns `undefined` when the variable is unset or empty, or the file lists nothing of `kind`.
 * @throws Error naming the variable and the file when it cannot be read or is not the JSON
 *   `service-recover --found` writes (`{ "since": …, "resources": [{ "kind", "id", "createdAt" }…] }`).
 */
export function adoptionCandidates(kind: "subscription" | "destination"): AdoptionCandidates | undefined {
  const file = process.env[ADOPT_FROM_ENV]?.trim();
  if (!file) return undefined;
  if (candidates?.file !== file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (err) {
      throw new Error(
        `${ADOPT_FROM_ENV}=${file}: cannot read the file (${err instanceof Error ? err.message : String(err)}); give the file written by service-recover --found`,
      );
    }
    const resources = (parsed as { resources?: unknown } | null)?.resources;
    const valid =
      Array.isArray(resources) &&
      resources.every(
        (r: { kind?: unknown; id?: unknown; createdAt?: unknown }) =>
          (r?.kind === "subscription" || r?.kind === "destination") &&
          typeof r.id === "string" &&
          typeof r.createdAt === "string" &&
          !Number.isNaN(Date.parse(r.createdAt)),
      );
    if (!valid) {
      throw new Error(
        `${ADOPT_FROM_ENV}=${file}: not a file written by service-recover --found (it needs "resources": [{ "kind", "id", "createdAt" }, …])`,
      );
    }
    const byKind: Record<string, { ids: Set<string>; oldestMs: number }> = {};
    for (const r of resources as { kind: string; id: string; createdAt: string }[]) {
      const k = (byKind[r.kind] ??= { ids: new Set(), oldestMs: Infinity });
      k.ids.add(r.id);
      k.oldestMs = Math.min(k.oldestMs, Date.parse(r.createdAt));
    }
    candidates = { file, byKind };
  }
  return candidates.byKind[kind];
}
