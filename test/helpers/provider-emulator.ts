/**
 * The provider's process state configured against a fresh emulator, for tests of one resource's
 * `create`, `read` and `remove` (provider/impl/*.ts) over HTTP: the emulator started with one
 * account's key before the file's tests, the runtime configured with it, both let go after.
 */
import { ServiceClient } from "../../client";
import { randomUUID } from "node:crypto";
import { APIConnectionError } from "../../client/errors";
import { PENDING_CREATE_OUTPUT, PLACEHOLDER_PREFIX } from "../../provider/impl/create/pendingCreate";
import * as runtime from "../../provider/impl/runtime";
import { startEmulator, type RunningEmulator } from "./emulator";

/** What {@link useProviderOnEmulator} gives a test: the emulator, and a client of the same key. */
export interface ProviderOnEmulator {
  emulator: RunningEmulator;
  /** A client of the account's key, to act on the service outside the provider (out of band). */
  client: ServiceClient;
}

/**
 * Starts an emulator whose one account has `apiKey` and configures the provider runtime with it
 * (as `pulumi up` would: `service:apiKey`, `service:baseUrl`) in `beforeAll`; unconfigures and
 * closes both in `afterAll`. Call at the top of a `describe`.
 * @returns a getter, valid inside tests, of the emulator and a client of the key.
 */
export function useProviderOnEmulator(apiKey: string): () => ProviderOnEmulator {
  let running: ProviderOnEmulator | undefined;
  beforeAll(async () => {
    const emulator = await startEmulator({ apiKeys: [apiKey] });
    running = { emulator, client: new ServiceClient({ apiKey, baseUrl: emulator.url }) };
    await runtime.configure({
      config: { get: (k: string) => ({ "service:apiKey": apiKey, "service:baseUrl": emulator.url })[k] },
    });
  });
  afterAll(async () => {
    await runtime.configure({ config: { get: () => undefined } });
    await running?.client.close();
    await running?.emulator.close();
  });
  return () => {
    if (!running) throw new Error("useProviderOnEmulator: the emulator runs only inside tests");
    return running;
  };
}

/**
 * The error of a create whose answer was lost after the service may have made the resource, as the
 * client throws it (`maybeApplied`): what a create-once protocol sends again or looks for.
 * @param request - method and path, e.g. `POST /event_subscriptions`.
 */
export function lostAnswer(request: string): APIConnectionError {
  const lost = new APIConnectionError(`${request}: socket hang up`, { request });
  lost.maybeApplied = true;
  return lost;
}

/**
 * The state a create that timed out just now leaves (pendingCreate.ts): a placeholder ID, and as
 * its outputs the values `sent` with the marker of the create sent under `idempotencyKey` with this
 * provider's key. Configure the runtime first (its key stamp is read).
 */
export function placeholderOf<T extends object>(
  sent: T,
  idempotencyKey: string,
): { id: string; props: T & { [PENDING_CREATE_OUTPUT]: object } } {
  return {
    id: `${PLACEHOLDER_PREFIX}${randomUUID()}`,
    props: {
      ...sent,
      [PENDING_CREATE_OUTPUT]: {
        sentAtMs: Date.now(),
        windowMs: 32_000,
        idempotencyKey,
        keyStamp: runtime.currentKeyStamp(),
      },
    },
  };
}
