/**
 * The `EventSubscription` provider's pure parts (provider/impl/eventSubscription.ts): outputs,
 * the inputs a refresh returns, `diff` (order of lists ignored) and the match that finds the
 * subscription an ambiguous create made (order kept: it is what the create sent); and, against
 * the emulator, a refresh and a delete after the subscription was deleted outside Pulumi, an
 * update, an update past its timeout, another key's 404, a lost create's answer, a placeholder's
 * replacement and adoption (`adoptId`).
 */
import type { EventSubscription } from "service-contract";
import {
  create,
  diff,
  matchKey,
  matchesInputs,
  read,
  remove,
  update,
  toInputs,
  toOutputs,
  type SubscriptionInputs,
  type SubscriptionOutputs,
} from "../../../provider/impl/eventSubscription";
import { randomUUID } from "node:crypto";
import { PENDING_CREATE_OUTPUT, canonical } from "../../../provider/impl/create/pendingCreate";
import { KEY_STAMP, keyStamp } from "../../../provider/impl/keyStamp";
import * as debugLog from "../../../provider/impl/process/debugLog";
import { getClient } from "../../../provider/impl/process/client";
import { getRequestLog, lastRequestSeq, setFaults } from "../../helpers/emulator";
import { lostAnswer, placeholderOf, useProviderOnEmulator } from "../../helpers/provider-emulator";

const id = (prefix: string, c: string) => `${prefix}${c.repeat(27)}`;
const ID = id("esb_", "S");
const [A, B] = [id("ed_", "A"), id("ed_", "B")];
const T1 = "ip_policy_created.v0";
const T2 = "domain_created.v0";
const uri = `http://svc/event_subscriptions/${ID}`;
const live = (over: Partial<EventSubscription> = {}): EventSubscription => ({
  id: ID,
  uri,
  createdAt: "2026-11-23T08:00:00Z",
  metadata: "",
  description: "d",
  sources: [T1, T2].map((type) => ({ type, uri: `${uri}/sources/${type}` })),
  destinations: [A, B].map((d) => ({ id: d, uri: `http://svc/event_destinations/${d}` })),
  ...over,
});
const inputs = (over: Partial<SubscriptionInputs> = {}): SubscriptionInputs => ({
  sources: [{ type: T1 }, { type: T2 }],
  destinationIds: [A, B],
  description: "d",
  ...over,
});

describe("outputs and inputs", () => {
  it('outputs carry destinationIds beside the references, and a refresh\'s inputs leave out ""', () => {
    const outs = toOutputs(live());
    expect(outs.destinationIds).toEqual([A, B]);
    expect(toInputs(outs)).toEqual(inputs());
  });
});

describe("diff", () => {
  const outs = toOutputs(live());
  it.each<[string, SubscriptionInputs, boolean]>([
    ["the same inputs", inputs(), false],
    [
      "lists in another order",
      inputs({ sources: [{ type: T2 }, { type: T1 }], destinationIds: [B, A] }),
      false,
    ],
    ["a destination less", inputs({ destinationIds: [A] }), true],
    ["another source", inputs({ sources: [{ type: T1 }] }), true],
    ["description cleared", inputs({ description: undefined }), true],
    ["metadata set", inputs({ metadata: "m" }), true],
  ])("%s", async (_what, news, changes) => {
    expect((await diff(ID, outs, news)).changes).toBe(changes);
  });
});

describe("matchesInputs", () => {
  it.each<[string, SubscriptionInputs, boolean]>([
    ["same values in the same order", inputs(), true],
    ["destinations in another order", inputs({ destinationIds: [B, A] }), false],
    ["another description", inputs({ description: "e" }), false],
    ['left-out metadata is ""', inputs({ metadata: undefined }), true],
  ])("%s", (_what, news, expected) => {
    expect(matchesInputs(live(), news)).toBe(expected);
  });
});

describe("after a delete outside Pulumi (real emulator)", () => {
  const service = useProviderOnEmulator("sk_subscription_out_of_band_4c1e");

  it("a refresh drops the subscription from the state, and a delete counts it as done", async () => {
    const { client } = service();
    const destination = await client.eventDestinations.create({
      target: { datadog: { apiKey: "dd-oob-key" } },
    });
    const made = await create({
      sources: [{ type: T1 }],
      destinationIds: [destination.id],
      description: "oob",
    });
    const outs = made.outs as SubscriptionOutputs;
    await expect(read(made.id, outs)).resolves.toMatchObject({ id: made.id });
    await client.eventSubscriptions.delete(made.id);
    await expect(read(made.id, outs)).resolves.toEqual({});
    await expect(remove(made.id, outs)).resolves.toBeUndefined();
  });
});

describe("matchKey and update", () => {
  const base: SubscriptionInputs = { sources: [{ type: T1 }], destinationIds: [`ed_${"A".repeat(27)}`] };

  it("matchKey is one for inputs that send the same create, another for any difference", () => {
    expect(matchKey({ ...base, description: "" })).toBe(matchKey(base));
    for (const other of [
      { ...base, sources: [{ type: T2 }] },
      { ...base, destinationIds: [`ed_${"B".repeat(27)}`] },
      { ...base, description: "d" },
      { ...base, metadata: "m" },
    ])
      expect(matchKey(other)).not.toBe(matchKey(base));
  });

  describe("against the emulator", () => {
    const service = useProviderOnEmulator("sk_subscription_update_9e2b");
    const lastSeq = () => lastRequestSeq(service().emulator.url, service().emulator.adminKey);

    it("an update sends every managed field: a description the program leaves out is cleared", async () => {
      const destination = await service().client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-update-key" } },
      });
      const news: SubscriptionInputs = { sources: [{ type: T1 }], destinationIds: [destination.id] };
      const made = await create({ ...news, description: "to clear", metadata: "to clear too" });
      const before = await service().client.eventSubscriptions.get(made.id);
      expect([before.description, before.metadata]).toEqual(["to clear", "to clear too"]);
      await update(made.id, made.outs as SubscriptionOutputs, news);
      const live = await service().client.eventSubscriptions.get(made.id);
      expect([live.description, live.metadata]).toEqual(["", ""]);
    });

    it("an update that outlives its timeout fails naming the subscription", async () => {
      const { client, emulator } = service();
      const destination = await client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-slow-key" } },
      });
      const news: SubscriptionInputs = { sources: [{ type: T1 }], destinationIds: [destination.id] };
      const made = await create(news);
      await setFaults(emulator.url, emulator.adminKey, { latencyMs: 400 });
      try {
        await expect(
          update(made.id, made.outs as SubscriptionOutputs, { ...news, description: "late" }, 50),
        ).rejects.toThrow(
          `update of event subscription ${made.id} did not finish within the update timeout of 50 ms`,
        );
      } finally {
        await setFaults(emulator.url, emulator.adminKey, {});
      }
    });

    it("a delete answered 404 to another key than the one that made the subscription fails naming it, and counts nothing as deleted", async () => {
      const gone = id("esb_", "Z");
      const madeAt = `${service().emulator.url}/event_subscriptions/${gone}`;
      const props = {
        ...toOutputs(live({ id: gone, uri: madeAt })),
        [KEY_STAMP]: keyStamp("sk_another_account_0000"),
      };
      await expect(remove(gone, props as SubscriptionOutputs)).rejects.toThrow(
        new RegExp(
          `^event subscription ${gone} was made with another service API key .* so it is not counted as deleted`,
        ),
      );
    });

    it("a create whose answer was lost is sent again under its key, the service having shown it honours keys: the subscription it made is taken, nothing listed", async () => {
      const { client, emulator } = service();
      const destination = await client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-lost-key" } },
      });
      const subscriptions = getClient().eventSubscriptions;
      const send = subscriptions.create.bind(subscriptions);
      const filed: string[] = [];
      const creates = jest.spyOn(subscriptions, "create").mockImplementationOnce(async (body, options) => {
        filed.push((await send(body, options)).id);
        throw lostAnswer("POST /event_subscriptions");
      });
      const since = await lastSeq();
      try {
        const made = await create({
          sources: [{ type: T1 }],
          destinationIds: [destination.id],
          description: "lost",
        });
        expect(made.id).toBe(filed[0]);
        expect(creates).toHaveBeenCalledTimes(2);
        expect(creates.mock.calls[1][1]?.idempotencyKey).toBe(creates.mock.calls[0][1]?.idempotencyKey);
        const requests = (await getRequestLog(emulator.url, emulator.adminKey, since)).requests;
        expect(
          requests.map(
            (r) => `${r.method} ${r.path.split("?")[0]}${r.idempotent_replay ? " (replayed)" : ""}`,
          ),
        ).toEqual(["POST /event_subscriptions", "POST /event_subscriptions (replayed)"]);
      } finally {
        creates.mockRestore();
      }
    });

    it("a create whose answer was lost, to a service not known to honour keys, looks for what it made from its send on in the service's time: an older twin is not taken", async () => {
      const { client } = service();
      const destination = await client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-twin-key" } },
      });
      const values: SubscriptionInputs = {
        sources: [{ type: T1 }],
        destinationIds: [destination.id],
        description: "twin",
      };
      const twin = await client.eventSubscriptions.create(values);
      // Older than the lookup's margin before the send (2 s) and the service clock's resolution (1 s).
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const honoured = jest.spyOn(getClient().idempotency, "honoured", "get").mockReturnValue(false);
      const creates = jest
        .spyOn(getClient().eventSubscriptions, "create")
        .mockImplementationOnce(async () => {
          throw lostAnswer("POST /event_subscriptions");
        });
      try {
        const made = await create(values);
        expect(made.id).not.toBe(twin.id);
        expect(creates).toHaveBeenCalledTimes(2);
      } finally {
        creates.mockRestore();
        honoured.mockRestore();
      }
    });

    it("a placeholder's replacement sends its create again under its key and takes what that create made, updated only when the program's values differ from those sent", async () => {
      const { client, emulator } = service();
      const destination = await client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-replay-key" } },
      });
      const warned = jest.spyOn(debugLog, "warn").mockResolvedValue(undefined);
      try {
        for (const [sent, now] of [
          ["as sent", "as sent"],
          ["sent", "changed since"],
        ]) {
          const sentInputs: SubscriptionInputs = {
            sources: [{ type: T1 }],
            destinationIds: [destination.id],
            description: sent,
          };
          // The create the placeholder stands for, as the provider sends it (keys in sorted order), under its key.
          const idempotencyKey = randomUUID();
          const made = await client.eventSubscriptions.create(canonical(sentInputs), { idempotencyKey });
          // The state the timed-out create left: the placeholder, with the values sent and the key.
          const { id: placeholderId, props } = placeholderOf(sentInputs, idempotencyKey);
          const news = { ...sentInputs, description: now };
          expect((await diff(placeholderId, props as never, news)).replaces).toEqual([PENDING_CREATE_OUTPUT]);
          const since = await lastSeq();
          warned.mockClear();

          const replacement = await create(news);
          expect(replacement.id).toBe(made.id);
          const writes = (await getRequestLog(emulator.url, emulator.adminKey, since)).requests
            .filter((r) => r.method !== "GET")
            .map((r) => `${r.method} ${r.path}${r.idempotent_replay ? " (replayed)" : ""}`);
          expect(writes).toEqual(
            sent === now
              ? ["POST /event_subscriptions (replayed)"]
              : ["POST /event_subscriptions (replayed)", `PATCH /event_subscriptions/${made.id}`],
          );
          expect((await client.eventSubscriptions.get(made.id)).description).toBe(now);
          // The placeholder's delete (the engine's, after the replacement) sends nothing.
          const before = await lastSeq();
          await expect(remove(placeholderId, props as never)).resolves.toBeUndefined();
          expect(await lastSeq()).toBe(before);
          expect(warned.mock.calls.map(([message]) => message)).toEqual([
            `event subscription: the create of ${placeholderId} timed out earlier; sent again under its Idempotency-Key, ` +
              `the service answered with ${made.id}, which that create had made: took it`,
          ]);
        }
      } finally {
        warned.mockRestore();
      }
    });

    it("adoption (adoptId) takes a subscription that holds the program's inputs as it is, and updates one that differs in any property", async () => {
      const { client, emulator } = service();
      const [d1, d2] = await Promise.all(
        ["dd-adopt-1", "dd-adopt-2"].map((apiKey) =>
          client.eventDestinations.create({ target: { datadog: { apiKey } } }),
        ),
      );
      const news: SubscriptionInputs = {
        sources: [{ type: T1 }, { type: T2 }],
        destinationIds: [d1.id, d2.id],
        description: "kept",
      };
      const patches = async (since: number) =>
        (await getRequestLog(emulator.url, emulator.adminKey, since)).requests.filter(
          (r) => r.method === "PATCH",
        );

      // Lists in another order are the same sets: taken as it is, no update sent.
      const same = await client.eventSubscriptions.create({
        ...news,
        sources: [{ type: T2 }, { type: T1 }],
        destinationIds: [d2.id, d1.id],
      });
      let since = await lastSeq();
      await expect(create({ ...news, adoptId: same.id })).resolves.toMatchObject({ id: same.id });
      expect(await patches(since)).toEqual([]);

      // Sources and destinations alike, the description not: updated to the program's.
      const other = await client.eventSubscriptions.create({ ...news, description: "outside" });
      since = await lastSeq();
      await create({ ...news, adoptId: other.id });
      expect((await patches(since)).map((r) => r.path)).toEqual([`/event_subscriptions/${other.id}`]);
      expect((await client.eventSubscriptions.get(other.id)).description).toBe("kept");
    });
  });
});
