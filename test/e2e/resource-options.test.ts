/**
 * Pulumi's resource options through both doors, by the real engine against the real emulator:
 * the native plugin (engine-applied options, from the changed keys and detailed diff the plugin
 * answers) and the dynamic providers (options the resource classes forward to the provider).
 * Each step asserts what the service holds and what the engine reports.
 */
import { clearRequestLog, getRequestLog, setFaults } from "../helpers/emulator";
import { startDoorsStack, type EngineStack } from "../helpers/engine-stack";
import { runDriftJson } from "../helpers/gitops";
import { startHoldingProxy } from "../helpers/held-answers";
import { runDriftReport, runPreviewSummary, type DriftReport, type PreviewSummary } from "../../gitops";
import type { Spec } from "../fixtures/native";

// Every test and hook runs the Pulumi engine, or waits on it: ten minutes each.
jest.setTimeout(600_000);
/**
 * The latency of the slow service in the timeout tests, in milliseconds: far above their 2 s and
 * above what an `up` takes on a busy machine, so an `up` that fails before it was cut short.
 */
const SLOW_MS = 120_000;

/** A subscription of {@link programOf}: its name, `description`, `metadata` and resource options. */
interface Sub {
  name: string;
  description: string;
  metadata: string;
  options?: Spec["subscriptions"][0]["options"];
}

/** The program of a destination and the subscriptions `subs`, each sending to it. */
function programOf(subs: Sub[]): Spec {
  return {
    destinations: [{ name: "dd", args: { target: { datadog: { apiKey: "dd-options-key-31c9" } } } }],
    subscriptions: subs.map(({ name, description, metadata, options }) => ({
      name,
      destinations: ["dd"],
      args: { sources: [{ type: "ip_policy_created.v0" }], description, metadata },
      options,
    })),
    reports: [],
  };
}

/** A destination and a subscription `sub` with `options`, described by `description` and `metadata`. */
function spec(sub: { description: string; metadata: string }, options: Sub["options"]): Spec {
  return programOf([{ name: "sub", ...sub, options }]);
}

/** What the tests do with the stack of `e`, the stack of one test or of several. */
function stackSteps(e: EngineStack) {
  const setSpec = (s: Spec) => e.stack.setConfig("spec", { value: JSON.stringify(s) });
  return {
    setSpec,
    /** The ID of the subscription named `sub`, from the stack's outputs. */
    subscriptionId: async () => (await e.outputs()).subscriptionIds.sub,
    /** The IDs of the stack's subscriptions, by name, from its outputs. */
    subscriptionIds: async () => (await e.outputs()).subscriptionIds,
    /** The subscriptions the service holds for the stack's account. */
    liveSubscriptions: async () => {
      const subs = [];
      for await (const s of e.client.eventSubscriptions.list()) subs.push(s);
      return subs;
    },
    /** Declares the subscription with `sub` and `options` and runs `up`. */
    upWith: async (sub: Parameters<typeof spec>[0], options: Parameters<typeof spec>[1]) => {
      await setSpec(spec(sub, options));
      return e.stack.up();
    },
    /** Runs an `up` of `s` that must fail: its error text and how long it took, in milliseconds. */
    failedUp: async (s: Spec) => {
      await setSpec(s);
      const started = Date.now();
      const error = await e.stack.up().then(
        () => new Error("the up succeeded"),
        (err: unknown) => err as Error,
      );
      return { message: error.message, ms: Date.now() - started };
    },
  };
}

/**
 * The options of the subscriptions of the lifecycle the first tests share, one stack's: each
 * option on a subscription of its own, so that one `up` shows several at once.
 */
const LIFECYCLE_OPTIONS = {
  replaced: { replaceOnChanges: ["description"] },
  deleted: { replaceOnChanges: ["description"], deleteBeforeReplace: true },
  ignored: { ignoreChanges: ["metadata"], protect: true },
  retained: { retainOnDelete: true },
} satisfies Record<string, Sub["options"]>;

describe.each(["native", "dynamic"] as const)(
  "resource options through the %s door (real engine, emulator)",
  (door) => {
    let e2e: EngineStack;
    // Set by beforeAll; the steps below read them as plain names.
    let emulator: EngineStack["emulator"];
    let stack: EngineStack["stack"];

    const steps = () => stackSteps(e2e);
    const setSpec = (s: Spec) => steps().setSpec(s);
    const subscriptionIds = () => steps().subscriptionIds();
    const liveSubscriptions = () => steps().liveSubscriptions();

    beforeAll(async () => {
      e2e = await startDoorsStack(door, `options-${door}`);
      ({ emulator, stack } = e2e);
    });

    afterAll(() => e2e?.close());

    /**
     * The values of the lifecycle's subscriptions, each `[description, metadata]`; a subscription
     * left out is not in the program.
     */
    type Values = Partial<Record<keyof typeof LIFECYCLE_OPTIONS, [string, string]>>;
    /** The lifecycle's program: the destination and a subscription per option of {@link LIFECYCLE_OPTIONS}. */
    const lifecycle = (values: Values): Spec =>
      programOf(
        Object.entries(values).map(([name, [description, metadata]]) => ({
          name,
          description,
          metadata,
          options: LIFECYCLE_OPTIONS[name as keyof typeof LIFECYCLE_OPTIONS],
        })),
      );
    /** The lifecycle's values that replace `replaced` (its description, under replaceOnChanges). */
    const REPLACING: Values = {
      replaced: ["second", "m2"],
      deleted: ["fourth", "m1"],
      ignored: ["ignore", "changed, ignored"],
      retained: ["retain", "m1"],
    };
    /** The IDs of the lifecycle's subscriptions after the last up, by name. */
    let ids: Record<string, string> = {};
    /** The service's subscriptions, each `[description, metadata]`, sorted. */
    const liveValues = async () =>
      (await liveSubscriptions())
        .map((s) => [s.description, s.metadata])
        .sort((a, b) => a[0].localeCompare(b[0]));

    it("up: a subscription with each of replaceOnChanges, deleteBeforeReplace, ignoreChanges with protect, and retainOnDelete", async () => {
      await setSpec(
        lifecycle({
          replaced: ["first", "m1"],
          deleted: ["third", "m1"],
          ignored: ["ignore", "m1"],
          retained: ["retain", "m1"],
        }),
      );
      const up = await stack.up();
      expect(up.summary.resourceChanges).toEqual({ create: 6 });
      ids = await subscriptionIds();
      expect(await liveValues()).toEqual([
        ["first", "m1"],
        ["ignore", "m1"],
        ["retain", "m1"],
        ["third", "m1"],
      ]);
    });

    it("one up: a property replaceOnChanges does not name updates in place; deleteBeforeReplace deletes the old subscription before it creates the new; an ignored property's change is no change", async () => {
      await setSpec(
        lifecycle({
          replaced: ["first", "m2"],
          deleted: ["fourth", "m1"],
          ignored: ["ignore", "changed, ignored"],
          retained: ["retain", "m1"],
        }),
      );
      await clearRequestLog(emulator.url, emulator.adminKey);
      const up = await stack.up();
      // The stack, the destination, the ignored and the retained subscription are the same.
      expect(up.summary.resourceChanges).toEqual({ update: 1, replace: 1, same: 4 });
      const after = await subscriptionIds();
      expect(after.replaced).toBe(ids.replaced);
      expect(after.deleted).not.toBe(ids.deleted);
      const writes = (await getRequestLog(emulator.url, emulator.adminKey)).requests
        .filter((r) => r.method !== "GET" && r.path.startsWith("/event_subscriptions"))
        .map((r) => `${r.method} ${r.path.split("?")[0]}`);
      // The update in place: one write to the same subscription, no delete.
      const updates = writes.filter((w) => w.endsWith(`/${ids.replaced}`));
      expect(updates).toHaveLength(1);
      expect(updates[0]).not.toMatch(/^DELETE /);
      expect(writes.filter((w) => !updates.includes(w))).toEqual([
        `DELETE /event_subscriptions/${ids.deleted}`,
        "POST /event_subscriptions",
      ]);
      expect(await liveValues()).toEqual([
        ["first", "m2"],
        ["fourth", "m1"],
        ["ignore", "m1"],
        ["retain", "m1"],
      ]);
      ids = after;
    });

    it("service-drift: a hand edit of the property ignoreChanges names is not drift (exit 0) but listed apart as ignored; the library's report is the command line's JSON", async () => {
      await e2e.client.eventSubscriptions.update(ids.ignored, { metadata: "edited by hand" });
      try {
        const run = await runDriftJson<DriftReport>(e2e, []);
        const opts = { stack: e2e.stack.name, cwd: e2e.stack.workspace.workDir, env: e2e.env };
        expect(JSON.parse(JSON.stringify(await runDriftReport(opts)))).toEqual(run.json);
        expect([run.code, run.json.drift, run.json.resources]).toEqual([0, false, []]);
        expect(run.json.ignored).toEqual([
          expect.objectContaining({
            name: "ignored",
            id: ids.ignored,
            ignoreChanges: ["metadata"],
            properties: [{ property: "metadata", before: "m1", after: "edited by hand", secret: false }],
          }),
        ]);
      } finally {
        await e2e.client.eventSubscriptions.update(ids.ignored, { metadata: "m1" });
      }
    });

    it("service-drift preview: a replace shown with before and after; the guard refuses it for its type (exit 2), not for another; the library's summary is the command line's JSON", async () => {
      await setSpec(lifecycle(REPLACING));
      const guarded = (type: string) =>
        runDriftJson<PreviewSummary>(e2e, ["preview", "--fail-on", "replace,delete", "--fail-on-type", type]);
      const run = await guarded("EventSubscription");
      expect(run.code).toBe(2);
      expect(run.json.resources).toEqual([
        expect.objectContaining({
          name: "replaced",
          type: "EventSubscription",
          id: ids.replaced,
          op: "replace",
          replaceReasons: ["description"],
          properties: [{ property: "description", before: "first", after: "second", secret: false }],
        }),
      ]);
      expect(run.json.guard?.refused).toEqual([expect.objectContaining({ name: "replaced", op: "replace" })]);
      const other = await guarded("EventDestination");
      expect([other.code, other.json.guard?.refused]).toEqual([0, []]);
      const library = await runPreviewSummary({
        stack: e2e.stack.name,
        cwd: e2e.stack.workspace.workDir,
        env: e2e.env,
        guard: { failOn: ["replace", "delete"], types: ["EventDestination"] },
      });
      expect(JSON.parse(JSON.stringify(library))).toEqual(other.json);
    });

    it("replaceOnChanges: a change of the named property: the preview plans a replacement, up makes one", async () => {
      await setSpec(lifecycle(REPLACING));
      const preview = await stack.preview({ diff: true });
      expect(preview.changeSummary).toEqual({ replace: 1, same: 5 });
      expect(preview.stdout).toMatch(/\+-.*EventSubscription: \(replace\)/);
      expect(preview.stdout).toMatch(/~ description\s*:\s*"first"\s*=>\s*"second"/);
      const replace = await stack.up();
      expect(replace.summary.resourceChanges).toEqual({ replace: 1, same: 5 });
      const after = await subscriptionIds();
      expect(after.replaced).not.toBe(ids.replaced);
      expect(await liveValues()).toEqual([
        ["fourth", "m1"],
        ["ignore", "m1"],
        ["retain", "m1"],
        ["second", "m2"],
      ]);
      ids = after;
    });

    it("retainOnDelete: a subscription removed from the program leaves the stack and stays on the service", async () => {
      await setSpec(
        lifecycle({
          replaced: ["second", "m2"],
          deleted: ["fourth", "m1"],
          ignored: ["ignore", "changed, ignored"],
        }),
      );
      const up = await stack.up();
      expect(up.summary.resourceChanges).toEqual({ delete: 1, same: 5 });
      expect((await liveSubscriptions()).map((s) => s.id).sort()).toEqual(Object.values(ids).sort());
      expect(await e2e.resource("retained")).toBeUndefined();
      expect(Object.keys(await subscriptionIds()).sort()).toEqual(["deleted", "ignored", "replaced"]);
    });

    it("protect: destroy refuses, and the protected subscription stays on the service", async () => {
      await expect(stack.destroy()).rejects.toThrow(/protected/);
      expect((await liveSubscriptions()).map((s) => s.id)).toContain(ids.ignored);
      expect((await e2e.resource("ignored"))?.id).toBe(ids.ignored);
    });

    it("customTimeouts: update, delete and create against a slow service fail at their timeout; the next up or destroy finishes the delete", async () => {
      const timeouts = { customTimeouts: { create: "2s", update: "2s", delete: "2s" } };
      // A stack of its own: the lifecycle's ends with a protected subscription.
      const own = await startDoorsStack(door, `timeouts-${door}`);
      const { emulator } = own;
      const { liveSubscriptions, upWith, subscriptionId, failedUp } = stackSteps(own);
      try {
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

          const removal = await failedUp(programOf([]));
          expect(removal.message).toMatch(
            /delete of event subscription esb_\w+ did not finish within the delete timeout of 2 s \(customTimeouts.delete\).*the next `pulumi destroy` \(or `up`\) deletes it again/s,
          );
          expect(removal.ms).toBeLessThan(SLOW_MS);
        } finally {
          await setFaults(emulator.url, emulator.adminKey, {});
        }
        expect((await liveSubscriptions()).map((s) => s.id)).toEqual([id]);
        // The delete that timed out stays in the stack; the next up deletes it.
        const up = await own.stack.up();
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
      } finally {
        await own.close();
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
          /create of event subscription did not finish within the create timeout of 2 s \(customTimeouts.create\) after its request was sent. The service may still make it: the stack keeps it as pending-create-[0-9a-f-]{36} \(a placeholder\), and the next `pulumi up` sends that create again under the same Idempotency-Key, which gives back the event subscription the service made \(or makes it now\), so it is neither lost nor made twice\./,
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
        expect(next.stdout).toMatch(
          /sent again under its Idempotency-Key, the service answered with esb_\w+, which that create had made: took it/s,
        );
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
