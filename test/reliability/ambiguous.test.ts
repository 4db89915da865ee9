/**
 * Ambiguous creates. A `POST` whose connection dies after the server stored the
 * resource (the emulator's `reset-after` fault: the handler runs and commits, then the socket is
 * destroyed without a response) must leave neither an orphan nor a duplicate.
 *
 * The provider's own `create` (provider/impl, in this process, with the client the provider
 * builds) runs against the in-process emulator:
 *
 * - **idempotent path**: the emulator honours `Idempotency-Key`; the client, having seen the key
 *   echoed, retries the reset POST with the same key and gets the first response again;
 * - **reconcile path**: the emulator ignores the key (`idempotencyKeys: false`, a server without the
 *   feature), or the provider has not heard from it yet; the provider lists the resources made
 *   since just before the attempt and adopts the one whose fields equal the request;
 * - a create that really did not happen (`reset` before the handler) is sent once more;
 * - several exact matches fail with an error naming them;
 * - abuse reports (no list) rely on the key alone.
 *
 * Which requests the faults hit is fixed by a seed chosen here, so every path runs every time.
 * `createOnce` itself is also tested against scripted outcomes.
 */
import { APIConnectionError, makeAPIError } from "../../client";
import { drawFault, seededRandom, type FaultConfig, type FaultOutcome } from "../../packages/emulator/faults";
import type { RequestLogEntry } from "../../packages/emulator";
import { apiRequest, setFaults, startEmulator, type RunningEmulator } from "../helpers/emulator";
import * as runtime from "../../provider/impl/runtime";
import * as subscriptions from "../../provider/impl/eventSubscription";
import * as destinations from "../../provider/impl/eventDestination";
import * as reports from "../../provider/impl/abuseReport";
import { createOnce, maybeApplied } from "../../provider/impl/create/createOnce";
import { isLostAnswer } from "../../client/retry";

jest.setTimeout(30_000);

/**
 * A seed under which the first requests draw exactly `outcomes` from `cfg`, so that the faults
 * hit the requests a scenario means.
 */
function seedFor(cfg: FaultConfig, outcomes: FaultOutcome[]): number {
  for (let seed = 1; seed < 10_000_000; seed++) {
    const r = seededRandom(seed);
    if (outcomes.every((o) => drawFault(cfg, r) === o)) return seed;
  }
  throw new Error("no seed");
}

/** Public requests since `seq`, as `METHOD path status [fault] [replay]` lines. */
function lines(requests: RequestLogEntry[]): string[] {
  return requests.map(
    (r) =>
      `${r.method} ${r.path.split("?")[0]} ${r.status}${r.fault ? ` ${r.fault}` : ""}${r.idempotent_replay ? " replay" : ""}`,
  );
}

describe("ambiguous creates through the provider (in process, real emulator)", () => {
  let em: RunningEmulator;
  let destinationId: string;
  let tag = 0;

  /** A fresh provider client (as a new provider process would have), pointed at the emulator. */
  async function freshProvider(): Promise<void> {
    // configure() keeps the client while the settings stay the same: change them once first.
    await runtime.configure({ config: { get: () => undefined } });
    await runtime.configure({
      config: {
        get: (k: string) =>
          k === "service:apiKey" ? em.apiKeys[0] : k === "service:baseUrl" ? em.url : undefined,
      },
    });
  }
  /** Makes the provider's client learn what the server does with keys (one plain create). */
  async function warmUp(): Promise<void> {
    await subscriptions.create(subInputs("warm-up"));
  }
  const subInputs = (description: string): subscriptions.SubscriptionInputs => ({
    sources: [{ type: "ip_policy_created.v0" }, { type: "http_request_complete.v0" }],
    destinationIds: [destinationId],
    description,
    metadata: '{"test":"ambiguous"}',
  });
  const storedSubs = (description: string) =>
    (em.store.snapshot().event_subscriptions as { id: string; description: string }[])
      .filter((s) => s.description === description)
      .map((s) => s.id);
  const lastSeq = () => em.store.requests().at(-1)?.seq ?? 0;

  /**
   * Runs `fn` with faults `{ [kind]: 0.5 }` (or `cfg`) and a seed that makes the first requests
   * draw `pattern` (true: that kind of fault; false: none).
   */
  async function withFaults<T>(
    kind: "resetAfter" | "reset" | FaultConfig,
    pattern: (boolean | FaultOutcome)[],
    fn: () => Promise<T>,
  ): Promise<{ value: T; log: string[] }> {
    const since = lastSeq();
    const cfg: FaultConfig = typeof kind === "string" ? { [kind]: 0.5 } : kind;
    const named: FaultOutcome = kind === "reset" ? "reset" : "reset-after";
    const outcomes = pattern.map((p) => (p === true ? named : p === false ? "none" : p));
    await setFaults(em.url, em.adminKey, { ...cfg, seed: seedFor(cfg, outcomes) });
    try {
      const value = await fn();
      return { value, log: lines(em.store.requests(since)) };
    } finally {
      await setFaults(em.url, em.adminKey, {});
    }
  }

  beforeAll(async () => {
    em = await startEmulator();
    await freshProvider();
    const dest = await destinations.create({
      target: { kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/a" } }, streamArn: "arn:s" } },
    });
    destinationId = dest.id;
  });
  afterAll(async () => {
    await runtime.getClient().close();
    await em.close();
  });
  beforeEach(async () => {
    em.app.emulator.idempotencyKeys = true;
    await freshProvider();
    tag++;
  });

  describe("idempotent path (the server honours Idempotency-Key)", () => {
    it("the reset POST is retried with the same key and answered with the first response", async () => {
      await warmUp();
      expect(runtime.getClient().idempotency.honoured).toBe(true);
      const d = `idempotent-${tag}`;
      const { value, log } = await withFaults("resetAfter", [true, false], () =>
        subscriptions.create(subInputs(d)),
      );
      expect(log).toEqual([
        "POST /event_subscriptions 201 reset-after",
        "POST /event_subscriptions 201 replay",
      ]);
      expect(storedSubs(d)).toEqual([value.id]);
    });

    it("an earlier answer lost, the last attempt refused (503): one more attempt with the key settles it", async () => {
      await warmUp();
      const d = `lost-then-refused-${tag}`;
      const cfg: FaultConfig = { resetAfter: 0.4, status503: 0.4 };
      const { value, log } = await withFaults(cfg, ["reset-after", "503", "503", "503", "503", "none"], () =>
        subscriptions.create(subInputs(d)),
      );
      expect(log).toEqual([
        "POST /event_subscriptions 201 reset-after",
        ...Array(4).fill("POST /event_subscriptions 503 503"),
        "POST /event_subscriptions 201 replay",
      ]);
      expect(storedSubs(d)).toEqual([value.id]);
    });

    it("abuse reports too: one report, however many resets", async () => {
      await warmUp();
      const before = em.store.snapshot().abuse_reports.length;
      const { value, log } = await withFaults("resetAfter", [true, true, false], () =>
        reports.create({ urls: [`https://ambiguous-${tag}.example.org/x`] }),
      );
      expect(log).toEqual([
        "POST /abuse_reports 201 reset-after",
        "POST /abuse_reports 201 reset-after replay",
        "POST /abuse_reports 201 replay",
      ]);
      const stored = em.store.snapshot().abuse_reports as { id: string }[];
      expect(stored).toHaveLength(before + 1);
      expect(stored.map((r) => r.id)).toContain(value.id);
    });
  });

  describe("reconcile path (the server ignores the key, or has not been heard from)", () => {
    /**
     * Creates subscription `d` through one reset before the handler: the provider looks for what
     * the lost create made, finds nothing it may adopt, and sends the create once more.
     */
    async function createThroughResetBeforeHandler(d: string) {
      const { value, log } = await withFaults("reset", [true, false, false], () =>
        subscriptions.create(subInputs(d)),
      );
      expect(log).toEqual([
        "POST /event_subscriptions 0 reset",
        "GET /event_subscriptions 200",
        "POST /event_subscriptions 201",
      ]);
      return value;
    }

    it("a server that ignores keys: the provider finds the subscription the lost POST made and adopts it", async () => {
      em.app.emulator.idempotencyKeys = false;
      await warmUp();
      expect(runtime.getClient().idempotency.honoured).toBe(false);
      const d = `reconcile-${tag}`;
      const { value, log } = await withFaults("resetAfter", [true, false], () =>
        subscriptions.create(subInputs(d)),
      );
      expect(log).toEqual(["POST /event_subscriptions 201 reset-after", "GET /event_subscriptions 200"]);
      expect(storedSubs(d)).toEqual([value.id]);
      expect(value.outs).toMatchObject({ description: d, destinationIds: [destinationId] });
    });

    it.each([
      ["500-after", { status500After: 0.5 }, "500"],
      ["502-after", { status502After: 0.5 }, "502"],
      ["503-after", { status503After: 0.5 }, "503"],
      ["truncate", { truncate: 0.5 }, "201"],
    ] as const)(
      "a server that ignores keys, %s (made, then an error or half an answer): found and adopted",
      async (fault, cfg, status) => {
        em.app.emulator.idempotencyKeys = false;
        await warmUp();
        const d = `${fault}-${tag}`;
        const { value, log } = await withFaults(cfg, [fault, "none"], () =>
          subscriptions.create(subInputs(d)),
        );
        expect(log).toEqual([`POST /event_subscriptions ${status} ${fault}`, "GET /event_subscriptions 200"]);
        expect(storedSubs(d)).toEqual([value.id]);
      },
    );

    it("the first create of a provider process (nothing known yet) reconciles the same way", async () => {
      expect(runtime.getClient().idempotency.honoured).toBeUndefined();
      const d = `first-${tag}`;
      const { value, log } = await withFaults("resetAfter", [true, false], () =>
        subscriptions.create(subInputs(d)),
      );
      expect(log).toEqual(["POST /event_subscriptions 201 reset-after", "GET /event_subscriptions 200"]);
      expect(storedSubs(d)).toEqual([value.id]);
    });

    it("destinations, with a write-only secret (compared as the API returns it, blank)", async () => {
      em.app.emulator.idempotencyKeys = false;
      const inputs: destinations.DestinationInputs = {
        description: `dest-${tag}`,
        target: { datadog: { apiKey: "dd-write-only-secret", ddsite: "datadoghq.eu" } },
      };
      const { value, log } = await withFaults("resetAfter", [true, false], () => destinations.create(inputs));
      expect(log).toEqual(["POST /event_destinations 201 reset-after", "GET /event_destinations 200"]);
      const stored = (em.store.snapshot().event_destinations as { id: string; description: string }[]).filter(
        (x) => x.description === `dest-${tag}`,
      );
      expect(stored.map((x) => x.id)).toEqual([value.id]);
      // The program's secret is kept in the outputs (the API returned it blank).
      expect(value.outs.target).toEqual({
        datadog: { apiKey: "dd-write-only-secret", ddsite: "datadoghq.eu", ddtags: "", service: "" },
      });
    });

    it("a create that did not happen (reset before the handler) is sent once more: one subscription", async () => {
      em.app.emulator.idempotencyKeys = false;
      await warmUp();
      const d = `not-made-${tag}`;
      const value = await createThroughResetBeforeHandler(d);
      expect(storedSubs(d)).toEqual([value.id]);
    });

    it("a twin this provider process made is never adopted: the lost create's own subscription is", async () => {
      em.app.emulator.idempotencyKeys = false;
      await warmUp();
      const d = `twin-made-${tag}`;
      const twin = await subscriptions.create(subInputs(d));
      const { value } = await withFaults("resetAfter", [true, false], () =>
        subscriptions.create(subInputs(d)),
      );
      expect(value.id).not.toBe(twin.id);
      expect(storedSubs(d).sort()).toEqual([twin.id, value.id].sort());
    });

    it("a reset before the handler, with a twin this provider process made: the twin is not adopted, the create is sent again", async () => {
      em.app.emulator.idempotencyKeys = false;
      await warmUp();
      const d = `twin-reset-${tag}`;
      const twin = await subscriptions.create(subInputs(d));
      const value = await createThroughResetBeforeHandler(d);
      expect(value.id).not.toBe(twin.id);
      expect(storedSubs(d).sort()).toEqual([twin.id, value.id].sort());
    });

    it("several subscriptions with exactly these values made elsewhere: an error naming them, no adoption", async () => {
      em.app.emulator.idempotencyKeys = false;
      await warmUp();
      const d = `several-${tag}`;
      // Made by another deployment (not this provider process), through the API.
      const inputs = subInputs(d);
      const elsewhere = await apiRequest(em.url, em.apiKeys[0], "POST", "/event_subscriptions", {
        sources: inputs.sources,
        destination_ids: inputs.destinationIds,
        description: inputs.description,
        metadata: inputs.metadata,
      });
      expect(elsewhere.status).toBe(201);
      const twin = elsewhere.json().id as string;
      const err = await withFaults("resetAfter", [true, false], () =>
        subscriptions.create(subInputs(d)).then(
          () => undefined,
          (e: unknown) => e as Error,
        ),
      );
      const ids = storedSubs(d);
      expect(ids).toHaveLength(2);
      expect(ids).toContain(twin);
      expect(err.value).toBeInstanceOf(Error);
      expect((err.value as Error).message).toMatch(
        /2 event subscriptions made since .* have exactly these values/,
      );
      for (const id of ids) expect((err.value as Error).message).toContain(id);
    });

    it("abuse reports, against a server that ignores keys: a clear error, never a second report", async () => {
      em.app.emulator.idempotencyKeys = false;
      await warmUp();
      const before = em.store.snapshot().abuse_reports.length;
      const { value } = await withFaults("resetAfter", [true, false], () =>
        reports.create({ urls: [`https://no-list-${tag}.example.org/x`] }).catch((e: unknown) => e as Error),
      );
      expect((value as Error).message).toMatch(
        /abuse report: the create failed after reaching the service .* may or may not have been made/,
      );
      expect(em.store.snapshot().abuse_reports).toHaveLength(before + 1);
    });
  });
});

describe("createOnce against scripted outcomes", () => {
  type R = { id: string; createdAt: string; v: string };
  const reset = () =>
    new APIConnectionError("POST /x: connection failed: socket hang up", { request: "POST /x" });
  const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
  const T0 = Date.parse("2026-11-21T10:00:00Z");

  function spec(outcomes: (R | Error)[], live: R[], honoured: boolean | undefined = undefined) {
    const keys: string[] = [];
    return {
      keys,
      spec: {
        what: "thing",
        create: async (key: string) => {
          keys.push(key);
          const o = outcomes.shift()!;
          if (o instanceof Error) throw o;
          return o;
        },
        list: async function* () {
          yield* live;
        },
        matches: (r: R) => r.v === "mine",
        keysHonoured: () => honoured,
        now: () => T0,
      },
    };
  }

  it("ambiguity: resets and timeouts after sending, 500, 502/504 and 503 without Retry-After", () => {
    expect(isLostAnswer(reset())).toBe(true);
    expect(isLostAnswer(new APIConnectionError("x", { request: "x", requestNotSent: true }))).toBe(false);
    const status = (s: number, retryAfter?: string) =>
      makeAPIError({ status: s, method: "POST", path: "/x", bodyText: "", retryAfter });
    expect([500, 502, 504, 503].map((s) => isLostAnswer(status(s)))).toEqual([true, true, true, true]);
    expect([429, 400, 409].map((s) => isLostAnswer(status(s)))).toEqual([false, false, false]);
    expect(isLostAnswer(status(503, "1"))).toBe(false);
    expect(isLostAnswer(new Error("other"))).toBe(false);
  });

  it("two ambiguous attempts and nothing on the service: an error saying nothing was created", async () => {
    const { spec: s, keys } = spec([reset(), reset()], []);
    await expect(createOnce(s)).rejects.toThrow(/the create failed twice .* nothing was created/);
    expect(new Set(keys).size).toBe(1);
  });

  it("a lookup that fails: an error that says to look before running up again", async () => {
    const { spec: s } = spec([reset()], []);
    s.list = async function* () {
      yield* [];
      throw makeAPIError({ status: 503, method: "GET", path: "/x", bodyText: "", retryAfter: "1" });
    };
    await expect(createOnce(s)).rejects.toThrow(
      /may have been made .* looking for it failed .* Before running pulumi up again/,
    );
  });

  it("the lookup stops at resources older than the attempt (minus the clock margin)", async () => {
    const old = { id: "old", createdAt: at(T0 - 31_000), v: "mine" };
    const { spec: s } = spec([reset(), reset()], [{ id: "other", createdAt: at(T0), v: "theirs" }, old]);
    await expect(createOnce(s)).rejects.toThrow(/nothing was created/);
  });

  it("a match within the margin is adopted", async () => {
    const mine = { id: "mine-1", createdAt: at(T0 - 1000), v: "mine" };
    const { spec: s } = spec([reset()], [{ id: "other", createdAt: at(T0), v: "theirs" }, mine]);
    await expect(createOnce(s)).resolves.toBe(mine);
  });

  it("once a create may have been made, a later refusal still leads to the lookup", async () => {
    const limited = makeAPIError({ status: 429, method: "POST", path: "/x", bodyText: "" });
    const mine = { id: "mine-3", createdAt: at(T0), v: "mine" };
    const { spec: s, keys } = spec([reset(), limited], [mine], true);
    await expect(createOnce(s)).resolves.toBe(mine);
    expect(keys).toHaveLength(2);
  });

  it("with keys honoured, one more attempt with the same key settles it", async () => {
    const made = { id: "made", createdAt: at(T0), v: "mine" };
    const { spec: s, keys } = spec([reset(), made], [], true);
    await expect(createOnce(s)).resolves.toBe(made);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it("errors the service answered on the only attempt are thrown as they are", async () => {
    const limited = makeAPIError({ status: 429, method: "POST", path: "/x", bodyText: "" });
    const { spec: s } = spec([limited], []);
    await expect(createOnce(s)).rejects.toBe(limited);
    expect(maybeApplied(limited)).toBe(false);
  });

  it("refusals all along (no answer lost) made nothing: thrown as they are", async () => {
    const limited = makeAPIError({ status: 429, method: "POST", path: "/x", bodyText: "" });
    limited.attempts = 5;
    expect(maybeApplied(limited)).toBe(false);
    const { spec: s } = spec([limited], []);
    await expect(createOnce(s)).rejects.toBe(limited);
  });

  it("a refusal after a lost answer (maybeApplied): looked for, and adopted when found", async () => {
    const limited = makeAPIError({ status: 429, method: "POST", path: "/x", bodyText: "" });
    limited.attempts = 5;
    limited.maybeApplied = true;
    expect(maybeApplied(limited)).toBe(true);
    const mine = { id: "mine-2", createdAt: at(T0), v: "mine" };
    const { spec: s } = spec([limited], [mine]);
    await expect(createOnce(s)).resolves.toBe(mine);
  });
});
