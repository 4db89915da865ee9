/**
 * Which API key a resource was made or last seen with. Resources are private to their account,
 * and the service has no "who am I" call, so a 404 says "not here" only for the account of the
 * key that asked. A provider whose key changed without the engine seeing it (the dynamic door's
 * `service:apiKey`, a `SERVICE_API_KEY` of the provider process) would take another account's
 * 404 for "already gone": `refresh` would drop the resource from the state and `destroy` report a
 * delete that did not happen, orphaning it silently.
 *
 * So each resource's state carries a stamp of the key: {@link KEY_STAMP}, the first 16 hex digits
 * of a SHA-256 of the key (a fingerprint, never the key: it cannot be turned back into one). A
 * create, an update or a read that finds the resource writes the stamp of the key it used (a key
 * that can see the resource is one of its account). A 404 counts as "gone" only when the stamp is
 * this provider's, or when the state has none (states written before stamps); otherwise it is an
 * error that names both stamps and what to run: the key of the account that made it, or
 * `SERVICE_KEY_CHANGE=rotation` when the key was rotated within the account and the resource is
 * really gone.
 *
 * @packageDocumentation
 */
import { createHash } from "node:crypto";
import { KEY_CHANGE_ENV } from "./configChange";

/**
 * The output holding the stamp. Pulumi treats properties whose names start with `__` as internal:
 * the engine shows them in no diff, and the SDKs expose them as no output.
 */
export const KEY_STAMP = "__keyStamp";

/** The stamp of `apiKey`: 16 lowercase hex digits (64 bits) of SHA-256 over a fixed prefix and the key. */
export function keyStamp(apiKey: string): string {
  return createHash("sha256").update(`pulumi-service key stamp\n${apiKey}`).digest("hex").slice(0, 16);
}

/** The stamp in a resource's state (`props`: its outputs), or `undefined` when it has none. */
export function stampIn(props: unknown): string | undefined {
  const value = (props as Record<string, unknown> | undefined | null)?.[KEY_STAMP];
  return typeof value === "string" && /^[0-9a-f]{16}$/.test(value) ? value : undefined;
}

/**
 * Whether the service's 404 for a resource may count as "gone" when the provider's key has the
 * stamp `current`: yes when `made` (the state's stamp) is `undefined` or `current`, or when
 * `env.SERVICE_KEY_CHANGE` is `rotation` (the user says the key was rotated within the account).
 * @param what - the resource as the error names it, e.g. `event subscription sub_123`.
 * @param operation - what got the 404: `read` (a refresh) or `delete`.
 * @throws Error naming the resource, both stamps and what to run, when neither holds.
 */
export function assertGoneForThisKey(
  what: string,
  operation: "read" | "delete",
  made: string | undefined,
  current: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (made === undefined || made === current || env[KEY_CHANGE_ENV] === "rotation") return;
  const counted = operation === "read" ? "dropped from the state" : "counted as deleted";
  throw new Error(
    `${what} was made with another service API key (key stamp ${made}) than this provider's ` +
      `(key stamp ${current}), and the service answers 404 to this key: it may belong to another account, ` +
      `so it is not ${counted}. Configure the provider with a key of the account that made it ` +
      `(service:apiKey or SERVICE_API_KEY) and run again; if the key was rotated within that account ` +
      `and the resource is really gone, run with ${KEY_CHANGE_ENV}=rotation.`,
  );
}
