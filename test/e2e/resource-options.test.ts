/**
 * Pulumi's resource options through both doors, by the real engine against the real emulator:
 * the native plugin (engine-applied options, from the changed keys and detailed diff the plugin
 * answers) and the dynamic providers (options the resource classes forward to the provider).
 * Each step asserts what the service holds and what the engine reports.
 */
import { clearRequestLog, getRequestLog, setFaults } from "../helpers/emulator";
import { startDoorsStack, type EngineStack } from "../helpers/engine-stack";
import { startHoldingProxy } from "../helpers/held-answers";
import type { Spec } from "../fixtures/native";

// Every test and hook runs the Pulumi engine, or waits on it: ten minutes each.
jest.setTimeout(600_000);
/**
 * The latency of the slow service in the timeout tests, in milliseconds: far above their 2 s and
 * above what an `up` takes on a busy machine, so an `up` that fails before it was cut short.
 */
const SLOW_MS = 120_000;

/** A destination and a subscription with `options`, described by `description` and `metadata`. */
function spec(sub: { description: string; metadata: string }, options: Spec["subscriptions"][0]["options"]) {
  return {
    destinations: [{ name: "dd", args: { target: { datadog: { apiKey: "dd-options-key-31c9" } } } }],
    subscriptions: [
      {
        name: "sub",
        destinations: ["dd"],
        args: { sources: [{ type: "ip_policy_created.v0" }], ...sub },
        options,
      },
    ],
    reports: [],
  } satisfies Spec;
}

describe.each(["native", "dynamic"] as const)(
  "resource options through the %s door (real engine, emulator)",
  (door) => {
    let e2e: EngineStack;
    // Set by beforeAll; the steps below read them as plain names.
    let emulator: EngineStack["emulator"];
    let stack: EngineStack["stack"];
    let client: EngineStack["client"];

    const setSpec = (s: Spec) => stack.setConfig("spec", { value: JSON.stringify(s) });
    const subscriptionId = async () => (await e2e.outputs()).subscriptionIds.sub;
    const liveSubscriptions = async () => {
      const subs = [];
      for await (const s of client.eventSubscriptions.list()) subs.push(s);
      return subs;
    };

    /** Declares the subscription with `sub` and `options` and runs `up`. */
    const upWith = async (sub: Parameters<typeof spec>[0], options: Parameters<typeof spec>[1]) => {
      await setSpec(spec(sub, options));
      return stack.up();
    };

    /** Runs an `up` of `s` that must fail: its error text and how long it took, in milliseconds. */
    const failedUp = async (s: Spec) => {
      await setSpec(s);
      const started = Date.now();
      const error = await stack.up().then(
        () => new Error("the up succeeded"),
        (err: unknown) => err as Error,
      );
      return { message: error.message, ms: Date.now() - started };
    };

    beforeAll(async () => {
      e2e = await startDoorsStack(door, `options-${door}`);
      ({ emulator, stack, client } = e2e);
    });

    afterAll(() => e2e?.close());

    it("replaceOnChanges: a change of a named property replaces (preview and up), others update in place", async () => {
      const options = { replaceOnChanges: ["description"] };
      await upWith({ description: "first", metadata: "m1" }, options);
      const first = await subscriptionId();

      // A property replaceOnChanges does not name: an update in place, the ID kept.
      const update = await upWith({ description: "first", metadata: "m2" }, options);
      expect(update.summary.resourceChanges).toMatchObject({ update: 1 });
      expect(update.summary.resourceChanges?.replace).toBeUndefined();
      expect(await subscriptionId()).toBe(first);

      // The named property: the preview plans a replacement, and up makes one.
      await setSpec(spec({ description: "second", metadata: "m2" }, options));
      const preview = await stack.preview({ diff: true });
      expect(preview.changeSummary).toMatchObject({ replace: 1 });
      expect(preview.stdout).toMatch(/\+-.*EventSubscription: \(replace\)/);
      expect(preview.stdout).toMatch(/~ description\s*:\s*"first"\s*=>\s*"second"/);
      const replace = await stack.up();
      expect(replace.summary.resourceChanges).toMatchObject({ replace: 1 });
      const second = await subscriptionId();
      expect(second).not.toBe(first);
      const live = await liveSubscriptions();
      expect(live.map((s) => [s.id, s.description, s.metadata])).toEqual([[second, "second", "m2"]]);
    });

    it("deleteBeforeReplace with replaceOnChanges: the old subscription is deleted before the new one is created", async () => {
      const options = { replaceOnChanges: ["description"], deleteBeforeReplace: true };
      await upWith({ description: "third", metadata: "m2" }, options);
      const before = await subscriptionId();
      await clearRequestLog(emulator.url, emulator.adminKey);
      const up = await upWith({ description: "fourth", metadata: "m2" }, options);
      expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
      const writes = (await getRequestLog(emulator.url, emulator.adminKey)).requests
        .filter((r) => r.method !== "GET" && r.path.startsWith("/event_subscriptions"))
        .map((r) => `${r.method} ${r.path.split("?")[0]}`);
      expect(writes).toEqual([`DELETE /event_subscriptions/${before}`, "POST /event_subscriptions"]);
      expect((await liveSubscriptions()).map((s) => s.description)).toEqual(["fourth"]);
    });

    it("ignoreChanges: a change of an ignored property is no change; protect: destroy refuses", async () => {
      const options = { ignoreChanges: ["metadata"], protect: true };
      await upWith({ description: "fourth", metadata: "m2" }, options);
      await setSpec(spec({ description: "fourth", metadata: "ignored" }, options));
      const preview = await stack.preview();
      expect(preview.changeSummary).toEqual({ same: 3 });
      await stack.up();
      expect((await liveSubscriptions()).map((s) => s.metadata)).toEqual(["m2"]);

      await expect(stack.destroy()).rejects.toThrow(/protected/);
      expect(await liveSubscriptions()).toHaveLength(1);
    });

    it("retainOnDelete: a subscription removed from the program leaves the stack and stays on the service", async () => {
      await upWith({ description: "fourth", metadata: "m2" }, { retainOnDelete: true });
      const kept = await subscriptionId();
      await setSpec({ ...spec({ description: "", metadata: "" }, undefined), subscriptions: [] });
      const up = await stack.up();
      expect(up.summary.resourceChanges).toMatchObject({ delete: 1 });
      expect((await liveSubscriptions()).map((s) => s.id)).toEqual([kept]);
      const state = (await stack.exportStack()).deployment.resources as { type: string }[];
      expect(state.filter((r) => r.type.endsWith("EventSubscription"))).toEqual([]);
    });
    it("customTimeouts: update, delete and create against a slow service fail at their timeout; the next up or destroy finishes the delete", async () => {
      const timeouts = { customTimeouts: { create: "2s", update: "2s", delete: "2s" } };
      // Not the stack's: what retainOnDelete left on the service.
      for (const s of await liveSubscriptions()) await client.eventSubscriptions.delete(s.id);
      await upWith({ description: "timed", metadata: "t" }, timeouts);
      const id = await subscriptionId();
      await setFaults(emulator.url, emulator.adminKey, { latencyMs: SLOW_MS });
      try {
        // Each failing up ends long before one request of the slow service would have.
        const update = await failedUp(spec({ description: "timed, changed", metadata: "t" }, timeouts));
        expect(update.message).toMatch(
          /update of event subscription esb_\w+ did not finish within the update timeout of 2 s \(customTimeouts.update\)/,
        );
        expect(update.ms).toBeLessThan(SLOW_MS);

        const removal = await failedUp({
          ...spec({ description: "", metadata: "" }, undefined),
          subscriptions: [],
        });
        expect(removal.message).toMatch(
          /delete of event subscription esb_\w+ did not finish within the delete timeout of 2 s \(customTimeouts.delete\).*the next `pulumi destroy` \(or `up`\) deletes it again/s,
        );
        expect(removal.ms).toBeLessThan(SLOW_MS);
      } finally {
        await setFaults(emulator.url, emulator.adminKey, {});
      }
      expect((await liveSubscriptions()).map((s) => s.id)).toEqual([id]);
      // The delete that timed out stays in the stack; the next up deletes it.
      const up = await stack.up();
      expect(up.summary.resourceChanges).toMatchObject({ delete: 1 });
      expect(await liveSubscriptions()).toEqual([]);

      await setFaults(emulator.url, emulator.adminKey, { latencyMs: SLOW_MS });
      try {
        const create = await failedUp(spec({ description: "late", metadata: "" }, timeouts));
        expect(create.message).toMatch(
          /create of event subscription did not finish within the create timeout of 2 s \(customTimeouts.create\) after its request was sent. The service may still make it: the stack keeps it as pending-create-/,
        );
        expect(create.ms).toBeLessThan(SLOW_MS);
      } finally {
        await setFaults(emulator.url, emulator.adminKey, {});
      }
    });

    it("customTimeouts: a create the service finished after its timeout fired is kept as a placeholder, and the next up takes it", async () => {
      // A stack of its own, through a proxy that forwards each create at once but holds its answer.
      const own = await startDoorsStack(door, `pending-${door}`);
      const proxy = await startHoldingProxy(own.emulator.url);
      try {
        await own.stack.setConfig("service:baseUrl", { value: proxy.url });
        const subs = async () => {
          const found = [];
          for await (const s of own.client.eventSubscriptions.list()) found.push(s);
          return found;
        };
        const timed = spec({ description: "pending", metadata: "p" }, { customTimeouts: { create: "2s" } });
        await own.stack.setConfig("spec", { value: JSON.stringify(timed) });

        // The create's answer and a lost create's listing: both arrive after the timeout.
        proxy.hold({ path: "/event_subscriptions", ms: 8_000 });
        const failed = await own.stack.up().then(
          () => new Error("the up succeeded"),
          (err: unknown) => err as Error,
        );
        proxy.hold(undefined);
        expect(proxy.held()).toBeGreaterThanOrEqual(1);
        expect(failed.message).toMatch(
          /create of event subscription did not finish within the create timeout of 2 s \(customTimeouts.create\) after its request was sent. The service may still make it: the stack keeps it as pending-create-[0-9a-f-]{36} \(a placeholder\), and the next `pulumi up` takes the event subscription the service made \(identical values, made since [-\d]+T[\d:.]+Z, held by no other resource\) or else creates it, so it is neither lost nor made twice\./,
        );
        // The stack holds the placeholder, with the create's values; the service made the subscription.
        const placeholder = await own.resource("sub");
        expect(placeholder?.id).toMatch(/^pending-create-[0-9a-f-]{36}$/);
        expect(placeholder?.outputs).toMatchObject({ description: "pending", metadata: "p" });
        const made = await subs();
        expect(made.map((s) => [s.description, s.metadata])).toEqual([["pending", "p"]]);

        // The next up replaces the placeholder by that very subscription: no second one, no orphan.
        const next = await own.stack.up();
        expect(next.summary.resourceChanges).toMatchObject({ replace: 1, same: 2 });
        expect(next.stdout).toMatch(/the service made esb_\w+ with its values .*adopted it/s);
        expect((await own.resource("sub"))?.id).toBe(made[0].id);
        expect((await subs()).map((s) => s.id)).toEqual([made[0].id]);
        const state = (await own.resources()).map((r) => r.id ?? "");
        expect(state.filter((id) => id.startsWith("pending-create-"))).toEqual([]);

        const again = await own.stack.preview({ expectNoChanges: true });
        expect(again.changeSummary).toEqual({ same: 3 });
        await own.stack.destroy();
        expect(await subs()).toEqual([]);
        const dests = [];
        for await (const d of own.client.eventDestinations.list()) dests.push(d);
        expect(dests).toEqual([]);
      } finally {
        await proxy.close();
        await own.close();
      }
    });
  },
);
