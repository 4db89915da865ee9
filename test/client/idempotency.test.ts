/**
 * The client's one owner of `Idempotency-Key` (client/idempotency.ts): which creates get a key,
 * when a keyed POST may be sent again after a lost answer, and what the server showed.
 * Then `idempotencyKeys: "auto"`: keys on every create, retries after resets only once
 * the server has echoed a key; `idempotency.honoured` follows the server's answers. Against
 * a scripted server and against the emulator (keys honoured, and ignored).
 */
import { APIConnectionError, type APIError, Idempotency, ServiceClient } from "../../client";
import { setFaults, startEmulator, type RunningEmulator } from "../helpers/emulator";
import { busy, fakeId, json, reset, type Step, wireSubscription } from "../helpers/scripted-server";
import { scriptedClients } from "../helpers/scripted-client";

const API_KEY = "sk_test_idempotency_0123456789";
const ED_ID = fakeId("ed_", 1);
const newSub = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED_ID] };

/** A 201 that echoes the request's Idempotency-Key (a server that honours keys). */
const echoed: Step = (req, res) =>
  json(201, wireSubscription("http://svc", 1), { "idempotency-key": String(req.headers["idempotency-key"]) })(
    req,
    res,
    res.socket!,
  );
const plain = json(201, wireSubscription("http://svc", 1));

describe("Idempotency", () => {
  it.each([
    [false, undefined, false],
    [true, undefined, true],
    ["auto", undefined, true],
    [false, "caller-key", true],
  ] as const)("setting %s with key %s: a create carries a key: %s", (setting, explicit, keyed) => {
    const key = new Idempotency(setting).keyFor(explicit);
    expect(key !== undefined).toBe(keyed);
    if (explicit !== undefined) expect(key).toBe(explicit);
  });

  it("gives every create a new key", () => {
    const i = new Idempotency(true);
    expect(i.keyFor()).not.toBe(i.keyFor());
  });

  it.each([
    [true, [], true],
    [false, [], true],
    ["auto", [], false],
    ["auto", [["k", "k", 429]], true],
    [
      "auto",
      [
        ["k", "k", 201],
        ["k", undefined, 201],
      ],
      false,
    ],
    ["auto", [["k", undefined, 503]], false],
  ] as const)("setting %s after answers %j: may resend: %s", (setting, answers, expected) => {
    const i = new Idempotency(setting);
    for (const [sent, echoed, status] of answers) i.observe(sent, echoed, status);
    expect(i.mayResend()).toBe(expected);
  });

  it("honoured: unknown, then what the latest keyed answer showed", () => {
    const i = new Idempotency("auto");
    expect(i.honoured).toBeUndefined();
    i.observe("k", undefined, 500);
    expect(i.honoured).toBeUndefined();
    i.observe("k", "k", 201);
    expect(i.honoured).toBe(true);
    i.observe("k2", undefined, 201);
    expect(i.honoured).toBe(false);
  });

  it.each([
    ["k", 201, "true", true],
    ["k", 201, "TRUE", true],
    ["k", 201, "false", false],
    ["k", 201, undefined, false],
    [undefined, 201, "true", false],
    ["k", 409, "true", false],
  ] as const)(
    "echo %s, status %s, Idempotent-Replayed %s: wasReplayed %s",
    (echo, status, header, replayed) => {
      const i = new Idempotency("auto");
      i.observe("k", echo, status, header);
      expect(i.wasReplayed("k")).toBe(replayed);
      expect(i.wasReplayed("other")).toBe(false);
    },
  );
});

describe('idempotencyKeys: "auto" against a scripted server', () => {
  const scripted = scriptedClients(API_KEY, { idempotencyKeys: "auto" });
  const setup = scripted.start;
  afterEach(() => scripted.close());

  test("before any answer, a reset create is not retried (the server may ignore keys)", async () => {
    const { server, client } = await setup([reset, echoed]);
    expect(client.idempotency.honoured).toBeUndefined();
    const err = await client.eventSubscriptions.create(newSub).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].headers["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("once a key was echoed, a reset create is retried with the same key", async () => {
    const { server, client } = await setup([echoed, reset, echoed]);
    await client.eventSubscriptions.create(newSub);
    expect(client.idempotency.honoured).toBe(true);
    await client.eventSubscriptions.create(newSub);
    const keys = server.requests.map((r) => r.headers["idempotency-key"]);
    expect(keys).toHaveLength(3);
    expect(keys[2]).toBe(keys[1]);
    expect(keys[1]).not.toBe(keys[0]);
  });

  test("a 2xx without the echo means keys are ignored: no retry after a reset", async () => {
    const { server, client } = await setup([plain, reset, plain]);
    await client.eventSubscriptions.create(newSub);
    expect(client.idempotency.honoured).toBe(false);
    await expect(client.eventSubscriptions.create(newSub)).rejects.toBeInstanceOf(APIConnectionError);
    expect(server.requests).toHaveLength(2);
  });

  test("the latest answer wins", async () => {
    const { client } = await setup([plain, echoed]);
    await client.eventSubscriptions.create(newSub);
    expect(client.idempotency.honoured).toBe(false);
    await client.eventSubscriptions.create(newSub);
    expect(client.idempotency.honoured).toBe(true);
  });

  test("maybeApplied: set when any attempt's answer was lost, even if the last one was refused", async () => {
    const lostFirst = await setup([reset, busy], { idempotencyKeys: true, maxRetries: 2 });
    const e1 = (await lostFirst.client.eventSubscriptions
      .create(newSub)
      .catch((e: unknown) => e)) as APIError;
    expect([e1.status, e1.attempts, e1.maybeApplied]).toEqual([503, 3, true]);
    await scripted.close();
    const refusedOnly = await setup([busy], { idempotencyKeys: true, maxRetries: 2 });
    const e2 = (await refusedOnly.client.eventSubscriptions
      .create(newSub)
      .catch((e: unknown) => e)) as APIError;
    expect([e2.status, e2.attempts, e2.maybeApplied]).toEqual([503, 3, false]);
  });

  test("idempotencyKeys: true still retries at once (it trusts the server)", async () => {
    const { server, client } = await setup([reset, plain], { idempotencyKeys: true });
    await client.eventSubscriptions.create(newSub);
    expect(server.requests).toHaveLength(2);
  });
});

describe('idempotencyKeys: "auto" against the emulator', () => {
  let em: RunningEmulator;
  let client: ServiceClient;
  let destination: string;
  beforeAll(async () => {
    em = await startEmulator();
    client = new ServiceClient({ apiKey: em.apiKeys[0], baseUrl: em.url, idempotencyKeys: "auto" });
    destination = (
      await client.eventDestinations.create({
        target: { kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/r" } }, streamArn: "arn:s" } },
      })
    ).id;
  });
  afterAll(async () => {
    await client.close();
    await em.close();
  });
  afterEach(async () => {
    await setFaults(em.url, em.adminKey, {});
    em.app.emulator.idempotencyKeys = true;
  });
  const subs = () => em.store.snapshot().event_subscriptions.length;

  test("keys honoured: creates through reset-after faults make exactly one resource each", async () => {
    expect(client.idempotency.honoured).toBe(true);
    const before = subs();
    await setFaults(em.url, em.adminKey, { resetAfter: 0.5, seed: 3 });
    for (let i = 0; i < 10; i++) {
      await client.eventSubscriptions.create({
        ...newSub,
        destinationIds: [destination],
        description: `a${i}`,
      });
    }
    await setFaults(em.url, em.adminKey, {});
    expect(subs()).toBe(before + 10);
    const replays = em.store.requests().filter((r) => r.idempotent_replay);
    expect(replays.length).toBeGreaterThan(0);
  });

  test("a create sent again with its key is known as replayed; the first send is not", async () => {
    const key = `replay-${Date.now()}`;
    const input = { ...newSub, destinationIds: [destination], description: "replayed" };
    const first = await client.eventSubscriptions.create(input, { idempotencyKey: key });
    expect(client.idempotency.wasReplayed(key)).toBe(false);
    const again = await client.eventSubscriptions.create(input, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(client.idempotency.wasReplayed(key)).toBe(true);
  });

  test("keys ignored: the client learns it and stops retrying creates after resets", async () => {
    em.app.emulator.idempotencyKeys = false;
    await client.eventSubscriptions.create({
      ...newSub,
      destinationIds: [destination],
      description: "learn",
    });
    expect(client.idempotency.honoured).toBe(false);
    const before = subs();
    await setFaults(em.url, em.adminKey, { resetAfter: 1 });
    const err = await client.eventSubscriptions
      .create({ ...newSub, destinationIds: [destination], description: "once" })
      .catch((e: unknown) => e);
    await setFaults(em.url, em.adminKey, {});
    expect(err).toBeInstanceOf(APIConnectionError);
    expect(subs()).toBe(before + 1); // created once, not retried into a duplicate
  });
});

test("Idempotency's edges: no keys by default; only a 2xx (200 to 299) without the echo says keys are ignored, and only a 2xx is a replay", () => {
  expect(new Idempotency().keyFor()).toBeUndefined();
  expect(new Idempotency().mayResend()).toBe(true);
  const seen = new Idempotency("auto");
  for (const status of [199, 300, 409, 503]) seen.observe("k", undefined, status);
  expect(seen.honoured).toBeUndefined();
  seen.observe("k", undefined, 200);
  expect(seen.honoured).toBe(false);
  seen.observe("k", "k", 409);
  expect(seen.honoured).toBe(true);
  seen.observe("k", undefined, 299);
  expect(seen.honoured).toBe(false);

  const replays = new Idempotency("auto");
  for (const [key, status] of [
    ["a", 199],
    ["b", 300],
    ["c", 409],
    ["d", 200],
    ["e", 299],
  ] as const)
    replays.observe(key, key, status, " True ");
  expect(["a", "b", "c", "d", "e"].filter((k) => replays.wasReplayed(k))).toEqual(["d", "e"]);
});
