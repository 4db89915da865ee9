/**
 * Recovery adoption ({@link CreateOnceSpec.adoptFrom}, set by `SERVICE_ADOPT_FROM`): a
 * `pulumi up` killed while it skipped checkpoints leaves none of its creates in the state, so the
 * `up` that finishes it must not make them again. Each of its creates first takes an unclaimed
 * resource with exactly its values among those `service-recover --since` found (made since the
 * killed run started, held by no resource of the stack); the deployment's claims (claims.ts) keep
 * two creates from taking one. The limit of ambiguous.ts applies: an identical resource made by
 * another deployment in that window is among them and can be taken.
 *
 * @packageDocumentation
 */
import type { CreateOnceSpec } from "./createOnceSpec";
import type { ClaimRegistry } from "./claims";
import { listSince } from "./listing";

/**
 * Recovery adoption (see {@link CreateOnceSpec.adoptFrom}): the kind's resources among
 * `from.ids`, listed once per registry, newest first; claims the first that matches and that no
 * resource of this deployment holds.
 *
 * @returns the adopted resource, or `undefined` when there is none (the create goes on as usual).
 * @param listings - how many times the kind is listed before the create gives up.
 * @throws Error when the listing fails `listings` times (nothing is created then).
 */
export async function adoptListed<T extends { id: string; createdAt: string }>(
  spec: CreateOnceSpec<T>,
  registry: ClaimRegistry,
  from: { ids: ReadonlySet<string>; oldestMs: number },
  listings: number,
): Promise<T | undefined> {
  const candidates = await registry.once(`recovery:${spec.what}`, () =>
    listSince(
      spec.list!,
      from.oldestMs,
      (live) => from.ids.has(live.id),
      listings,
      (err) =>
        new Error(
          `${spec.what}: SERVICE_ADOPT_FROM is set, and listing the ${spec.what}s it names failed ${listings} times ` +
            `(last: ${err instanceof Error ? err.message : String(err)}); nothing was created. Run pulumi up again.`,
        ),
    ),
  );
  // From the match to the claim, nothing awaits: no other create can take the same one.
  const adopted = candidates.find((live) => spec.matches!(live) && registry.tryClaim(live.id));
  if (adopted) {
    await spec.warn?.(
      `${spec.what}: ${adopted.id} has exactly these values, is listed in SERVICE_ADOPT_FROM (made by an interrupted run, ` +
        `held by no resource of the stack) and no other resource of this deployment holds it: adopted it instead of creating one`,
    );
  }
  return adopted;
}
