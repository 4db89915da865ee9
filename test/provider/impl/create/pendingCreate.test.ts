/**
 * Pending creates (provider/impl/create/pendingCreate.ts): a create that timed out after its request may
 * have reached the service fails with a placeholder the engine keeps; the placeholder's diff asks
 * for a replacement, whose create sends the timed-out create again under its Idempotency-Key and
 * takes what that key made (or makes it); its delete and read send nothing, and a destroy deletes
 * what the key's answer names, never a resource found by resemblance (another stack's twin, a
 * sibling). The steps on a scripted kind and context, then both kinds' providers against the real
 * emulator behind a proxy that holds the create's answer past the timeout.
 */
import { randomUUID } from "node:crypto";
import { APIConnectionError, ServiceClient } from "../../../../client";
import { ClaimRegistry, processClaims } from "../../../../provider/impl/create/claims";
import * as eventDestination from "../../../../provider/impl/eventDestination";
import * as eventSubscription from "../../../../provider/impl/eventSubscription";
import * as pulumi from "@pulumi/pulumi";
import {
  LEGACY_WINDOW_MS,
  PENDING_CREATE_OUTPUT,
  PendingCreateError,
  PendingReplacements,
  canonical,
  isPlaceholderId,
  notPlaceholder,
  pendingDiff,
  pendingMarker,
  pendingWindow,
  readPending,
  runtimeContext,
  sentValues,
  timedCreate,
  type PendingContext,
  type PendingCreateMarker,
} from "../../../../provider/impl/create/pendingCreate";
import {
  KEY_RETENTION_MS,
  removePending,
  replayAnswered,
  replayOf,
  type PendingKind,
} from "../../../../provider/impl/create/placeholderSettlement";
import { KEY_CHANGE_ENV } from "../../../../provider/impl/configChange";
import * as runtime from "../../../../provider/impl/runtime";
import { RESOURCE_OPTIONS_INPUT } from "../../../../provider/impl/resourceOptions";
import { OperationTimeoutError } from "../../../../provider/impl/timeouts";
import {
  clearRequestLog,
  getRequestLog,
  startEmulator,
  type RunningEmulator,
} from "../../../helpers/emulator";
import { startHoldingProxy, type HoldingProxy } from "../../../helpers/held-answers";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const T0 = Date.parse("2026-11-21T10:00:00Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();
const PLACEHOLDER = "pending-create-00000000-0000-4000-8000-000000000001";

type R = { id: string; createdAt: string; v: string; uri?: string };

const KEY = "11111111-2222-4333-8444-555555555555";
const MY_STAMP = "stamp-of-this-key";

/**
 * A scripted context: this key's stamp is {@link MY_STAMP}, the service's clock runs `skewMs`
 * ahead, keys are honoured as `honoured` says, and `replayed` lists the keys whose first answer
 * came back.
 */
function contextOf(
  over: Partial<PendingContext> & { skewMs?: number; replayed?: string[] } = {},
): PendingContext {
  const replayed = new Set(over.replayed ?? []);
  return {
    keyStamp: () => MY_STAMP,
    isCurrentKeyStamp: (stamp) => stamp === MY_STAMP,
    serviceNow: (localMs) => localMs + (over.skewMs ?? 0),
    requestTimeoutMs: () => 30_000,
    keysHonoured: () => true,
    wasReplayed: (key) => replayed.has(key),
    now: () => T0,
    ...over,
  };
}

/** A kind whose listing is `stored` (newest first), counting its listings; `replay` answers a replayed create. */
function scriptedKind(
  stored: R[],
  replay?: (sent: Record<string, unknown>, key: string) => Promise<R>,
): PendingKind<R> & { listings: number; replays: string[] } {
  const kind = {
    what: "thing",
    listings: 0,
    replays: [] as string[],
    async *list() {
      kind.listings++;
      yield* stored;
    },
    matches: (live: R, sent: Record<string, unknown>) => live.v === sent.v,
    ...(replay && {
      replay: async (sent: Record<string, unknown>, key: string) => {
        kind.replays.push(key);
        return replay(sent, key);
      },
    }),
  };
  return kind;
}

/** A marker sent at `sentAtMs` under {@link KEY} with this key's stamp, made within 32 s of the send (service time = local). */
const markerOf = (over: Partial<PendingCreateMarker> = {}): PendingCreateMarker => ({
  sentAtMs: T0,
  serviceSentAtMs: T0,
  windowMs: 32_000,
  idempotencyKey: KEY,
  keyStamp: MY_STAMP,
  ...over,
});

/** A placeholder's outputs: the sent values `v` and the marker (a marker of before keys were recorded: `{ sentAtMs }`). */
const placeholderProps = (v: string, marker: PendingCreateMarker = { sentAtMs: T0 }) => ({
  v,
  [PENDING_CREATE_OUTPUT]: marker,
});

/** Captures the provider's warnings (runtime.ts `warn` writes them through Pulumi's log). */
function warnings(): string[] {
  const seen: string[] = [];
  jest.spyOn(pulumi.log, "warn").mockImplementation(async (message: string) => void seen.push(message));
  return seen;
}

afterEach(() => jest.restoreAllMocks());

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

  it("a request in canonical form has its object keys sorted at every depth and its arrays in order", () => {
    const a = canonical({ b: 1, a: { d: [{ y: 1, x: 2 }], c: "" } });
    expect(JSON.stringify(a)).toBe('{"a":{"c":"","d":[{"x":2,"y":1}]},"b":1}');
    expect(JSON.stringify(canonical({ a: { c: "", d: [{ x: 2, y: 1 }] }, b: 1 }))).toBe(JSON.stringify(a));
    expect(canonical(["b", "a"])).toEqual(["b", "a"]);
  });

  it("diff of a placeholder is a replacement (not delete-before-replace), recorded with its marker for the replacement's create", () => {
    const pending = new PendingReplacements();
    expect(pendingDiff(PLACEHOLDER, placeholderProps("a", markerOf()), { v: "b" }, pending)).toEqual({
      changes: true,
      diffs: [PENDING_CREATE_OUTPUT],
      replaces: [PENDING_CREATE_OUTPUT],
      stables: [],
      deleteBeforeReplace: false,
    });
    expect(pending.take({ v: "other" })).toBeUndefined();
    expect(pending.taken(PLACEHOLDER)).toBeUndefined();
    expect(pending.take({ v: "b" })).toMatchObject({
      placeholderId: PLACEHOLDER,
      sentAtMs: T0,
      marker: markerOf(),
      sent: { v: "a" },
      settled: false,
    });
    // Taken once; its delete then finds it taken.
    expect(pending.take({ v: "b" })).toBeUndefined();
    expect(pending.taken(PLACEHOLDER)?.placeholderId).toBe(PLACEHOLDER);
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

describe("pendingWindow", () => {
  it("is bounded on both sides in the service's time: the send less 2 s to the send plus the window plus 2 s", () => {
    expect(pendingWindow(markerOf({ serviceSentAtMs: T0 + 5_000 }))).toEqual({
      fromMs: T0 + 3_000,
      toMs: T0 + 5_000 + 32_000 + 2_000,
    });
  });

  it("without the service's time, this machine's with 30 s either side; a marker of before windows were recorded gets 1 hour", () => {
    expect(pendingWindow({ sentAtMs: T0, windowMs: 10_000 })).toEqual({
      fromMs: T0 - 30_000,
      toMs: T0 + 40_000,
    });
    expect(pendingWindow({ sentAtMs: T0 })).toEqual({
      fromMs: T0 - 30_000,
      toMs: T0 + LEGACY_WINDOW_MS + 30_000,
    });
  });
});

describe("timedCreate", () => {
  it("a create that times out after it was sent fails with a placeholder holding the inputs, the send, its key, the key stamp and the window", async () => {
    const news = { v: "a", [RESOURCE_OPTIONS_INPUT]: { customTimeouts: { create: "200ms" } } };
    const error = await timedCreate(
      "thing",
      news,
      undefined,
      async (_pending, sending) => {
        sending("first-key");
        sending(KEY);
        await sleep(5_000);
      },
      new PendingReplacements(),
      contextOf({ skewMs: 1_500, now: () => T0 }),
    )
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PendingCreateError);
    const e = error as PendingCreateError;
    expect(e.id).toMatch(/^pending-create-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(e.properties).toEqual({
      ...news,
      [PENDING_CREATE_OUTPUT]: {
        sentAtMs: T0,
        serviceSentAtMs: T0 + 1_500,
        windowMs: 30_000 + 1_000,
        idempotencyKey: KEY,
        keyStamp: MY_STAMP,
      },
    });
    expect(e.message).toBe(
      "create of thing did not finish within the create timeout of 200 ms (customTimeouts.create) after its request was sent. " +
        `The service may still make it: the stack keeps it as ${e.id} (a placeholder), and the next \`pulumi up\` sends ` +
        "that create again under the same Idempotency-Key, which gives back the thing the service made (or makes it now), " +
        "so it is neither lost nor made twice.",
    );
    expect(e.reasons).toEqual([e.message]);
  });

  it("a replacement that times out again keeps the earlier send, in both clocks, and a window that reaches to now", async () => {
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
    const error = (await timedCreate(
      "thing",
      { v: "a" },
      200,
      async (p, sending) => {
        sending(p!.marker.idempotencyKey!);
        await sleep(5_000);
      },
      pending,
      contextOf({ skewMs: 9_000, now: () => T0 + 60_000 }),
    ).catch((e: unknown) => e)) as PendingCreateError;
    expect(error.properties[PENDING_CREATE_OUTPUT]).toEqual({
      ...markerOf(),
      windowMs: 60_000 + 30_000 + 1_000,
    });
  });

  it("hands the create the pending replacement of its inputs; other errors pass unchanged", async () => {
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "b" });
    await expect(
      timedCreate("thing", { v: "b" }, undefined, async (p) => p?.placeholderId, pending, contextOf()),
    ).resolves.toBe(PLACEHOLDER);
    const own = new Error("400 bad request");
    await expect(
      timedCreate("thing", { v: "c" }, 1_000, async () => Promise.reject(own), pending, contextOf()),
    ).rejects.toBe(own);
  });
});

describe("the replacement's replay", () => {
  const pendingOf = (marker: PendingCreateMarker) => {
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, marker, { v: "a" }, { v: "a" });
    return pending.take({ v: "a" })!;
  };

  it("sends the values sent under the marker's key; a marker without a key is no replay", () => {
    expect(replayOf("thing", pendingOf(markerOf()), contextOf())).toEqual({
      idempotencyKey: KEY,
      sent: { v: "a" },
    });
    expect(replayOf("thing", pendingOf({ sentAtMs: T0 }), contextOf())).toBeUndefined();
  });

  it("is refused under another API key than the one that sent it (its account is not this key's), unless it was rotated", () => {
    const other = pendingOf(markerOf({ keyStamp: "stamp-of-another-key" }));
    expect(() => replayOf("thing", other, contextOf())).toThrow(
      `thing ${PLACEHOLDER} (the placeholder of a create that timed out) was sent with another service API key than this provider's`,
    );
    process.env[KEY_CHANGE_ENV] = "rotation";
    try {
      expect(replayOf("thing", other, contextOf())?.idempotencyKey).toBe(KEY);
    } finally {
      delete process.env[KEY_CHANGE_ENV];
    }
  });

  it("settles the placeholder when the key's first answer came back, or the service honours keys within their retention", () => {
    const replayed = pendingOf(markerOf());
    expect(replayAnswered(replayed, KEY, contextOf({ replayed: [KEY] }))).toBe(true);
    expect(replayed.settled).toBe(true);

    const fresh = pendingOf(markerOf());
    expect(replayAnswered(fresh, KEY, contextOf())).toBe(false);
    expect(fresh.settled).toBe(true);

    // Days old (past the service's keys), or keys ignored: the answer proves nothing of the first create.
    const old = pendingOf(markerOf());
    expect(replayAnswered(old, KEY, contextOf({ now: () => T0 + KEY_RETENTION_MS + 1 }))).toBe(false);
    expect(old.settled).toBe(false);
    const ignored = pendingOf(markerOf());
    replayAnswered(ignored, KEY, contextOf({ keysHonoured: () => false }));
    expect(ignored.settled).toBe(false);
    // An answer to another key (sent again under a new one) says nothing of this placeholder.
    const other = pendingOf(markerOf());
    replayAnswered(other, "another-key", contextOf({ replayed: ["another-key"] }));
    expect(other.settled).toBe(false);
  });
});

/**
 * `removePending` of {@link PLACEHOLDER} with `props` (its outputs) against `kind` and `context`:
 * whether it handled the ID, and the IDs it deleted (with `options`' registry and pending
 * replacements, else new ones).
 */
async function removing(
  kind: PendingKind<R>,
  props: unknown,
  context: PendingContext,
  options: { registry?: ClaimRegistry; pending?: PendingReplacements } = {},
) {
  const removed: string[] = [];
  const handled = await removePending(
    kind,
    PLACEHOLDER,
    props,
    async (l) => void removed.push(l.id),
    options.registry ?? new ClaimRegistry(),
    options.pending ?? new PendingReplacements(),
    context,
  );
  return { handled, removed };
}

describe("removePending (scripted kind)", () => {
  const mine: R = { id: "t-mine", createdAt: at(1_000), v: "a", uri: "http://svc/things/t-mine" };
  // Another stack's subscription with the same values, made within the window, and one made days later.
  const twin: R = { id: "t-twin", createdAt: at(2_000), v: "a", uri: "http://svc/things/t-twin" };
  const daysLater: R = {
    id: "t-later",
    createdAt: at(3 * 86_400_000),
    v: "a",
    uri: "http://svc/things/t-later",
  };

  it("a real ID is left to the kind's delete", async () => {
    const kind = scriptedKind([]);
    expect(await removePending(kind, "t1", {}, async () => undefined)).toBe(false);
    expect(kind.listings).toBe(0);
  });

  it("a placeholder whose replacement settled it: nothing is sent, listed or deleted", async () => {
    const kind = scriptedKind([mine], async () => mine);
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
    replayAnswered(pending.take({ v: "a" })!, KEY, contextOf({ replayed: [KEY] }));
    const seen = warnings();
    const { handled, removed } = await removing(kind, placeholderProps("a", markerOf()), contextOf(), {
      pending,
    });
    expect(handled).toBe(true);
    expect([kind.listings, kind.replays, removed, seen]).toEqual([0, [], [], []]);
  });

  it("a placeholder replaced without proof: the candidates in its window, unclaimed, are named with the command to delete them, and none is deleted", async () => {
    const kind = scriptedKind([daysLater, twin, mine], async () => mine);
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
    pending.take({ v: "a" });
    const registry = new ClaimRegistry();
    registry.claim("t-mine"); // a sibling of this stack, shown to the provider by the engine before the end
    const seen = warnings();
    const { removed } = await removing(
      kind,
      placeholderProps("a", markerOf()),
      contextOf({ keysHonoured: () => false }),
      {
        pending,
        registry,
      },
    );
    expect(removed).toEqual([]);
    expect(kind.replays).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toContain(
      `One thing with its values, made between ${at(-2_000)} and ${at(32_000 + 2_000)} and held by no resource of this deployment, ` +
        'may be it, or another stack\'s or anyone\'s: t-twin (`curl -X DELETE http://svc/things/t-twin -H "Authorization: Bearer $SERVICE_API_KEY" -H "Service-Version: 2"`). ' +
        "The provider deletes none of them.",
    );
  });

  it("destroy: deletes the resource the key's first answer names, and not another stack's twin with the same values", async () => {
    const kind = scriptedKind([twin, mine], async () => mine);
    const seen = warnings();
    const { removed } = await removing(
      kind,
      placeholderProps("a", markerOf()),
      contextOf({ replayed: [KEY] }),
    );
    expect(kind.replays).toEqual([KEY]);
    expect(removed).toEqual(["t-mine"]);
    expect(kind.listings).toBe(0);
    expect(seen).toEqual([
      `thing ${PLACEHOLDER} (the placeholder of a create that timed out): the service had made t-mine under its Idempotency-Key; deleted it`,
    ]);
  });

  it("destroy of a placeholder days old whose create made nothing, with another stack's twin made since: deletes only what its own replay made", async () => {
    // Keys honoured but past their retention: the replay makes a new one, which is deleted; the twin is outside the window.
    const made: R = { id: "t-replay", createdAt: at(4 * 86_400_000), v: "a" };
    const kind = scriptedKind([made, daysLater], async () => made);
    const seen = warnings();
    const { removed } = await removing(
      kind,
      placeholderProps("a", markerOf()),
      contextOf({ now: () => T0 + 4 * 86_400_000, keysHonoured: () => undefined }),
    );
    expect(removed).toEqual(["t-replay"]);
    expect(seen.join("\n")).not.toContain("t-later");
  });

  it("destroy of a placeholder written before keys were recorded: another stack's twin made days later is neither deleted nor named", async () => {
    const kind = scriptedKind([daysLater], async () => mine);
    const seen = warnings();
    const { removed } = await removing(kind, placeholderProps("a"), contextOf());
    expect([removed, kind.replays, seen]).toEqual([[], [], []]);
    expect(kind.listings).toBe(1);
  });

  it("destroy against a service that ignores keys: nothing is sent, the candidates are named, none is deleted", async () => {
    const kind = scriptedKind([twin, mine], async () => mine);
    const seen = warnings();
    const { removed } = await removing(
      kind,
      placeholderProps("a", markerOf()),
      contextOf({ keysHonoured: () => false }),
    );
    expect([removed, kind.replays]).toEqual([[], []]);
    expect(seen[0]).toMatch(
      /the service does not honour Idempotency-Key.*2 things with its values.*t-twin .*t-mine /s,
    );
  });

  it("destroy of a placeholder sent with another API key: an error, and nothing is sent, listed or deleted", async () => {
    const kind = scriptedKind([twin, mine], async () => mine);
    await expect(
      removing(kind, placeholderProps("a", markerOf({ keyStamp: "stamp-of-another-key" })), contextOf()),
    ).rejects.toThrow(/was sent with another service API key than this provider's/);
    expect([kind.listings, kind.replays]).toEqual([0, []]);
  });

  it("destroy whose replay is refused under a key the service honours: nothing was made, nothing is deleted", async () => {
    const refused = Object.assign(new Error("400: destination not found"), { status: 400 });
    const kind = scriptedKind([twin], async () => Promise.reject(refused));
    const seen = warnings();
    const { handled, removed } = await removing(kind, placeholderProps("a", markerOf()), contextOf());
    expect([handled, removed, seen, kind.listings]).toEqual([true, [], [], 0]);
  });
});

describe("both kinds against the emulator, the create's answer held past its timeout", () => {
  let emulator: RunningEmulator;
  let proxy: HoldingProxy;
  let client: ServiceClient;
  let destinationId: string;
  const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });
  /** The requests that write, as `METHOD /path`, a replayed create marked `(replayed)`. */
  const writes = async () =>
    (await getRequestLog(emulator.url, emulator.adminKey)).requests
      .filter((r) => r.method !== "GET")
      .map((r) => `${r.method} ${r.path.split("?")[0]}${r.idempotent_replay ? " (replayed)" : ""}`);

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

  it("subscription: the placeholder's replacement sends the create again under its key and takes the subscription the service made; its delete sends nothing", async () => {
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
    expect(await writes()).toEqual(["POST /event_subscriptions (replayed)"]);
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
    // The create sent again gets the first answer back (no second destination); its write-only
    // secret cannot be compared, so it is sent again with one PATCH.
    const expected = ["POST /event_destinations (replayed)", `PATCH /event_destinations/${replacement.id}`];
    expect(await writes()).toEqual(expected);
    await eventDestination.remove(error.id, error.properties as never);
    expect(await writes()).toEqual(expected);
    await client.eventDestinations.delete(replacement.id);
  });

  it("destroy of a placeholder never replaced deletes the subscription its create made", async () => {
    const { error } = await subscriptionTimedOut("doomed");
    const made = [];
    for await (const s of client.eventSubscriptions.list()) made.push(s.id);
    expect(made).toHaveLength(1);
    await clearRequestLog(emulator.url, emulator.adminKey);
    await eventSubscription.remove(error.id, error.properties as never);
    expect(await writes()).toEqual([
      "POST /event_subscriptions (replayed)",
      `DELETE /event_subscriptions/${made[0]}`,
    ]);
  });

  it("a placeholder days old, with another stack's twin made since: up takes nothing it cannot prove, destroy deletes nothing it cannot prove", async () => {
    const news = {
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destinationId],
      description: "days old",
    };
    const twin = await client.eventSubscriptions.create(news);
    const daysAgo = Date.now() - 3 * 86_400_000;
    const placeholder = (id: string) => ({
      id,
      props: {
        ...news,
        [PENDING_CREATE_OUTPUT]: {
          sentAtMs: daysAgo,
          serviceSentAtMs: daysAgo,
          windowMs: 32_000,
          idempotencyKey: randomUUID(),
          keyStamp: runtime.currentKeyStamp(),
        },
      },
    });
    const seen = warnings();
    const twinNow = () => client.eventSubscriptions.get(twin.id);

    // up: the replacement's replay is a create of its own; the twin is neither taken nor named.
    const up = placeholder(`${PLACEHOLDER.slice(0, -2)}10`);
    await eventSubscription.diff(up.id, up.props as never, news);
    const replacement = await eventSubscription.create(news);
    expect(replacement.id).not.toBe(twin.id);
    await eventSubscription.remove(up.id, up.props as never);

    // destroy: the replay's own resource is deleted; the twin is not.
    const destroyed = placeholder(`${PLACEHOLDER.slice(0, -2)}11`);
    await clearRequestLog(emulator.url, emulator.adminKey);
    await eventSubscription.remove(destroyed.id, destroyed.props as never);
    const [post, del] = await writes();
    expect(post).toBe("POST /event_subscriptions");
    expect(del).toMatch(/^DELETE \/event_subscriptions\/esb_/);
    expect(del).not.toContain(twin.id);
    expect((await twinNow()).description).toBe("days old");
    expect(seen.join("\n")).not.toContain(twin.id);
    await client.eventSubscriptions.delete(replacement.id as string);
    await client.eventSubscriptions.delete(twin.id);
  });

  it("a sibling with identical values, made in the same up and not yet shown to the provider, is never taken; without proof the candidates are only named", async () => {
    // A service that ignores keys: the replacement's replay proves nothing. (Last: the client
    // then knows the service ignores keys.)
    // The earlier tests' timed-out creates settle in the background (a lookup holds the kind's
    // gate while it lists): wait until the gate is free, so that this create is sent.
    const gate = processClaims.gate("event subscription");
    await gate.enterLookup();
    gate.leaveLookup();
    emulator.app.emulator.idempotencyKeys = false;
    try {
      const { news, error } = await subscriptionTimedOut("twins");
      const sibling = await eventSubscription.create(news);
      const all = async () => {
        const ids: string[] = [];
        for await (const s of client.eventSubscriptions.list()) if (s.description === "twins") ids.push(s.id);
        return ids;
      };
      // What the timed-out create made: one, or two when, under load, the client sent it again (a
      // lost answer's retry, under a key this service ignores) before the create's deadline.
      const madeByTimedOut = (await all()).filter((id) => id !== sibling.id);
      const [timedOutMade] = madeByTimedOut;

      // The next up: the placeholder's replacement is created before the engine diffs the sibling.
      await eventSubscription.diff(error.id, error.properties as never, news);
      const replacement = await eventSubscription.create(news);
      expect([sibling.id, timedOutMade]).not.toContain(replacement.id);
      await eventSubscription.diff(sibling.id, sibling.outs as never, news);

      // The placeholder's delete, at the end: names what the timed-out create may have made, deletes nothing.
      const seen = warnings();
      await clearRequestLog(emulator.url, emulator.adminKey);
      await eventSubscription.remove(error.id, error.properties as never);
      expect(await writes()).toEqual([]);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain(
        madeByTimedOut.length === 1
          ? "One event subscription with its values"
          : `${madeByTimedOut.length} event subscriptions with its values`,
      );
      for (const id of madeByTimedOut)
        expect(seen[0]).toContain(`${id} (\`curl -X DELETE ${emulator.url}/event_subscriptions/${id}`);
      expect(seen[0]).not.toContain(sibling.id);
      expect(seen[0]).not.toContain(replacement.id);
      expect((await all()).sort()).toEqual([sibling.id, replacement.id, ...madeByTimedOut].sort());
      for (const id of await all()) await client.eventSubscriptions.delete(id);
    } finally {
      emulator.app.emulator.idempotencyKeys = true;
    }
  });
});

describe("a pending create's edges", () => {
  it("a marker is read only from a finite send time; fields that are empty, not finite or of another type are left out, a window of 0 kept", () => {
    const of = (marker: unknown) => pendingMarker({ v: "a", [PENDING_CREATE_OUTPUT]: marker });
    expect(pendingMarker(undefined)).toBeUndefined();
    expect(pendingMarker({ v: "a" })).toBeUndefined();
    expect(of({ sentAtMs: String(T0) })).toBeUndefined();
    expect(of({ sentAtMs: Number.POSITIVE_INFINITY })).toBeUndefined();
    expect(
      of({ sentAtMs: T0, serviceSentAtMs: Number.NaN, windowMs: -1, idempotencyKey: "", keyStamp: 7 }),
    ).toStrictEqual({ sentAtMs: T0 });
    expect(
      of({ sentAtMs: T0, serviceSentAtMs: "x", windowMs: "32000", idempotencyKey: 1, keyStamp: "" }),
    ).toStrictEqual({
      sentAtMs: T0,
    });
    expect(of({ ...markerOf(), windowMs: 0 })).toStrictEqual({ ...markerOf(), windowMs: 0 });
  });

  it("a diff seen again before the replacement's create records the placeholder once: once taken, it stays taken", () => {
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "b" });
    expect(pending.take({ v: "b" })?.placeholderId).toBe(PLACEHOLDER);
    pending.note(PLACEHOLDER, markerOf({ idempotencyKey: "another" }), { v: "a" }, { v: "b" });
    expect(pending.take({ v: "b" })).toBeUndefined();
    expect(pending.taken(PLACEHOLDER)?.marker.idempotencyKey).toBe(KEY);
  });

  /** `timedCreate` of a create that runs `body` under a 200 ms timeout: its error. */
  const timedOut = (body: (sending: (key: string) => void) => Promise<unknown>, context = contextOf()) =>
    timedCreate(
      "thing",
      { v: "a" },
      200,
      (_p, sending) => body(sending),
      new PendingReplacements(),
      context,
    ).then(
      () => new Error("the create succeeded"),
      (e: unknown) => e,
    );

  it("a timeout of a create that sent nothing and cannot have been made is the timeout's own error", async () => {
    const error = await timedOut(async () => {
      await sleep(250);
      throw new Error("400 refused");
    });
    expect(error).toBeInstanceOf(OperationTimeoutError);
    expect((error as OperationTimeoutError).mayHaveBeenMade).toBe(false);
  });

  it("a timeout of a create that sent its request is a placeholder, even when what ended it was a refusal", async () => {
    const error = await timedOut(async (sending) => {
      sending(KEY);
      await sleep(250);
      throw new Error("400 refused");
    });
    expect(error).toBeInstanceOf(PendingCreateError);
    expect((error as PendingCreateError).properties[PENDING_CREATE_OUTPUT]).toMatchObject({
      idempotencyKey: KEY,
    });
  });

  it("a placeholder of a create with no answer that sent no key, before the service's clock was known, holds neither", async () => {
    const error = await timedOut(() => sleep(5_000), contextOf({ serviceNow: () => undefined }));
    expect(error).toBeInstanceOf(PendingCreateError);
    const marker = (error as PendingCreateError).properties[PENDING_CREATE_OUTPUT] as PendingCreateMarker;
    expect(Object.keys(marker).sort()).toEqual(["keyStamp", "sentAtMs", "windowMs"]);
    expect((error as PendingCreateError).name).toBe("PendingCreateError");
    expect((error as PendingCreateError).cause).toBeInstanceOf(OperationTimeoutError);
  });

  it("an operation given a placeholder's ID is refused, saying to run pulumi up", () => {
    expect(() => notPlaceholder(PLACEHOLDER)).toThrow(
      new Error(
        `${PLACEHOLDER} is the placeholder of a create that timed out, not a resource of the service: run pulumi up, which ` +
          `replaces it by the resource the service made (or a new one)`,
      ),
    );
    expect(() => notPlaceholder("esb_1")).not.toThrow();
  });

  describe("the provider's context (runtimeContext)", () => {
    let emulator: RunningEmulator;
    const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });
    beforeAll(async () => {
      emulator = await startEmulator({});
    });
    afterAll(async () => {
      await runtime.configure({ config: config({}) });
      await emulator?.close();
    });

    it("knows its own key's stamp, and, once the service has answered a create, its clock and that it honours keys", async () => {
      await runtime.configure({
        config: config({ "service:apiKey": emulator.apiKeys[0], "service:baseUrl": emulator.url }),
      });
      const context = runtimeContext();
      expect(context.isCurrentKeyStamp(context.keyStamp())).toBe(true);
      await eventDestination.create({ target: { datadog: { apiKey: "dd-context" } } });
      expect(context.keysHonoured()).toBe(true);
      const now = Date.now();
      expect(Math.abs(context.serviceNow(now)! - now)).toBeLessThan(5_000);
      expect(context.requestTimeoutMs()).toBeGreaterThan(0);
    });
  });
});

describe("removePending and the replay's proof, case by case (scripted kind)", () => {
  /** Another stack's resource with the placeholder's values, made in its window, that the service gives no URI. */
  const bare: R = { id: "t-bare", createdAt: at(2_000), v: "a" };
  const made: R = { id: "t-made", createdAt: at(5_000), v: "a" };

  /** The warning that names `found` for the placeholder, `why` nothing proved what it made. */
  const namedWarning = (why: string, found: string) =>
    `thing ${PLACEHOLDER} (the placeholder of a create that timed out): ${why}, so nothing tells whether the service made it. ` +
    `One thing with its values, made between ${at(-2_000)} and ${at(32_000 + 2_000)} and held by no resource of this deployment, ` +
    `may be it, or another stack's or anyone's: ${found}. The provider deletes none of them. If one is what this stack's ` +
    `create made, delete it with the command shown (or adopt it with adoptId).`;

  it("a placeholder without a marker is handled: nothing is sent, listed or deleted", async () => {
    const kind = scriptedKind([bare], async () => made);
    expect(await removing(kind, { v: "a" }, contextOf())).toEqual({ handled: true, removed: [] });
    expect([kind.listings, kind.replays]).toEqual([0, []]);
  });

  it("a placeholder replaced without proof names the candidate (by its ID alone when it has no URI) in the whole warning", async () => {
    const kind = scriptedKind([bare], async () => made);
    const pending = new PendingReplacements();
    pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
    pending.take({ v: "a" });
    const seen = warnings();
    expect(await removing(kind, placeholderProps("a", markerOf()), contextOf(), { pending })).toEqual({
      handled: true,
      removed: [],
    });
    expect(seen).toEqual([
      namedWarning("its replacement was created anew without proof of what it had made", "t-bare"),
    ]);
  });

  it("a kind that cannot send a create again, or a service that ignores keys: the candidates are named, and the placeholder is handled", async () => {
    const { replay: _none, ...noReplay } = scriptedKind([{ ...bare, uri: "" }]);
    let seen = warnings();
    expect(await removing(noReplay, placeholderProps("a", markerOf()), contextOf())).toEqual({
      handled: true,
      removed: [],
    });
    expect(seen).toEqual([
      namedWarning("its marker holds no Idempotency-Key to send it again with", "t-bare"),
    ]);
    jest.restoreAllMocks();
    seen = warnings();
    const kind = scriptedKind([bare], async () => made);
    expect(
      await removing(kind, placeholderProps("a", markerOf()), contextOf({ keysHonoured: () => false })),
    ).toEqual({
      handled: true,
      removed: [],
    });
    expect(seen).toEqual([namedWarning("the service does not honour Idempotency-Key", "t-bare")]);
  });

  it("a replay whose answer is lost fails, saying to run destroy again, and deletes nothing", async () => {
    const lost = new APIConnectionError("POST /things: connection reset", { request: "POST /things" });
    const kind = scriptedKind([bare], async () => Promise.reject(lost));
    const error = await removing(kind, placeholderProps("a", markerOf()), contextOf()).catch(
      (e: unknown) => e,
    );
    expect(error).toEqual(
      new Error(
        `thing ${PLACEHOLDER} (the placeholder of a create that timed out): sending its create again under the same ` +
          `Idempotency-Key, to find what it made, failed without an answer (POST /things: connection reset). Run pulumi ` +
          `destroy (or up) again.`,
      ),
    );
    expect((error as Error).cause).toBe(lost);
  });

  it("a replay refused by a service not known to honour keys proves nothing: the candidates are named", async () => {
    const refused = Object.assign(new Error("400: destination not found"), { status: 400 });
    const kind = scriptedKind([bare], async () => Promise.reject(refused));
    const seen = warnings();
    const outcome = await removing(
      kind,
      placeholderProps("a", markerOf()),
      contextOf({ keysHonoured: () => undefined }),
    );
    expect(outcome).toEqual({ handled: true, removed: [] });
    expect(seen).toEqual([namedWarning("sending it again under its Idempotency-Key was refused", "t-bare")]);
  });

  it("a replay that made a resource deletes it, and says whether that proves the create had made nothing", async () => {
    let seen = warnings();
    const honoured = scriptedKind([made], async () => made);
    expect(await removing(honoured, placeholderProps("a", markerOf()), contextOf())).toEqual({
      handled: true,
      removed: ["t-made"],
    });
    expect(seen).toEqual([
      `thing ${PLACEHOLDER} (the placeholder of a create that timed out): the service had made nothing under its ` +
        `Idempotency-Key; sending it again to find out made t-made, which was deleted`,
    ]);
    jest.restoreAllMocks();
    seen = warnings();
    const unknown = scriptedKind([made, bare], async () => made);
    expect(
      await removing(
        unknown,
        placeholderProps("a", markerOf()),
        contextOf({ keysHonoured: () => undefined }),
      ),
    ).toEqual({ handled: true, removed: ["t-made"] });
    expect(seen).toEqual([
      `thing ${PLACEHOLDER} (the placeholder of a create that timed out): sending it again made t-made, which was deleted`,
      namedWarning("the service did not show that it honours Idempotency-Key", "t-bare"),
    ]);
  });

  it("a listing that keeps failing ends with an error saying what to look for and where", async () => {
    const kind = {
      ...scriptedKind([]),
      list: () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error("503")) }) }),
    };
    const error = await removing(
      kind,
      placeholderProps("a", markerOf()),
      contextOf({ keysHonoured: () => false }),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `thing: a create that timed out may have been made, and looking for it failed 5 times (last: 503). Look for a thing ` +
        `with these values made between ${at(-2_000)} and ${at(32_000 + 2_000)} (service-drift generate lists them).`,
    );
  });

  it("a placeholder sent with another API key is refused with what to configure", async () => {
    const kind = scriptedKind([bare], async () => made);
    await expect(
      removing(kind, placeholderProps("a", markerOf({ keyStamp: "stamp-of-another-key" })), contextOf()),
    ).rejects.toThrow(
      new Error(
        `thing ${PLACEHOLDER} (the placeholder of a create that timed out) was sent with another service API key than this ` +
          `provider's: what it made would be in that key's account, which this provider cannot see, so it neither sends it ` +
          `again nor looks for it. Configure the provider with the key that sent it (service:apiKey or SERVICE_API_KEY) and ` +
          `run again; if the key was rotated within that account, run with ${KEY_CHANGE_ENV}=rotation.`,
      ),
    );
  });

  describe("replayAnswered", () => {
    const noted = () => {
      const pending = new PendingReplacements();
      pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
      return pending.take({ v: "a" })!;
    };

    it("an answer under another key than the marker's proves nothing", () => {
      const p = noted();
      expect(replayAnswered(p, "another-key", contextOf({ replayed: ["another-key"] }))).toBe(false);
      expect(p.settled).toBe(false);
    });

    it("the key's first answer settles the placeholder even from a service not known to honour keys", () => {
      const p = noted();
      expect(replayAnswered(p, KEY, contextOf({ replayed: [KEY], keysHonoured: () => undefined }))).toBe(
        true,
      );
      expect(p.settled).toBe(true);
    });

    it("a service that honours keys settles it while the key is kept: up to, not at, its retention", () => {
      const justIn = noted();
      expect(replayAnswered(justIn, KEY, contextOf({ now: () => T0 + KEY_RETENTION_MS - 1 }))).toBe(false);
      expect(justIn.settled).toBe(true);
      const expired = noted();
      replayAnswered(expired, KEY, contextOf({ now: () => T0 + KEY_RETENTION_MS }));
      expect(expired.settled).toBe(false);
    });
  });
});

it("two candidates of a placeholder replaced without proof: counted, and each named with its command, one after the other", async () => {
  const first: R = { id: "t-one", createdAt: at(2_000), v: "a" };
  const second: R = { id: "t-two", createdAt: at(3_000), v: "a" };
  const kind = scriptedKind([first, second], async () => first);
  const pending = new PendingReplacements();
  pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
  pending.take({ v: "a" });
  const seen = warnings();
  await removing(kind, placeholderProps("a", markerOf()), contextOf(), { pending });
  expect(seen).toHaveLength(1);
  expect(seen[0]).toContain(
    `2 things with its values, made between ${at(-2_000)} and ${at(32_000 + 2_000)} and held by no resource of this deployment, ` +
      "may be it, or another stack's or anyone's: t-one, t-two. The provider deletes none of them.",
  );
});

test("the window of a placeholder's candidates holds its last millisecond, not the one after", async () => {
  const last: R = { id: "t-last", createdAt: at(32_000 + 2_000), v: "a" };
  const after: R = { id: "t-after", createdAt: at(32_000 + 2_001), v: "a" };
  const kind = scriptedKind([after, last]);
  const pending = new PendingReplacements();
  pending.note(PLACEHOLDER, markerOf(), { v: "a" }, { v: "a" });
  pending.take({ v: "a" });
  const seen = warnings();
  await removing(kind, placeholderProps("a", markerOf()), contextOf({ keysHonoured: () => false }), {
    pending,
  });
  expect(seen).toHaveLength(1);
  expect(seen[0]).toContain(
    `One thing with its values, made between ${at(-2_000)} and ${at(32_000 + 2_000)} and held by no resource of this deployment, ` +
      "may be it, or another stack's or anyone's: t-last. The provider deletes none of them.",
  );
});
