/**
 * The key stamp of a resource's state (provider/impl/keyStamp.ts): a salted, slow fingerprint of
 * the API key it was made with, from which a state's reader cannot test guesses of the key at
 * speed, and the rule that a 404 counts as "gone" only for that key; the stamps of earlier
 * versions (16 hex digits of SHA-256) verify and are rewritten; then through the runtime and an
 * event subscription's create, read, update and delete, against the emulator with two accounts
 * (the first with a second, rotated key).
 */
import { createHash, randomBytes, scryptSync } from "node:crypto";
import { ServiceClient } from "../../../client";
import * as eventSubscription from "../../../provider/impl/eventSubscription";
import type { SubscriptionOutputs } from "../../../provider/impl/eventSubscription";
import {
  KEY_STAMP,
  STAMP_SCRYPT,
  assertGoneForThisKey,
  keyStamp,
  legacyKeyStamp,
  shortStamp,
  stampIn,
  stampMatches,
} from "../../../provider/impl/keyStamp";
import * as debugLog from "../../../provider/impl/process/debugLog";
import * as runtime from "../../../provider/impl/runtime";
import { addApiKey, startEmulator, type RunningEmulator } from "../../helpers/emulator";

const KEY_A = "sk_stamp_account_a_0123456789";
const KEY_B = "sk_stamp_account_b_9876543210";
/** The stamp's format: version, salt and hash, 16 bytes each in base64url. */
const FORMAT = /^s1\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;
/** The parts of a salted stamp. */
const parts = (stamp: string) => {
  const [, salt, hash] = FORMAT.exec(stamp)!;
  return { salt, hash };
};
/** What versions before salted stamps wrote: the first 16 hex digits of an unsalted SHA-256. */
const sha256Stamp = (key: string) =>
  createHash("sha256").update(`pulumi-service key stamp\n${key}`).digest("hex").slice(0, 16);
/** Another salt, as another provider process would draw. */
const otherSalt = () => randomBytes(16).toString("base64url");
/** keyStamp.ts loaded afresh, as in another provider process. */
function anotherProcess(): typeof import("../../../provider/impl/keyStamp") {
  let fresh: typeof import("../../../provider/impl/keyStamp") | undefined;
  jest.isolateModules(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    fresh = require("../../../provider/impl/keyStamp");
  });
  return fresh!;
}

describe("keyStamp", () => {
  it("is salted: no plain SHA-256 of the key in it, one stamp per process, and two processes' stamps of one key differ", () => {
    const stamp = keyStamp(KEY_A);
    expect(stamp).toMatch(FORMAT);
    const { hash } = parts(stamp);
    const plain = [
      createHash("sha256").update(`pulumi-service key stamp\n${KEY_A}`).digest(),
      createHash("sha256").update(KEY_A).digest(),
    ];
    for (const digest of plain) {
      expect(stamp).not.toContain(digest.toString("hex").slice(0, 6));
      expect(stamp).not.toContain(digest.toString("base64url").slice(0, 6));
      expect(Buffer.from(hash, "base64url").subarray(0, 3)).not.toEqual(digest.subarray(0, 3));
    }
    for (let i = 0; i + 4 <= KEY_A.length; i++) expect(stamp).not.toContain(KEY_A.slice(i, i + 4));
    // One process writes one stamp per key (one salt, one derivation)...
    expect(keyStamp(KEY_A)).toBe(stamp);
    expect(parts(keyStamp(KEY_B)).salt).toBe(parts(stamp).salt);
    // ...and another process another: two stacks with the same key cannot be told apart by it.
    const elsewhere = anotherProcess().keyStamp(KEY_A);
    expect(elsewhere).toMatch(FORMAT);
    expect(parts(elsewhere).salt).not.toBe(parts(stamp).salt);
    expect(parts(elsewhere).hash).not.toBe(hash);
    expect(stampMatches(elsewhere, KEY_A)).toBe(true);
  });

  it("is scrypt with N = 2^14, r = 8 (16 MiB and tens of milliseconds a derivation) over the stamp's own salt", () => {
    expect(STAMP_SCRYPT).toMatchObject({ N: 2 ** 14, r: 8, p: 1, saltBytes: 16, hashBytes: 16 });
    expect(128 * STAMP_SCRYPT.N * STAMP_SCRYPT.r).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    const salt = otherSalt();
    const expected = scryptSync(`pulumi-service key stamp\n${KEY_A}`, Buffer.from(salt, "base64url"), 16, {
      N: 2 ** 14,
      r: 8,
      p: 1,
      maxmem: 64 * 1024 * 1024,
    });
    expect(keyStamp(KEY_A, salt)).toBe(`s1.${salt}.${expected.toString("base64url")}`);
  });

  it("verifies for its key and not for another; no stamp or an unreadable one is undefined", () => {
    const stamp = keyStamp(KEY_A);
    expect(stampMatches(stamp, KEY_A)).toBe(true);
    expect(stampMatches(stamp, KEY_B)).toBe(false);
    expect(stampMatches(keyStamp(KEY_A, otherSalt()), KEY_A)).toBe(true);
    expect(stampMatches(keyStamp(KEY_B, otherSalt()), KEY_A)).toBe(false);
    const { salt, hash } = parts(stamp);
    const tampered = `s1.${salt}.${(hash[0] === "A" ? "B" : "A") + hash.slice(1)}`;
    expect(stampMatches(tampered, KEY_A)).toBe(false);
    expect(stampMatches(undefined, KEY_A)).toBeUndefined();
    expect(stampMatches("s2.whatever", KEY_A)).toBeUndefined();
    expect(stampMatches(KEY_A, KEY_A)).toBeUndefined();
  });

  it("still verifies the 16 hex digits of earlier versions, for their key only", () => {
    const old = sha256Stamp(KEY_A);
    expect(legacyKeyStamp(KEY_A)).toBe(old);
    expect(stampMatches(old, KEY_A)).toBe(true);
    expect(stampMatches(old, KEY_B)).toBe(false);
  });

  it("is read from a state's outputs in either format, and only when well-formed", () => {
    expect(stampIn({ [KEY_STAMP]: keyStamp(KEY_A), description: "x" })).toBe(keyStamp(KEY_A));
    expect(stampIn({ [KEY_STAMP]: sha256Stamp(KEY_A) })).toBe(sha256Stamp(KEY_A));
    const written = `s1.${"A".repeat(22)}.${"b-_9".repeat(5)}Zz`;
    expect(stampIn({ [KEY_STAMP]: written })).toBe(written);
    expect(stampIn({ description: "x" })).toBeUndefined();
    expect(stampIn(undefined)).toBeUndefined();
    expect(stampIn({ [KEY_STAMP]: KEY_A })).toBeUndefined();
    expect(stampIn({ [KEY_STAMP]: `${keyStamp(KEY_A)}x` })).toBeUndefined();
    expect(stampIn({ [KEY_STAMP]: `0${sha256Stamp(KEY_A)}` })).toBeUndefined();
    expect(stampIn({ [KEY_STAMP]: `${sha256Stamp(KEY_A)}0` })).toBeUndefined();
  });

  it("refuses a salt that is not 22 base64url characters", () => {
    for (const salt of ["", "A".repeat(21), "A".repeat(23), `${"A".repeat(21)}=`])
      expect(() => keyStamp(KEY_A, salt)).toThrow("a key stamp's salt must be 22 base64url characters");
  });

  it("derives once per key and salt, keeping the derivations of the four keys seen last", () => {
    const fresh = anotherProcess();
    const salt = otherSalt();
    const keys = ["k1", "k2", "k3", "k4", "k5"].map((k) => `sk_cache_${k}`);
    // The module object keyStamp.ts calls scryptSync on (an import's namespace cannot be spied on).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const derivations = jest.spyOn(require("node:crypto") as typeof import("node:crypto"), "scryptSync");
    try {
      const first = keys.slice(0, 4).map((k) => fresh.keyStamp(k, salt));
      expect(derivations).toHaveBeenCalledTimes(4);
      // The four again, and their stamps checked: no derivation.
      expect(keys.slice(0, 4).map((k) => fresh.keyStamp(k, salt))).toEqual(first);
      keys.slice(0, 4).forEach((k, i) => expect(fresh.stampMatches(first[i], k)).toBe(true));
      expect(derivations).toHaveBeenCalledTimes(4);
      // A fifth key forgets the first seen: it is derived again.
      fresh.keyStamp(keys[4], salt);
      expect(derivations).toHaveBeenCalledTimes(5);
      expect(fresh.stampMatches(first[0], keys[0])).toBe(true);
      expect(derivations).toHaveBeenCalledTimes(6);
    } finally {
      derivations.mockRestore();
    }
  });
});

describe("assertGoneForThisKey", () => {
  const a = keyStamp(KEY_A, otherSalt());
  const b = keyStamp(KEY_B);
  const check = (made: string | undefined, key: string) => ({
    made,
    madeIsCurrent: stampMatches(made, key),
    current: keyStamp(key),
  });

  it("lets a 404 count as gone for the key that made the resource, or for a state without a stamp", () => {
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "delete", check(a, KEY_A), {}),
    ).not.toThrow();
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "read", check(undefined, KEY_A), {}),
    ).not.toThrow();
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "read", check(sha256Stamp(KEY_A), KEY_A), {}),
    ).not.toThrow();
  });

  it("refuses a 404 of another key, naming the resource, both stamps by a short form only, and what to run for one run", () => {
    const message = String(
      (() => {
        try {
          assertGoneForThisKey("event subscription sub_1", "delete", check(a, KEY_B), {});
        } catch (e) {
          return e;
        }
      })(),
    );
    expect(message).toBe(
      `Error: event subscription sub_1 was made with another service API key (key stamp ${parts(a).hash.slice(0, 6)}…) ` +
        `than this provider's (key stamp ${parts(b).hash.slice(0, 6)}…), and the service answers 404 to this key: ` +
        "it may belong to another account, so it is not counted as deleted. Configure the provider with a key of " +
        "the account that made it (service:apiKey or SERVICE_API_KEY) and run again; if the key was rotated within " +
        "that account and the resource is really gone, run once with SERVICE_KEY_CHANGE=rotation, which turns " +
        "these checks off for that run: unset it afterwards.",
    );
    for (const stamp of [a, b]) {
      expect(message).not.toContain(parts(stamp).salt.slice(0, 6));
      expect(message).not.toContain(parts(stamp).hash.slice(0, 7));
    }
    expect(() => assertGoneForThisKey("event destination dst_2", "read", check(a, KEY_B), {})).toThrow(
      /^event destination dst_2 was made .* so it is not dropped from the state\./,
    );
  });

  it("names a stamp of an earlier version without any of its digits", () => {
    const old = sha256Stamp(KEY_A);
    expect(shortStamp(old)).not.toMatch(/[0-9a-f]{4}/);
    expect(() => assertGoneForThisKey("event subscription sub_1", "read", check(old, KEY_B), {})).toThrow(
      /was made with another service API key \(key stamp of an earlier provider version\) than this provider's \(key stamp [A-Za-z0-9_-]{6}…\)/,
    );
    let message = "";
    try {
      assertGoneForThisKey("event subscription sub_1", "read", check(old, KEY_B), {});
    } catch (e) {
      message = String(e);
    }
    for (let i = 0; i + 4 <= old.length; i++) expect(message).not.toContain(old.slice(i, i + 4));
  });

  it("takes SERVICE_KEY_CHANGE=rotation as the user's word, for this run, that the key was rotated within the account", () => {
    const warn = jest.spyOn(debugLog, "warn").mockResolvedValue(undefined);
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "delete", check(a, KEY_B), {
        SERVICE_KEY_CHANGE: "rotation",
      }),
    ).not.toThrow();
    expect(() =>
      assertGoneForThisKey("event subscription sub_1", "delete", check(a, KEY_B), {
        SERVICE_KEY_CHANGE: "move",
      }),
    ).toThrow(/not counted as deleted/);
    warn.mockRestore();
  });

  it("warns once per process when SERVICE_KEY_CHANGE=rotation takes effect, that the checks are off for this run", async () => {
    await jest.isolateModulesAsync(async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const log = require("@pulumi/pulumi/log") as typeof import("@pulumi/pulumi/log");
      const warn = jest.spyOn(log, "warn").mockResolvedValue(undefined);
      type KeyStampModule = typeof import("../../../provider/impl/keyStamp");
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const fresh = require("../../../provider/impl/keyStamp") as KeyStampModule;
      const env = { SERVICE_KEY_CHANGE: "rotation" };
      fresh.assertGoneForThisKey("event subscription sub_1", "delete", check(a, KEY_A), env);
      expect(warn).not.toHaveBeenCalled(); // the key's own stamp: the variable changed nothing
      for (const id of ["sub_1", "sub_2"]) {
        fresh.assertGoneForThisKey(`event subscription ${id}`, "delete", check(a, KEY_B), env);
      }
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(
        /^SERVICE_KEY_CHANGE=rotation is set: for this run, .* the key stamp checks are off .* It is meant for one run: unset SERVICE_KEY_CHANGE once this run is done\.$/,
      );
      warn.mockRestore();
    });
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
    expect(stampMatches(stampIn(outs), FIRST)).toBe(true);
  });

  it("a refresh keeps a stamp of its key as it is, though another process salted it (no churn in the state)", async () => {
    const outs = await made();
    const elsewhere = keyStamp(FIRST, otherSalt());
    const read = await eventSubscription.read(createdId(outs), {
      ...outs,
      [KEY_STAMP]: elsewhere,
    } as SubscriptionOutputs);
    expect(stampIn(read.props)).toBe(elsewhere);
    expect(stampIn(read.props)).not.toBe(keyStamp(FIRST)); // not this process's salt
  });

  it("a stamp of an earlier version (16 hex digits) verifies, and the next write of the outputs replaces it with a salted one", async () => {
    const outs = await made();
    const id = createdId(outs);
    const old = { ...outs, [KEY_STAMP]: sha256Stamp(FIRST) } as SubscriptionOutputs;
    // Another account's key still may not take its 404 for gone...
    await useKey(SECOND);
    await expect(eventSubscription.read(id, old)).rejects.toThrow(
      /key stamp of an earlier provider version\) than this provider's/,
    );
    // ...the key that made it finds it, and the refresh writes the salted stamp of its key,
    await useKey(FIRST);
    const read = await eventSubscription.read(id, old);
    expect(read.id).toBe(id);
    expect(stampIn(read.props)).toBe(keyStamp(FIRST));
    expect(stampIn(read.props)).toMatch(FORMAT);
    // as an update does.
    const updated = await eventSubscription.update(id, old, {
      description: "updated after the upgrade",
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destinationId],
    });
    expect(stampIn(updated.outs)).toBe(keyStamp(FIRST));
    // A 404 to the key that made it still counts as gone.
    await client.eventSubscriptions.delete(id);
    await expect(eventSubscription.read(id, old)).resolves.toEqual({});
  });

  it("another account's key: neither a refresh nor a delete takes its 404 for gone, and the resource stays", async () => {
    const outs = await made();
    const id = createdId(outs);
    await useKey(SECOND);
    await expect(eventSubscription.read(id, outs)).rejects.toThrow(
      `event subscription ${id} was made with another service API key (key stamp ${shortStamp(keyStamp(FIRST))}) ` +
        `than this provider's (key stamp ${shortStamp(keyStamp(SECOND))})`,
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
