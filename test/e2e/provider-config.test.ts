/**
 * Provider configuration changes through the real engine and the native plugin, against the
 * emulator with several accounts (and a second emulator for another service): an explicit
 * provider whose `apiKey` moves to another account, or whose `baseUrl` moves to another service,
 * is replaced with its resources, which end up exactly where the stack says and nowhere else;
 * `destroy` afterwards leaves nothing behind. Program: test/fixtures/native (its `explicit`
 * destinations, through a provider configured by `secondApiKey` and `secondBaseUrl`).
 */
import { ServiceClient } from "../../client";
import { addApiKey, revokeApiKey, startEmulator } from "../helpers/emulator";
import { startDoorsStack, type EngineStack } from "../helpers/engine-stack";
import type { Spec } from "../fixtures/native";

// Every test and hook runs the Pulumi engine, or waits on it: ten minutes each.
jest.setTimeout(600_000);
const KEYS = [
  "sk_config_default_account_1a2b",
  "sk_config_first_account_3c4d",
  "sk_config_second_account_5e6f",
];
/** Keys added to the second account later (rotation), in order. */
const ROTATED = ["sk_config_second_account_rotated_7a8b", "sk_config_second_account_rotated_9c0d"];

/** Two destinations through the explicit provider, nothing through the default one. */
const SPEC: Spec = {
  destinations: [],
  subscriptions: [],
  reports: [],
  explicit: [
    { name: "alpha", args: { description: "alpha", target: { datadog: { apiKey: "dd-config-alpha-key" } } } },
    { name: "beta", args: { description: "beta", target: { datadog: { apiKey: "dd-config-beta-key" } } } },
  ],
};

/** The descriptions of an account's destinations, with their IDs. */
async function held(client: ServiceClient): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const d of client.eventDestinations.list()) out.push([d.description, d.id]);
  return out.sort();
}

describe("explicit provider configuration changes (real engine, native plugin, emulator)", () => {
  let e2e: EngineStack;
  let other: Awaited<ReturnType<typeof startEmulator>>;
  const clients: ServiceClient[] = [];
  /** A client of the account of `key` on `url`. */
  const account = (key: string, url: string) => {
    const client = new ServiceClient({ apiKey: key, baseUrl: url });
    clients.push(client);
    return client;
  };
  /** The stack's destinations: description and ID, from its outputs. */
  const declared = async () =>
    Object.entries((await e2e.outputs()).destinationIds)
      .map(([name, id]) => [name, id] as [string, string])
      .sort();

  /** Gives the second account the new key `key` and the explicit provider that key (an `up` applies it). */
  const rotateTo = async (key: string) => {
    await addApiKey(e2e.emulator.url, e2e.emulator.adminKey, key, KEYS[2]);
    await e2e.stack.setConfig("secondApiKey", { value: key, secret: true });
  };

  beforeAll(async () => {
    e2e = await startDoorsStack("native", "provider-config", KEYS);
    other = await startEmulator({ apiKeys: [ROTATED[1]] });
    await e2e.stack.setConfig("spec", { value: JSON.stringify(SPEC) });
    await e2e.stack.setConfig("secondApiKey", { value: KEYS[1], secret: true });
    await e2e.stack.setConfig("secondBaseUrl", { value: e2e.emulator.url });
  });

  afterAll(async () => {
    for (const c of clients) await c.close();
    await other?.close();
    await e2e?.close();
  });

  it("an apiKey of another account replaces the provider and its resources: made in the new account, deleted from the old", async () => {
    await e2e.stack.up();
    const first = account(KEYS[1], e2e.emulator.url);
    const second = account(KEYS[2], e2e.emulator.url);
    expect(await held(first)).toEqual(await declared());

    await e2e.stack.setConfig("secondApiKey", { value: KEYS[2], secret: true });
    const preview = await e2e.stack.preview();
    expect(preview.changeSummary).toMatchObject({ replace: 3 }); // the provider and both destinations
    const up = await e2e.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ replace: 3 });
    expect(await held(first)).toEqual([]);
    expect(await held(second)).toEqual(await declared());
    await expect(e2e.stack.preview({ expectNoChanges: true })).resolves.toBeDefined();
  });

  it("a key rotated within the account updates the provider in place: no resource is touched", async () => {
    const before = await declared();
    await rotateTo(ROTATED[0]);
    const up = await e2e.stack.up();
    expect(up.summary.resourceChanges).toEqual({ same: 3, update: 1 }); // the provider
    expect(await declared()).toEqual(before);
    expect(await held(account(ROTATED[0], e2e.emulator.url))).toEqual(before);
  });

  it("a rotation after the old key was revoked: up fails saying what to run, and SERVICE_KEY_CHANGE=rotation updates in place", async () => {
    const before = await declared();
    await rotateTo(ROTATED[1]);
    await revokeApiKey(e2e.emulator.url, e2e.emulator.adminKey, ROTATED[0]);
    const failed = await e2e.stack.up().then(
      () => "the up succeeded",
      (err: Error) => err.message,
    );
    expect(failed).toMatch(/the old key is refused \(401\), as after a revocation/);
    expect(failed).toMatch(/run `SERVICE_KEY_CHANGE=rotation pulumi up`/);
    expect(await held(account(ROTATED[1], e2e.emulator.url))).toEqual(before);

    e2e.stack.workspace.envVars.SERVICE_KEY_CHANGE = "rotation";
    try {
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges).toEqual({ same: 3, update: 1 });
    } finally {
      delete e2e.stack.workspace.envVars.SERVICE_KEY_CHANGE;
    }
    expect(await declared()).toEqual(before);
  });

  it("a baseUrl of another service replaces them too; destroy then leaves both services empty", async () => {
    const here = account(ROTATED[1], e2e.emulator.url);
    const there = account(ROTATED[1], other.url);
    await e2e.stack.setConfig("secondBaseUrl", { value: other.url });
    const up = await e2e.stack.up();
    expect(up.summary.resourceChanges).toMatchObject({ replace: 3 });
    expect(await held(here)).toEqual([]);
    expect(await held(there)).toEqual(await declared());

    const destroy = await e2e.stack.destroy();
    expect(destroy.summary.resourceChanges).toMatchObject({ delete: 4 }); // 2 destinations, provider, stack
    expect(await held(there)).toEqual([]);
    for (const key of [KEYS[0], KEYS[1], ROTATED[1]])
      expect(await held(account(key, e2e.emulator.url))).toEqual([]);
  });
});
