/**
 * What a change of the provider's configuration does to its resources (`DiffConfig`). Settings
 * that only change how the provider talks (timeouts, retries, a CA) update it in place. Settings
 * that say where its resources live replace the provider, and so every resource it manages: the
 * engine creates them through the new configuration and deletes them through the old one.
 *
 * - `baseUrl` changed: another service, so a replacement.
 * - `apiKey` changed: a key rotated within the account updates in place (no resource touched); a
 *   key of another account replaces. The service has no "who am I" call, but resources are
 *   private to their account, so the provider lists the first page of event destinations and
 *   subscriptions with each key: a resource seen by both, or none seen by either, is one account;
 *   different resources, two.
 * - When it cannot tell (the old key is refused, as after a revocation; the service cannot be
 *   reached), it fails, before anything is changed, with an error that says what to run:
 *   `SERVICE_KEY_CHANGE=rotation` or `SERVICE_KEY_CHANGE=move` in the environment of **one**
 *   `pulumi up` decides instead of the listing. It never guesses, so nothing is orphaned silently.
 *
 * `SERVICE_KEY_CHANGE` is meant for the one run that needs it, then unset: while it says
 * `rotation`, every `apiKey` change counts as a rotation and the key stamp checks of keyStamp.ts
 * are off (another key's 404 counts as "gone"), so each process it takes effect in warns once
 * ({@link rotationInEffect}), more loudly where the environment looks persistent (`CI` set).
 *
 * @packageDocumentation
 */
import type * as Client from "../../client/client";
import { AuthenticationError } from "../../client/errors";
import { UNKNOWN } from "./inputChecks";
import { warn } from "./process/debugLog";

/**
 * The environment variable, for one run, that decides an `apiKey` change the listing cannot:
 * `rotation` (the same account: nothing is replaced, and the key stamp checks are off for the
 * run) or `move` (another account: the provider's resources are replaced).
 */
export const KEY_CHANGE_ENV = "SERVICE_KEY_CHANGE";

/** Whether this process has warned about `SERVICE_KEY_CHANGE=rotation` already. */
let rotationWarned = false;

/** Whether `env` looks like a CI job's, whose variables stay from one run to the next. */
function looksPersistent(env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/**
 * Whether `SERVICE_KEY_CHANGE=rotation` is set in `env`: call it only where it takes effect (an
 * `apiKey` change taken for a rotation, another key's 404 taken for "gone"). When it is set, the
 * first call of the process warns, through process/debugLog.ts `warn` (Pulumi's log, shown by `pulumi up`),
 * that the key stamp checks are off for this run and to unset the variable afterwards; louder when
 * `env.CI` is set (a CI job's environment keeps it for every later run). Never throws.
 * @returns `true` when `env[KEY_CHANGE_ENV]` is `rotation`.
 */
export function rotationInEffect(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env[KEY_CHANGE_ENV] !== "rotation") return false;
  if (!rotationWarned) {
    rotationWarned = true;
    let message =
      `${KEY_CHANGE_ENV}=rotation is set: for this run, any change of the service apiKey counts as a ` +
      `rotation within the account, and the key stamp checks are off (a 404 to this key counts as "gone" even ` +
      `for a resource another key made). It is meant for one run: unset ${KEY_CHANGE_ENV} once this run is done.`;
    if (looksPersistent(env)) {
      message =
        `${KEY_CHANGE_ENV}=rotation IS SET IN WHAT LOOKS LIKE A CI ENVIRONMENT (CI is set). ${message} ` +
        `If the CI job's configuration sets it, remove it there now: left in place, every later run takes ` +
        `another account's 404 for "gone", dropping from the state, or counting as deleted, resources that still exist.`;
    }
    void warn(message);
  }
  return true;
}

/** The settings of a provider configuration that say where its resources live. */
export interface Endpoint {
  apiKey?: string;
  baseUrl?: string;
  caCertificate?: string;
}

/** The verdict on a configuration change: which changed settings replace the provider, and why. */
export interface ConfigVerdict {
  /** Settings whose change replaces the provider and its resources (`baseUrl`, `apiKey`), or none. */
  replaces: string[];
  /** Why, in a sentence, when something replaces. */
  why?: string;
}

/** A setting as the provider process resolves it: the configuration's, else its environment variable. */
function setting(
  config: Record<string, unknown>,
  name: keyof Endpoint,
  env: NodeJS.ProcessEnv,
): string | undefined {
  const value = config[name];
  if (typeof value === "string" && value !== "") return value;
  const fallback = {
    apiKey: "SERVICE_API_KEY",
    baseUrl: "SERVICE_BASE_URL",
    caCertificate: "SERVICE_CA_CERTIFICATE",
  }[name];
  return env[fallback] || undefined;
}

/** `url` compared as the service's origin and path, without a trailing slash. */
function sameService(a: string | undefined, b: string | undefined): boolean {
  const norm = (u: string | undefined) => {
    if (u === undefined) return "";
    try {
      return new URL(u).href.replace(/\/+$/, "");
    } catch {
      return u;
    }
  };
  return norm(a) === norm(b);
}

/** The IDs of the first page of destinations and subscriptions an endpoint's key sees. */
async function firstIds(endpoint: Endpoint): Promise<Set<string>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ServiceClient } = require("../../client/client") as typeof Client;
  const client = new ServiceClient({
    apiKey: endpoint.apiKey,
    baseUrl: endpoint.baseUrl,
    caCertificate: endpoint.caCertificate,
    maxRetries: 2,
    retryBudgetMs: 10_000,
    userAgent: "pulumi-service-provider",
  });
  try {
    const ids = new Set<string>();
    for (const kind of [client.eventDestinations, client.eventSubscriptions]) {
      for await (const page of kind.pages({ limit: 100 })) {
        for (const item of page.items) ids.add(item.id);
        break;
      }
    }
    return ids;
  } finally {
    await client.close();
  }
}

/**
 * Decides what the change from the configuration `olds` to `news` (the provider's inputs:
 * `apiKey`, `baseUrl`, …; unset ones fall back to `SERVICE_API_KEY`, `SERVICE_BASE_URL` of
 * `env`) does to the resources. An `apiKey` change is looked up on the service (two listings per
 * key) unless `env[KEY_CHANGE_ENV]` decides it (for this run: `rotation` warns once per process,
 * see {@link rotationInEffect}).
 * @throws Error when the new key is refused (401), when `SERVICE_KEY_CHANGE` is set to anything
 *   but `rotation` or `move`, or when an `apiKey` change cannot be told apart (the old key
 *   refused, the service unreachable) and `SERVICE_KEY_CHANGE` is not set; the message says what
 *   to run, for one run.
 */
export async function configVerdict(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfigVerdict> {
  const before: Endpoint = {
    apiKey: setting(olds, "apiKey", env),
    baseUrl: setting(olds, "baseUrl", env),
    caCertificate: setting(olds, "caCertificate", env),
  };
  const after: Endpoint = {
    apiKey: setting(news, "apiKey", env),
    baseUrl: setting(news, "baseUrl", env),
    caCertificate: setting(news, "caCertificate", env),
  };
  if (after.baseUrl === UNKNOWN || after.apiKey === UNKNOWN) return { replaces: [] };
  if (!sameService(before.baseUrl, after.baseUrl)) {
    return {
      replaces: ["baseUrl"],
      why: `baseUrl changed from ${before.baseUrl ?? "(unset)"} to ${after.baseUrl ?? "(unset)"}: another service`,
    };
  }
  if (before.apiKey === after.apiKey) return { replaces: [] };
  const decided = env[KEY_CHANGE_ENV];
  if (rotationInEffect(env)) return { replaces: [] };
  if (decided === "move") return { replaces: ["apiKey"], why: `${KEY_CHANGE_ENV}=move` };
  if (decided !== undefined && decided !== "") {
    throw new Error(`${KEY_CHANGE_ENV} must be "rotation" or "move", got ${JSON.stringify(decided)}`);
  }
  if (!before.apiKey) return { replaces: [] };

  let newIds: Set<string>;
  try {
    newIds = await firstIds(after);
  } catch (err) {
    if (err instanceof AuthenticationError)
      throw new Error(`the new service apiKey is refused by ${after.baseUrl} (401): check the key`, {
        cause: err,
      });
    throw cannotTell(`${after.baseUrl} could not be asked: ${describe(err)}`, err);
  }
  let oldIds: Set<string>;
  try {
    oldIds = await firstIds(before);
  } catch (err) {
    const why =
      err instanceof AuthenticationError
        ? "the old key is refused (401), as after a revocation"
        : `${before.baseUrl} could not be asked with the old key: ${describe(err)}`;
    throw cannotTell(why, err);
  }
  const shared = [...oldIds].some((id) => newIds.has(id));
  if (shared || (oldIds.size === 0 && newIds.size === 0)) return { replaces: [] };
  return {
    replaces: ["apiKey"],
    why: "the new apiKey belongs to another account (the two keys see different resources)",
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The error of an `apiKey` change that cannot be told apart: what happened, and what to run. */
function cannotTell(why: string, cause: unknown): Error {
  return new Error(
    `cannot tell whether the new service apiKey belongs to the account of the old one: ${why}. ` +
      `If the key was rotated within the same account, run \`${KEY_CHANGE_ENV}=rotation pulumi up\` ` +
      `(nothing is replaced). If it is another account's, run \`${KEY_CHANGE_ENV}=move pulumi up\`: ` +
      `the resources are created in the new account and deleted from the old one, which needs the old key to still work. ` +
      `Set ${KEY_CHANGE_ENV} for that one run only, never in a lasting environment such as a CI job's: ` +
      `while it says rotation, the key stamp checks that keep another account's resources from being dropped are off.`,
    { cause },
  );
}
