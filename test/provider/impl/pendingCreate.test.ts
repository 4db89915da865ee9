/**
 * Pending creates (provider/impl/pendingCreate.ts): a create that timed out after its request may
 * have reached the service fails with a placeholder the engine keeps; the placeholder's diff asks
 * for a replacement, whose create takes what the service made (or creates anew); its delete and
 * read send nothing, and a destroy deletes what the timed-out create made. The lookups on a
 * scripted kind, then both kinds' providers against the real emulator behind a proxy that holds
 * the create's answer past the timeout.
 */
import { ServiceClient } from "../../../client";
import { ClaimRegistry } from "../../../provider/impl/claims";
import * as eventDestination from "../../../provider/impl/eventDestination";
import * as eventSubscription from "../../../provider/impl/eventSubscription";
import {
  PENDING_CREATE_OUTPUT,
  PendingCreateError,
  PendingReplacements,
  adoptPending,
  isPlaceholderId,
  notPlaceholder,
  pendingDiff,
  readPending,
  removePending,
  sentValues,
  timedCreate,
  type PendingKind,
} from "../../../provider/impl/pendingCreate";
import * as runtime from "../../../provider/impl/runtime";
import { RESOURCE_OPTIONS_INPUT } from "../../../provider/impl/resourceOptions";
import { clearRequestLog, getRequestLog, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { startHoldingProxy, type HoldingProxy } from "../../helpers/held-answers";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const T0 = Date.parse("2026-11-21T10:00:00Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();
const PLACEHOLDER = "pending-create-00000000-0000-4000-8000-000000000001";

type R = { id: string; createdAt: string; v: string };

/** A kind whose listing is `stored` (newest first), counting its listings. */
function scriptedKind(stored: R[]): PendingKind<R> & { listings: number } {
  const kind = {
    what: "thing",
    listings: 0,
    async *list() {
      kind.listings++;
      yield* stored;
    },
    matches: (live: R, sent: Record<string, unknown>) => live.v === sent.v,
  };
  return kind;
}

/** A placeholder's outputs: the sent values `v` and the marker. */
const placeholderProps = (v: string, sentAtMs = T0) => ({ v, [PENDING_CREATE_OUTPUT]: { sentAtMs } });

describe("placeholders", () => {
  it("are recognised by their prefix only", () => {
    expect(isPlaceholderId(PLACEHOLDER)).toBe(true);
    expect(isPlaceholderId("esb_01")).toBe(false);
    expect(isPlaceholderId(undefined)).toBe(false);
    expect(() => notPlaceholder("esb_01")).not.toThrow();
    expect(() => notPlaceholder(PLACEHOLDER)).toThrow(
      `${PLACEHOLDER} is the placeholder of a create that timed out, not a resource of the service: run pulumi up`,
    );
  });

  it("check refuses a placeholder where an ID of the service goes (adoptId, destinationIds), so no request carries one", async () => {
    const sub = await eventSubscription.check(
      {},
      { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [PLACEHOLDER], adoptId: PLACEHOLDER },
    );
    expect(sub.failures?.map((f) => f.property).sort()).toEqual(["adoptId", "destinationIds"]);
    expect(sub.failures?.every((f) => f.reason.includes(`got "${PLACEHOLDER}"`))).toBe(true);
    const dest = await eventDestination.check({}, {
      target: { datadog: { apiKey: "k" } },
      adoptId: PLACEHOLDER,
    } as never);
    expect(dest.failures?.map((f) => f.property)).toEqual(["adoptId"]);
  });

  it("the values sent are the outputs without the `__` properties", () => {
    expect(sentValues({ __provider: "x", [RESOURCE_OPTIONS_INPUT]: {}, ...placeholderProps("a") })).toEqual({
      v: "a",
    });
  });

  it("diff of a placeholder is a replacement (not delete-before-replace), recorded for the replacement's create", () => {
    const pending = new PendingReplacements();
    expect(pendingDiff(PLACEHOLDER, placeholderProps("a"), { v: "b" }, pending)).toEqual({
      changes: true,
      diffs: [PENDING_CREATE_OUTPUT],
      replaces: [PENDING_CREATE_OUTPUT],
      stables: [],
      deleteBeforeReplace: false,
    });
    expect(pending.take({ v: "other" })).toBeUndefined();
    expect(pending.take({ v: "b" })).toMatchObject({
      placeholderId: PLACEHOLDER,
      sentAtMs: T0,
      sent: { v: "a" },
    });
    // Taken once; its delete then has nothing to do.
    expect(pending.take({ v: "b" })).toBeUndefined();
    expect(pending.isTaken(PLACEHOLDER)).toBe(true);
  });

  it("diff of a real ID, or of a placeholder without a marker, is left to the kind", () => {
    expect(
      pendingDiff("esb_01", placeholderProps("a"), { v: "a" }, new PendingReplacements()),
    ).toBeUndefined();
    expect(pendingDiff(PLACEHOLDER, { v: "a" }, { v: "a" }, new PendingReplacements())).toBeUndefined();
  });

  it("read keeps a placeholder as it is", () => {
    expect(readPending(PLACEHOLDER, placeholderProps("a"))).toEqual({
      id: PLACEHOLDER,
      props: placeholderProps("a"),
    });
    expect(readPending("esb_01", {})).toBeUndefined();
  });
});

describe("timedCreate", () => {
  it("a create that times out after it may have been sent fails with a placeholder holding the inputs and the send time", async () => {
    const news = { v: "a", [RESOURCE_OPTIONS_INPUT]: { customTimeouts: { create: "200ms" } } };
    const error = await timedCreate(
      "thing",
      news,
      undefined,
      () => sleep(5_000),
      new PendingReplacements(),
      () => T0,
    )
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PendingCreateError);
    const e = error as PendingCreateError;
    expect(e.id).toMatch(/^pending-create-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(e.properties).toEqual({ ...news, [PENDING_CREATE_OUTPUT]: { sentAtMs: T0 } });
    expect(e.message).toBe(
      "create of thing did not finish within the create timeout of 200 ms (customTimeouts.create) after its request was sent. " +
        `The service may still make it: the stack keeps it as ${e.id} (a placeholder), and the next \`pulumi up\` takes ` +
        `the thing the service made (identical values, made since ${at(0)}, held by no other resource) or else creates ` +
        "it, so it is neither lost nor made twice.",
    );
    expect(e.reasons).toEqual([e.message]);
  });

  it("a replacement that times out again keeps the earlier send time", async () => {
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, T0, { v: "a" }, { v: "a" });
    const error = (await timedCreate(
      "thing",
      { v: "a" },
      200,
      () => sleep(5_000),
      pending,
      () => T0 + 60_000,
    ).catch((e: unknown) => e)) as PendingCreateError;
    expect(error.properties[PENDING_CREATE_OUTPUT]).toEqual({ sentAtMs: T0 });
  });

  it("hands the create the pending replacement of its inputs; other errors pass unchanged", async () => {
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, T0, { v: "a" }, { v: "b" });
    await expect(
      timedCreate("thing", { v: "b" }, undefined, async (p) => p?.placeholderId, pending),
    ).resolves.toBe(PLACEHOLDER);
    const own = new Error("400 bad request");
    await expect(
      timedCreate("thing", { v: "c" }, 1_000, async () => Promise.reject(own), pending),
    ).rejects.toBe(own);
  });
});

describe("adoptPending (scripted kind)", () => {
  const pendingOf = (pending: PendingReplacements, v: string, id = PLACEHOLDER) => {
    pending.note(id, T0, { v }, { v, id });
    return pending.take({ v, id })!;
  };

  it("adopts and claims the one unclaimed resource with the sent values made since the send (less the clock skew)", async () => {
    const kind = scriptedKind([
      { id: "t3", createdAt: at(5_000), v: "other" },
      { id: "t2", createdAt: at(1_000), v: "a" },
      { id: "t1", createdAt: at(-60_000), v: "a" },
    ]);
    const registry = new ClaimRegistry();
    const pending = new PendingReplacements();
    expect(await adoptPending(kind, pendingOf(pending, "a"), registry, pending)).toMatchObject({ id: "t2" });
    expect(registry.isClaimed("t2")).toBe(true);
  });

  it("finds none when the only match is claimed or older than the window: the create goes on", async () => {
    const kind = scriptedKind([
      { id: "t2", createdAt: at(1_000), v: "a" },
      { id: "t1", createdAt: at(-60_000), v: "a" },
    ]);
    const registry = new ClaimRegistry();
    registry.claim("t2");
    const pending = new PendingReplacements();
    expect(await adoptPending(kind, pendingOf(pending, "a"), registry, pending)).toBeUndefined();
  });

  it("fails naming them when more match than pending creates of those values look", async () => {
    const kind = scriptedKind([
      { id: "t2", createdAt: at(2_000), v: "a" },
      { id: "t1", createdAt: at(1_000), v: "a" },
    ]);
    const pending = new PendingReplacements();
    await expect(adoptPending(kind, pendingOf(pending, "a"), new ClaimRegistry(), pending)).rejects.toThrow(
      `thing: a create that timed out may have been made, and 2 things made since ${at(-30_000)} have exactly its values ` +
        "and are held by no resource of this deployment: t2, t1. The provider cannot tell which one (if any) it made, so it takes none.",
    );
  });

  it("two pending creates of the same values take one each", async () => {
    const kind = scriptedKind([
      { id: "t2", createdAt: at(2_000), v: "a" },
      { id: "t1", createdAt: at(1_000), v: "a" },
    ]);
    const registry = new ClaimRegistry();
    const pending = new PendingReplacements();
    pending.note("pending-create-1", T0, { v: "a" }, { v: "a", n: 1 });
    pending.note("pending-create-2", T0, { v: "a" }, { v: "a", n: 2 });
    const first = await adoptPending(kind, pending.take({ v: "a", n: 1 })!, registry, pending);
    const second = await adoptPending(kind, pending.take({ v: "a", n: 2 })!, registry, pending);
    expect([first?.id, second?.id].sort()).toEqual(["t1", "t2"]);
  });
});

describe("removePending (scripted kind)", () => {
  it("a real ID is left to the kind's delete", async () => {
    const kind = scriptedKind([]);
    const removed: string[] = [];
    expect(await removePending(kind, "t1", {}, async (l) => void removed.push(l.id))).toBe(false);
    expect(kind.listings).toBe(0);
  });

  it("a placeholder whose replacement took it: nothing is listed or deleted", async () => {
    const kind = scriptedKind([{ id: "t1", createdAt: at(1_000), v: "a" }]);
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, T0, { v: "a" }, { v: "a" });
    pending.take({ v: "a" });
    const removed: string[] = [];
    const handled = await removePending(
      kind,
      PLACEHOLDER,
      placeholderProps("a"),
      async (l) => void removed.push(l.id),
      new ClaimRegistry(),
      pending,
    );
    expect(handled).toBe(true);
    expect(kind.listings).toBe(0);
    expect(removed).toEqual([]);
  });

  it("destroy: deletes the one resource the timed-out create made; none, nothing", async () => {
    const kind = scriptedKind([
      { id: "t2", createdAt: at(1_000), v: "a" },
      { id: "t1", createdAt: at(2_000), v: "b" },
    ]);
    const removed: string[] = [];
    const remove = async (l: R) => void removed.push(l.id);
    const pending = new PendingReplacements();
    expect(
      await removePending(kind, PLACEHOLDER, placeholderProps("a"), remove, new ClaimRegistry(), pending),
    ).toBe(true);
    expect(removed).toEqual(["t2"]);
    expect(
      await removePending(kind, PLACEHOLDER, placeholderProps("c"), remove, new ClaimRegistry(), pending),
    ).toBe(true);
    expect(removed).toEqual(["t2"]);
  });

  it("destroy: several matches are an error naming them, and none is deleted", async () => {
    const kind = scriptedKind([
      { id: "t2", createdAt: at(2_000), v: "a" },
      { id: "t1", createdAt: at(1_000), v: "a" },
    ]);
    const removed: string[] = [];
    await expect(
      removePending(
        kind,
        PLACEHOLDER,
        placeholderProps("a"),
        async (l) => void removed.push(l.id),
        new ClaimRegistry(),
        new PendingReplacements(),
      ),
    ).rejects.toThrow(
      `thing ${PLACEHOLDER} (the placeholder of a create that timed out): 2 things with its values, made since it was sent, ` +
        "are held by no resource of this deployment: t2, t1.",
    );
    expect(removed).toEqual([]);
  });
});

describe("both kinds against the emulator, the create's answer held past its timeout", () => {
  let emulator: RunningEmulator;
  let proxy: HoldingProxy;
  let client: ServiceClient;
  let destinationId: string;
  const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });
  const writes = async () =>
    (await getRequestLog(emulator.url, emulator.adminKey)).requests
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path.split("?")[0]}`);

  beforeAll(async () => {
    emulator = await startEmulator({});
    proxy = await startHoldingProxy(emulator.url);
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    destinationId = (
      await client.eventDestinations.create({ target: { datadog: { apiKey: "dd-pending-base" } } })
    ).id;
    await runtime.configure({
      config: config({ "service:apiKey": emulator.apiKeys[0], "service:baseUrl": proxy.url }),
    });
  });

  afterAll(async () => {
    await runtime.configure({ config: config({}) });
    await client?.close();
    await proxy?.close();
    await emulator?.close();
  });

  /**
   * Runs `create` with the answers of its kind's requests (the create, a lost create's listing)
   * held for 3 s against a 1 s timeout: the PendingCreateError.
   */
  async function timedOut(create: () => Promise<unknown>, path: string): Promise<PendingCreateError> {
    proxy.hold({ path, ms: 3_000 });
    try {
      const started = Date.now();
      const error = await create().then(
        (made) => new Error(`the create succeeded: ${JSON.stringify(made)}`),
        (e: unknown) => e,
      );
      // The message, should it be another error, says which.
      const what = `${String(error)} (after ${Date.now() - started} ms, ${proxy.held()} held)`;
      expect(error instanceof PendingCreateError ? "a PendingCreateError" : what).toBe(
        "a PendingCreateError",
      );
      return error as PendingCreateError;
    } finally {
      proxy.hold(undefined);
    }
  }

  /** A subscription's create with `description` that timed out (see {@link timedOut}): its inputs and error. */
  async function subscriptionTimedOut(description: string) {
    const news = {
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destinationId],
      description,
    };
    const error = await timedOut(() => eventSubscription.create(news, 1_000), "/event_subscriptions");
    return { news, error };
  }

  it("subscription: the placeholder's replacement takes the subscription the service made; its delete sends nothing", async () => {
    const { news, error } = await subscriptionTimedOut("late");
    expect(error.properties).toMatchObject({
      ...news,
      [PENDING_CREATE_OUTPUT]: { sentAtMs: expect.any(Number) },
    });
    const made = [];
    for await (const s of client.eventSubscriptions.list()) made.push(s);
    expect(made.map((s) => s.description)).toEqual(["late"]);

    // The next up: refresh keeps it, diff replaces it, the replacement takes the one made.
    expect(await eventSubscription.read(error.id, error.properties as never)).toEqual({
      id: error.id,
      props: error.properties,
    });
    const verdict = await eventSubscription.diff(error.id, error.properties as never, news);
    expect(verdict.replaces).toEqual([PENDING_CREATE_OUTPUT]);
    await clearRequestLog(emulator.url, emulator.adminKey);
    const replacement = await eventSubscription.create(news);
    expect(replacement.id).toBe(made[0].id);
    expect(replacement.outs).toMatchObject({ description: "late", destinationIds: [destinationId] });
    await eventSubscription.remove(error.id, error.properties as never);
    expect(await writes()).toEqual([]);
    await expect(eventSubscription.update(error.id, error.properties as never, news)).rejects.toThrow(
      /is the placeholder of a create that timed out/,
    );
    await client.eventSubscriptions.delete(made[0].id);
  });

  it("destination: the secret stays as given, the replacement re-sends it to the one the service made", async () => {
    const news = { target: { datadog: { apiKey: "dd-pending-secret" } }, description: "late dest" };
    const error = await timedOut(() => eventDestination.create(news as never, 1_000), "/event_destinations");
    expect(error.properties).toMatchObject({ target: { datadog: { apiKey: "dd-pending-secret" } } });
    const verdict = await eventDestination.diff(error.id, error.properties as never, news as never);
    expect(verdict.replaces).toEqual([PENDING_CREATE_OUTPUT]);
    await clearRequestLog(emulator.url, emulator.adminKey);
    const replacement = await eventDestination.create(news as never);
    const late = [];
    for await (const d of client.eventDestinations.list()) if (d.description === "late dest") late.push(d.id);
    expect(late).toEqual([replacement.id]);
    // Its write-only secret cannot be compared: sent again with one PATCH, no second POST.
    expect(await writes()).toEqual([`PATCH /event_destinations/${replacement.id}`]);
    await eventDestination.remove(error.id, error.properties as never);
    expect(await writes()).toEqual([`PATCH /event_destinations/${replacement.id}`]);
    await client.eventDestinations.delete(replacement.id);
  });

  it("destroy of a placeholder never replaced deletes the subscription its create made", async () => {
    const { error } = await subscriptionTimedOut("doomed");
    const made = [];
    for await (const s of client.eventSubscriptions.list()) made.push(s.id);
    expect(made).toHaveLength(1);
    await clearRequestLog(emulator.url, emulator.adminKey);
    await eventSubscription.remove(error.id, error.properties as never);
    expect(await writes()).toEqual([`DELETE /event_subscriptions/${made[0]}`]);
  });
});
