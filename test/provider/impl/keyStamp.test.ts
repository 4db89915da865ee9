/**
 * The key stamp of a resource's state (provider/impl/keyStamp.ts): a fingerprint of the API key it
 * was made with, and the rule that a 404 counts as "gone" only for that key; then through the
 * runtime and an event subscription's create, read and delete, against the emulator with two
 * accounts (the first with a second, rotated key).
 */
import { ServiceClient } from "../../../client";
import * as eventSubscription from "../../../provider/impl/eventSubscription";
import type { SubscriptionOutputs } from "../../../provider/impl/eventSubscription";
import { KEY_STAMP, assertGoneForThisKey, keyStamp, stampIn } from "../../../provider/impl/keyStamp";
import * as runtime from "../../../provider/impl/runtime";
import { addApiKey, startEmulator, type RunningEmulator } from "../../helpers/emulator";

const KEY_A = "sk_stamp_account_a_0123456789";
const KEY_B = "sk_stamp_account_b_9876543210";

describe("keyStamp", () => {
  it("is 16 hex digits, the same for one key and different for two, and holds no part of the key", () => {
    expect(keyStamp(KEY_A)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyStamp(KEY_A)).toBe(keyStamp(KEY_A));
    expect(keyStamp(KEY_A)).not.toBe(keyStamp(KEY_B));
    for (let i = 0; i + 4 <= KEY_A.length; i++) expect(keyStamp(KEY_A)).not.toContain(KEY_A.slice(i, i + 4));
  });

  it("is read from a state's outputs, and only when well-formed", () => {
    expect(stampIn({ [KEY_STAMP]: keyStamp(KEY_A), description: "x" })).toBe(keyStamp(KEY_A));
    expect(stampIn({ description: "x" })).toBeUndefined();
    expect(stampIn(undefined)).toBeUndefined();
    expect(stampIn({ [KEY_STAMP]: KEY_A })).toBeUndefined();
  });
});

describe("assertGoneForThisKey", () => {
  const a = keyStamp(KEY_A);
  const b = keyStamp(KEY_B);

  it("lets a 404 count as gone for the key that made the resource, or for a state without a stamp", () => {
    expect(() => assertGoneForThisKey("event subscription sub_1", "delete", a, a, {})).not.toThrow();
    expect(() => assertGoneForThisKey("event subscription sub_1", "read", undefined, a, {})).not.toThrow();
  });

  it("refuses a 404 of another key, naming the resource, both stamps and what to run", () => {
    expect(() => assertGoneForThisKey("event subscription sub_1", "delete", a, b, {})).toThrow(
      `event subscription sub_1 was made with another service API key (key stamp ${a}) than this provider's ` +
        `(key stamp ${b}), and the service answers 404 to this key: it may belong to another account, so it is not ` +
        "counted as deleted. Configure the provider with a key of the account that made it (service:apiKey or " +
        "SERVICE_API_KEY) and run again; if the key was rotated within that account and the resource is really " +
        "gone, run with SERVICE_KEY_CHANGE=rotation.",
    );
    expect(() => assertGoneForThisKey("event destination dst_2", "read", a, b, {})).toThrow(
      /^event destination dst_2 was made .* so it is not dropped from the state\./,
    );
  });

  it("takes SERVICE_KEY_CHANGE=rotation as the user's word that the key was rotated within the account", () => {
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "delete", a, b, { SERVICE_KEY_CHANGE: "rotation" }),
    ).not.toThrow();
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "delete", a, b, { SERVICE_KEY_CHANGE: "move" }),
    ).toThrow(/not counted as deleted/);
  });
});

describe("key stamps through the runtime (real emulator, two accounts)", () => {
  const FIRST = "sk_stamp_first_account_1111";
  const SECOND = "sk_stamp_second_account_2222";
  const ROTATED = "sk_stamp_first_account_rotated_3333";
  let emulator: RunningEmulator;
  let client: ServiceClient;
  const useKey = (apiKey: string) =>
    runtime.configure({
      config: { get: (k: string) => ({ "service:apiKey": apiKey, "service:baseUrl": emulator.url })[k] },
    });
  let destinationId: string;
  let count = 0;
  /** A subscription made through the runtime with the first account's key: its outputs. */
  const made = async () => {
    await useKey(FIRST);
    const news = {
      description: `stamped ${++count}`,
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destinationId],
    };
    return (await eventSubscription.create(news)).outs as SubscriptionOutputs;
  };
  const createdId = (outs: SubscriptionOutputs) => outs.uri.split("/").pop()!;

  beforeAll(async () => {
    emulator = await startEmulator({ apiKeys: [FIRST, SECOND] });
    await addApiKey(emulator.url, emulator.adminKey, ROTATED, FIRST);
    client = new ServiceClient({ apiKey: FIRST, baseUrl: emulator.url });
    destinationId = (
      await client.eventDestinations.create({ target: { datadog: { apiKey: "dd-stamp-key" } } })
    ).id;
  });

  afterAll(async () => {
    await runtime.configure({ config: { get: () => undefined } });
    await client?.close();
    await emulator?.close();
  });

  it("a create stamps its outputs with the key that made the resource", async () => {
    const outs = await made();
    expect(stampIn(outs)).toBe(keyStamp(FIRST));
  });

  it("another account's key: neither a refresh nor a delete takes its 404 for gone, and the resource stays", async () => {
    const outs = await made();
    const id = createdId(outs);
    await useKey(SECOND);
    await expect(eventSubscription.read(id, outs)).rejects.toThrow(
      `event subscription ${id} was made with another service API key (key stamp ${keyStamp(FIRST)}) than this ` +
        `provider's (key stamp ${keyStamp(SECOND)})`,
    );
    await expect(eventSubscription.remove(id, outs)).rejects.toThrow(/so it is not counted as deleted/);
    expect((await client.eventSubscriptions.get(id)).id).toBe(id);
  });

  it("a key rotated within the account finds the resource, and a refresh stamps it with the new key", async () => {
    const outs = await made();
    const id = createdId(outs);
    await useKey(ROTATED);
    const read = await eventSubscription.read(id, outs);
    expect(read.id).toBe(id);
    expect(stampIn(read.props)).toBe(keyStamp(ROTATED));
    await client.eventSubscriptions.delete(id);
    await expect(eventSubscription.read(id, read.props as SubscriptionOutputs)).resolves.toEqual({});
    await expect(eventSubscription.remove(id, read.props as SubscriptionOutputs)).resolves.toBeUndefined();
  });

  it("a 404 to the key that made it counts as gone; SERVICE_KEY_CHANGE=rotation lets another key's 404 count too", async () => {
    const outs = await made();
    const id = createdId(outs);
    await client.eventSubscriptions.delete(id);
    await expect(eventSubscription.read(id, outs)).resolves.toEqual({});
    await useKey(ROTATED);
    await expect(eventSubscription.remove(id, outs)).rejects.toThrow(/not counted as deleted/);
    process.env.SERVICE_KEY_CHANGE = "rotation";
    try {
      await expect(eventSubscription.remove(id, outs)).resolves.toBeUndefined();
    } finally {
      delete process.env.SERVICE_KEY_CHANGE;
    }
  });

  it("a state written before stamps keeps its shape on refresh, and its 404 counts as gone as before", async () => {
    const outs = await made();
    const id = createdId(outs);
    const { [KEY_STAMP]: _stamp, ...before } = outs as SubscriptionOutputs & Record<string, unknown>;
    const read = await eventSubscription.read(id, before as SubscriptionOutputs);
    expect(stampIn(read.props)).toBeUndefined();
    await useKey(SECOND);
    await expect(eventSubscription.read(id, before as SubscriptionOutputs)).resolves.toEqual({});
  });

  it("an import (a read with no state) stamps the outputs with the key that found the resource", async () => {
    const outs = await made();
    await useKey(ROTATED);
    const read = await eventSubscription.read(createdId(outs), {} as SubscriptionOutputs);
    expect(stampIn(read.props)).toBe(keyStamp(ROTATED));
  });
});
