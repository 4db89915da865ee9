/**
 * Requests in flight at the same time against one emulator: each pairing ends in a consistent store.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { apiRequest, startEmulator, type RawResponse } from "../helpers/emulator";
import { destinationBody, expectError, subscriptionBody } from "../helpers/emulator-fixtures";

/** Which request a hook is looking at: method and path prefix. */
interface RequestMatch {
  method: string;
  pathPrefix: string;
}

const matches = (req: FastifyRequest, m: RequestMatch) =>
  req.method === m.method && req.url.startsWith(m.pathPrefix);

/**
 * Makes two requests in flight at the same time run their handlers in a chosen order. Once
 * armed, the `first` request waits (after authentication and body parsing, before its handler)
 * until the `second` has arrived too, and the `second` waits there until the `first` has been
 * answered, i.e. its store transaction has committed. Both are on the server at once, so this
 * is a real race whose winner the test picks, not two requests sent one after the other.
 */
class Sequencer {
  #armed: { first: RequestMatch; second: RequestMatch } | null = null;
  #secondArrived = deferred();
  #firstAnswered = deferred();

  /** Registers the hooks; pass as the emulator's `onApp`. */
  readonly onApp = (app: FastifyInstance): void => {
    app.addHook("preHandler", async (req) => {
      const armed = this.#armed;
      if (armed === null) return;
      if (matches(req, armed.first)) await this.#secondArrived.promise;
      else if (matches(req, armed.second)) {
        this.#secondArrived.resolve();
        await this.#firstAnswered.promise;
      }
    });
    app.addHook("onResponse", async (req) => {
      if (this.#armed !== null && matches(req, this.#armed.first)) this.#firstAnswered.resolve();
    });
  };

  /** Orders the next `first` / `second` pair (one pair at a time). */
  arm(first: RequestMatch, second: RequestMatch): void {
    this.#armed = { first, second };
    this.#secondArrived = deferred();
    this.#firstAnswered = deferred();
  }

  /** Lets every request through again. */
  disarm(): void {
    this.#armed = null;
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const CREATE: RequestMatch = { method: "POST", pathPrefix: "/event_subscriptions" };
const DELETE: RequestMatch = { method: "DELETE", pathPrefix: "/event_destinations/" };

describe("a create naming a destination and that destination's delete, in flight at the same time", () => {
  const seq = new Sequencer();
  let em: Awaited<ReturnType<typeof startEmulator>>;
  const call = (m: string, p: string, b?: unknown) => apiRequest(em.url, "k-race", m, p, b);

  beforeAll(async () => {
    em = await startEmulator({
      apiKeys: ["k-race"],
      data: path.join(tmpdir(), `race-${process.pid}-${Date.now()}.db`),
      onApp: seq.onApp,
    });
  });
  afterAll(async () => {
    await em.close();
    for (const ext of ["", "-wal", "-shm"]) rmSync(em.store.path + ext, { force: true });
  });
  afterEach(() => seq.disarm());

  /** Sends both at once with the handlers in the given order; returns both answers. */
  async function race(
    destinationId: string,
    first: RequestMatch,
  ): Promise<{ created: RawResponse; deleted: RawResponse }> {
    seq.arm(first, first === CREATE ? DELETE : CREATE);
    const [created, deleted] = await Promise.all([
      call("POST", "/event_subscriptions", subscriptionBody([destinationId])),
      call("DELETE", `/event_destinations/${destinationId}`),
    ]);
    seq.disarm();
    return { created, deleted };
  }

  /** Every link of every subscription names a destination that exists. */
  function expectNoDanglingLink(): void {
    const snap = em.store.snapshot();
    const destIds = new Set(snap.event_destinations.map((d) => (d as { id: string }).id));
    for (const link of snap.subscription_destinations as { destination_id: string }[]) {
      expect(destIds.has(link.destination_id)).toBe(true);
    }
  }

  it("the create first: 201, the delete then refused with 409 and the destination kept", async () => {
    for (let round = 0; round < 3; round++) {
      const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
      const { created, deleted } = await race(d, CREATE);
      expect(created.status).toBe(201);
      expect(created.json().destinations.map((x: { id: string }) => x.id)).toEqual([d]);
      expectError(deleted, 409, 409);
      expect((await call("GET", `/event_destinations/${d}`)).status).toBe(200);
      expect((await call("GET", `/event_subscriptions/${created.json().id}`)).status).toBe(200);
    }
    expectNoDanglingLink();
  });

  it("the delete first: 204, the create then refused with 400 (223) and nothing created", async () => {
    const before = (await call("GET", "/event_subscriptions")).json().event_subscriptions.length;
    for (let round = 0; round < 3; round++) {
      const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
      const { created, deleted } = await race(d, DELETE);
      expect(deleted.status).toBe(204);
      expectError(created, 400, 223);
      expect((await call("GET", `/event_destinations/${d}`)).status).toBe(404);
    }
    expect((await call("GET", "/event_subscriptions")).json().event_subscriptions).toHaveLength(before);
    expectNoDanglingLink();
  });
});

describe("requests in flight at the same time", () => {
  it("40 creates sent at once: 40 distinct subscriptions, all listed", async () => {
    const em = await startEmulator({ apiKeys: ["k-many"] });
    try {
      const call = (m: string, p: string, b?: unknown) => apiRequest(em.url, "k-many", m, p, b);
      const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          call("POST", "/event_subscriptions", subscriptionBody([d], { description: `c${i}` })),
        ),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
      const ids = new Set(results.map((r) => r.json().id));
      expect(ids.size).toBe(40);
      const list = (await call("GET", "/event_subscriptions")).json().event_subscriptions;
      expect(new Set(list.map((s: { id: string }) => s.id))).toEqual(ids);
    } finally {
      await em.close();
    }
  });
});
