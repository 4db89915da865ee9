/**
 * The bound on stored `Idempotency-Key` responses: at most `idempotencyKeysPerAccount` per
 * account; storing one more forgets the account's oldest. A forgotten key is a new key again
 * (documented: a retry that comes after that many newer keyed creates makes a second resource).
 */
import { apiRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { destinationBody, withMemoryStore } from "../../helpers/emulator-fixtures";

const A = "key-idem-bound-a";
const B = "key-idem-bound-b";
const LIMIT = 3;

describe("Idempotency-Key responses per account", () => {
  let em: RunningEmulator;
  const create = (key: string, description: string, apiKey = A) =>
    apiRequest(em.url, apiKey, "POST", "/event_destinations", destinationBody({ description }), {
      "idempotency-key": key,
    });
  const destinations = () => em.store.snapshot().event_destinations.length;
  const keysOf = () =>
    (em.store.snapshot().idempotency_keys as { key: string; account_id: string }[]).map((k) => k.key).sort();

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [A, B], limits: { idempotencyKeysPerAccount: LIMIT } });
  });
  afterAll(() => em.close());

  it("keeps the last allowed key, then forgets the oldest; other accounts keep theirs", async () => {
    const b1 = await create("b1", "b1", B);
    expect(b1.status).toBe(201);
    const first: Record<string, string> = {};
    for (const k of ["k1", "k2", "k3"]) first[k] = (await create(k, k)).text;
    // At the bound nothing is forgotten: k1 still replays.
    const k1Again = await create("k1", "k1");
    expect({ replayed: k1Again.headers["idempotent-replayed"], text: k1Again.text }).toEqual({
      replayed: "true",
      text: first.k1,
    });
    expect(keysOf()).toEqual(["b1", "k1", "k2", "k3"]);

    first.k4 = (await create("k4", "k4")).text;
    expect(keysOf()).toEqual(["b1", "k2", "k3", "k4"]);
    const before = destinations();
    for (const k of ["k2", "k3", "k4"]) {
      const again = await create(k, k);
      expect({ k, replayed: again.headers["idempotent-replayed"], text: again.text }).toEqual({
        k,
        replayed: "true",
        text: first[k],
      });
    }
    const b1Again = await create("b1", "b1", B);
    expect({ replayed: b1Again.headers["idempotent-replayed"], text: b1Again.text }).toEqual({
      replayed: "true",
      text: b1.text,
    });
    expect(destinations()).toBe(before);

    // k1 was forgotten: the same request runs again and makes a second destination.
    const k1Late = await create("k1", "k1");
    expect(k1Late.status).toBe(201);
    expect(k1Late.headers["idempotent-replayed"]).toBeUndefined();
    expect(k1Late.json().id).not.toBe(JSON.parse(first.k1).id);
    expect(destinations()).toBe(before + 1);
    expect(keysOf()).toEqual(["b1", "k1", "k3", "k4"]);
  });
});

it.each([0, 2.5, Number.NaN])("idempotencyKeysPerAccount %p is refused at start", async (n) => {
  await expect(startEmulator({ limits: { idempotencyKeysPerAccount: n } })).rejects.toThrow(
    `limits.idempotencyKeysPerAccount must be a whole number from 1 up, got ${n}`,
  );
});

describe("the Idempotency-Key store (packages/emulator/store/idempotencyKeys.ts)", () => {
  it("a key reused with another request within its time to live answers 240 naming that time in hours, and runs nothing", () => {
    withMemoryStore((store) => {
      const acct = store.registerAccount("f".repeat(64), false).id;
      const request = (fingerprint: string, nowMs: number) => ({
        key: "k",
        fingerprint,
        nowMs,
        ttlMs: 2 * 3_600_000,
        maxPerAccount: 5,
      });
      const runs: string[] = [];
      const create = (what: string) => () => {
        runs.push(what);
        return { status: 201, body: JSON.stringify({ what }) };
      };
      expect(store.idempotentCreate(acct, request("first", 0), create("first")).replayed).toBe(false);
      expect(() => store.idempotentCreate(acct, request("second", 3_600_000), create("second"))).toThrow(
        "this Idempotency-Key was already used in the last 2 hours with a different request (another path or body); use a new key for a new request",
      );
      expect(runs).toEqual(["first"]);
    });
  });
});
