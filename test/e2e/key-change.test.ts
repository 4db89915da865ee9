/**
 * An API key of another account that the engine never sees change, through the real engine on
 * both doors against the emulator with two accounts: the dynamic door's `service:apiKey` (no
 * provider resource holds it, so nothing is diffed) and the native door's default provider keyed
 * by `SERVICE_API_KEY` in the plugin's environment (no configuration to diff). Each resource's
 * state carries the stamp of the key that made it (provider/impl/keyStamp.ts), so the other
 * account's 404s are not taken for "gone": a refresh fails and drops nothing, an `up` whose
 * program no longer declares a subscription fails and reports nothing deleted, the resources
 * stay in the first account; with the first key back, `destroy` deletes them. Program:
 * test/fixtures/native.
 */
import type { Spec } from "../fixtures/native";
import { startDoorsStack, type EngineStack } from "../helpers/engine-stack";
import { disposeStack } from "../helpers/pulumi";

// Every test and hook runs the Pulumi engine, or waits on it: ten minutes each.
jest.setTimeout(600_000);

const FIRST = "sk_unseen_first_account_aaaa";
const SECOND = "sk_unseen_second_account_bbbb";

const SPEC: Spec = {
  destinations: [
    { name: "dest", args: { description: "kept", target: { datadog: { apiKey: "dd-unseen-key" } } } },
  ],
  subscriptions: [
    {
      name: "sub",
      destinations: ["dest"],
      args: { description: "kept", sources: [{ type: "ip_policy_created.v0" }] },
    },
  ],
  reports: [],
};

/** The message of a 404 to another key than the one a resource was made with. */
const OTHER_KEY =
  /event (subscription|destination) \S+ was made with another service API key \(key stamp [A-Za-z0-9_-]{6}…\) than this provider's \(key stamp [A-Za-z0-9_-]{6}…\), and the service answers 404 to this key/;

describe.each(["dynamic", "native"] as const)(
  "%s door: another account's key the engine does not see",
  (door) => {
    let e2e: EngineStack;
    /** Gives the provider `key`: the dynamic door's `service:apiKey`, the native plugin's `SERVICE_API_KEY`. */
    const useKey = async (key: string) => {
      if (door === "dynamic") await e2e.stack.setConfig("service:apiKey", { value: key, secret: true });
      else e2e.stack.workspace.envVars.SERVICE_API_KEY = key;
    };
    /** The IDs of the first account's event destinations and subscriptions on the service. */
    const live = async () => {
      const ids: string[] = [];
      for await (const d of e2e.client.eventDestinations.list()) ids.push(d.id);
      for await (const s of e2e.client.eventSubscriptions.list()) ids.push(s.id);
      return ids.sort();
    };
    /** The IDs of the state's event destinations and subscriptions. */
    const held = async () =>
      (await e2e.resources())
        .filter((r) => /EventDestination|EventSubscription/.test(r.type))
        .map((r) => r.id)
        .sort();

    beforeAll(async () => {
      e2e = await startDoorsStack(door, `unseen-key-${door}`, [FIRST, SECOND]);
      await e2e.stack.setConfig("spec", { value: JSON.stringify(SPEC) });
      if (door === "native") await e2e.stack.removeConfig("service:apiKey");
      await useKey(FIRST);
    });

    afterAll(async () => {
      if (e2e) {
        await useKey(FIRST);
        await disposeStack(e2e.stack);
        await e2e.close();
      }
    });

    it("with the other account's key, a refresh and an up that deletes fail naming both key stamps; nothing is dropped or reported deleted; with the first key back, destroy deletes", async () => {
      await e2e.stack.up();
      const ids = await held();
      expect(ids).toHaveLength(2);

      await useKey(SECOND);
      // The program runs, so the providers take the current key (a refresh without it would use
      // the dynamic provider's configuration recorded at the last deployment).
      await expect(e2e.stack.refresh({ runProgram: true })).rejects.toThrow(OTHER_KEY);
      expect(await held()).toEqual(ids);
      await e2e.stack.setConfig("spec", { value: JSON.stringify({ ...SPEC, subscriptions: [] }) });
      const up = e2e.stack.up();
      await expect(up).rejects.toThrow(OTHER_KEY);
      await expect(up).rejects.toThrow(/so it is not counted as deleted/);
      expect(await held()).toEqual(ids);
      expect(await live()).toEqual(ids);

      await useKey(FIRST);
      const done = await e2e.stack.destroy({ runProgram: true });
      expect(done.summary.resourceChanges?.delete).toBe(3); // the stack, the destination, the subscription
      expect(await live()).toEqual([]);
    });
  },
);
