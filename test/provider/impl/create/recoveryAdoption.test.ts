/**
 * Recovery adoption (`SERVICE_ADOPT_FROM`): `createOnce` with `recoveryAdoption` as its `recover` step against an in-memory
 * list, and the reading of the file. The whole recovery through the engine runs in
 * test/reliability/fast-mode.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ClaimRegistry, createOnce, type CreateOnceSpec } from "../../../../provider/impl/create/createOnce";
import { recoveryAdoption, type AdoptionCandidates } from "../../../../provider/impl/create/recoveryAdoption";
import { ADOPT_FROM_ENV, adoptionCandidates } from "../../../../provider/impl/runtime";

type R = { id: string; createdAt: string; v: string };
const SINCE = Date.parse("2026-11-21T10:00:00Z");
const at = (offsetMs: number) => new Date(SINCE + offsetMs).toISOString();

/** A service holding `stored` (newest first) that counts listings and creates. */
function service(stored: R[]) {
  let next = 100;
  const calls = { listings: 0, itemsListed: 0, creates: [] as string[] };
  const list = async function* (): AsyncIterable<R> {
    calls.listings++;
    for (const r of [...stored]) {
      calls.itemsListed++;
      yield r;
    }
  };
  const spec = (
    v: string,
    registry: ClaimRegistry,
    from: AdoptionCandidates | undefined,
    after?: (adopted: R) => Promise<R>,
  ): CreateOnceSpec<R> => ({
    what: "thing",
    create: async () => {
      const made = { id: `thing_${next++}`, createdAt: at(60_000), v };
      calls.creates.push(made.id);
      stored.unshift(made);
      return made;
    },
    list,
    matches: (live) => live.v === v,
    keysHonoured: () => true,
    registry,
    ...(from && {
      recover: recoveryAdoption<R>({
        what: "thing",
        from,
        list,
        matches: (live) => live.v === v,
        ...(after && { afterRecoveryAdoption: after }),
      }),
    }),
  });
  return { calls, spec };
}

describe("createOnce with recoveryAdoption as its recover step", () => {
  it("adopts only listed, unclaimed exact matches, listing once back to the oldest listed; creates the rest", async () => {
    const stored: R[] = [
      { id: "thing_6", createdAt: at(30_000), v: "a" }, // not listed (the stack holds it): never adopted
      { id: "thing_5", createdAt: at(20_000), v: "b" },
      { id: "thing_4", createdAt: at(10_000), v: "a" },
      { id: "thing_3", createdAt: at(5_000), v: "a" }, // listed, but held by another resource of the deployment
      { id: "thing_2", createdAt: at(0), v: "a" },
      { id: "thing_1", createdAt: at(-60_000), v: "a" }, // older than every listed one: not even read
    ];
    const { calls, spec } = service(stored);
    const from = { ids: new Set(["thing_5", "thing_4", "thing_3", "thing_2"]), oldestMs: SINCE };
    const registry = new ClaimRegistry();
    registry.claim("thing_3");
    const results = await Promise.all(
      ["a", "a", "a", "b", "c"].map((v) => createOnce(spec(v, registry, from))),
    );
    expect(results.map((r) => r.id)).toEqual(["thing_4", "thing_2", "thing_100", "thing_5", "thing_101"]);
    expect(calls.listings).toBe(1);
    expect(calls.itemsListed).toBe(6); // thing_6 … thing_1, where the listing stops
    expect(calls.creates).toEqual(["thing_100", "thing_101"]);
    for (const r of results) expect(registry.isClaimed(r.id)).toBe(true);
  });

  it("returns what afterRecoveryAdoption makes of an adopted resource, and never calls it for a created one", async () => {
    const { spec } = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const from = { ids: new Set(["thing_1"]), oldestMs: SINCE };
    const registry = new ClaimRegistry();
    const seen: string[] = [];
    const after = async (r: R) => {
      seen.push(r.id);
      return { ...r, v: "patched" };
    };
    expect(await createOnce(spec("a", registry, from, after))).toEqual({
      id: "thing_1",
      createdAt: at(0),
      v: "patched",
    });
    expect((await createOnce(spec("a", registry, from, after))).id).toBe("thing_100");
    expect(seen).toEqual(["thing_1"]);
  });

  it("gives the claim back when afterRecoveryAdoption fails, so the next create (or up) takes the resource", async () => {
    const { calls, spec } = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const from = { ids: new Set(["thing_1"]), oldestMs: SINCE };
    const registry = new ClaimRegistry();
    const failing = async (): Promise<R> => {
      throw new Error("PATCH /things/thing_1: 503 Service Unavailable");
    };
    await expect(createOnce(spec("a", registry, from, failing))).rejects.toThrow(
      /thing_1 was adopted .* writing the program's values to it failed \(PATCH \/things\/thing_1: 503 .*running pulumi up again with the same SERVICE_ADOPT_FROM takes it/,
    );
    expect(registry.isClaimed("thing_1")).toBe(false);
    expect((await createOnce(spec("a", registry, from))).id).toBe("thing_1");
    expect(calls.creates).toEqual([]);
  });

  it("without a recover step, a create never lists and never adopts", async () => {
    const { calls, spec } = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const made = await createOnce(spec("a", new ClaimRegistry(), undefined));
    expect(made.id).toBe("thing_100");
    expect(calls.listings).toBe(0);
  });

  it("a listing that keeps failing fails the create without sending it, and the next create lists again", async () => {
    const registry = new ClaimRegistry();
    let listings = 0;
    let creates = 0;
    const failing: CreateOnceSpec<R> = {
      what: "thing",
      create: async () => ({ id: `thing_${++creates}`, createdAt: at(0), v: "a" }),
      list: async function* () {
        listings++;
        yield* [] as R[];
        throw new Error("connection refused");
      },
      matches: () => true,
      keysHonoured: () => true,
      registry,
      recover: recoveryAdoption<R>({
        what: "thing",
        from: { ids: new Set(["thing_9"]), oldestMs: SINCE },
        list: async function* () {
          listings++;
          yield* [] as R[];
          throw new Error("connection refused");
        },
        matches: () => true,
      }),
    };
    await expect(createOnce(failing)).rejects.toThrow(
      /SERVICE_ADOPT_FROM is set.*failed 5 times.*nothing was created/,
    );
    expect({ listings, creates }).toEqual({ listings: 5, creates: 0 });
    await expect(createOnce(failing)).rejects.toThrow(/failed 5 times/);
    expect(listings).toBe(10);
  });
});

describe(`adoptionCandidates() (${ADOPT_FROM_ENV})`, () => {
  const saved = process.env[ADOPT_FROM_ENV];
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "adopt-from-"))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterEach(() => {
    if (saved === undefined) delete process.env[ADOPT_FROM_ENV];
    else process.env[ADOPT_FROM_ENV] = saved;
  });
  const write = (name: string, content: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  };

  it("is undefined when unset or empty; otherwise the IDs of the kind and the oldest creation time", () => {
    delete process.env[ADOPT_FROM_ENV];
    expect(adoptionCandidates("subscription")).toBeUndefined();
    process.env[ADOPT_FROM_ENV] = "";
    expect(adoptionCandidates("subscription")).toBeUndefined();
    process.env[ADOPT_FROM_ENV] = write(
      "found.json",
      JSON.stringify({
        since: at(0),
        resources: [
          { kind: "subscription", id: "esb_2", createdAt: at(5_000), description: "" },
          { kind: "subscription", id: "esb_1", createdAt: at(1_000), description: "" },
        ],
      }),
    );
    expect(adoptionCandidates("subscription")).toEqual({
      ids: new Set(["esb_2", "esb_1"]),
      oldestMs: SINCE + 1_000,
    });
    expect(adoptionCandidates("destination")).toBeUndefined();
  });

  it("reads destinations too, the file named with spaces around it, once per process", () => {
    const file = write(
      "destinations.json",
      JSON.stringify({ resources: [{ kind: "destination", id: "ed_1", createdAt: at(2_000) }] }),
    );
    process.env[ADOPT_FROM_ENV] = `  ${file}\n`;
    expect(adoptionCandidates("destination")).toEqual({ ids: new Set(["ed_1"]), oldestMs: SINCE + 2_000 });
    // Read once: a file written over later is not read again.
    fs.writeFileSync(file, "{");
    expect(adoptionCandidates("destination")).toEqual({ ids: new Set(["ed_1"]), oldestMs: SINCE + 2_000 });
  });

  it.each([
    ["missing.json", undefined, /cannot read the file/],
    ["not-json.json", "{", /cannot read the file/],
    ["no-resources.json", "{}", /not a file written by service-recover --found/],
    [
      "bad-kind.json",
      JSON.stringify({ resources: [{ kind: "report", id: "x", createdAt: at(0) }] }),
      /not a file written/,
    ],
    [
      "one-bad-of-two.json",
      JSON.stringify({
        resources: [
          { kind: "subscription", id: "esb_1", createdAt: at(0) },
          { kind: "report", id: "x", createdAt: at(0) },
        ],
      }),
      /not a file written/,
    ],
    [
      "id-not-text.json",
      JSON.stringify({ resources: [{ kind: "subscription", id: 5, createdAt: at(0) }] }),
      /not a file written/,
    ],
    [
      "bad-time.json",
      JSON.stringify({ resources: [{ kind: "subscription", id: "x", createdAt: "soon" }] }),
      /not a file written/,
    ],
  ])("refuses %s with an error naming the variable and the file", (name, content, message) => {
    const file = content === undefined ? path.join(dir, name) : write(name, content);
    process.env[ADOPT_FROM_ENV] = file;
    expect(() => adoptionCandidates("subscription")).toThrow(message);
    expect(() => adoptionCandidates("subscription")).toThrow(`SERVICE_ADOPT_FROM=${file}`);
  });
});

describe("recoveryAdoption's words and lists, kind by kind", () => {
  it("lists each kind once in a deployment, and warns naming what it adopted and why", async () => {
    const registry = new ClaimRegistry();
    const things = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const others = service([{ id: "other_1", createdAt: at(0), v: "a" }]);
    const warned: string[] = [];
    const recoverOf = (what: string, s: ReturnType<typeof service>, id: string) =>
      recoveryAdoption<R>({
        what,
        from: { ids: new Set([id]), oldestMs: SINCE },
        list: s.spec("a", registry, undefined).list!,
        matches: (live) => live.v === "a",
        warn: async (m) => void warned.push(m),
      });
    expect(await recoverOf("thing", things, "thing_1")(registry)).toMatchObject({ id: "thing_1" });
    expect(await recoverOf("other thing", others, "other_1")(registry)).toMatchObject({ id: "other_1" });
    expect([things.calls.listings, others.calls.listings]).toEqual([1, 1]);
    expect(warned).toEqual([
      `thing: thing_1 has exactly these values, is listed in SERVICE_ADOPT_FROM (made by an interrupted run, held by no ` +
        `resource of the stack) and no other resource of this deployment holds it: adopted it instead of creating one`,
      `other thing: other_1 has exactly these values, is listed in SERVICE_ADOPT_FROM (made by an interrupted run, held by ` +
        `no resource of the stack) and no other resource of this deployment holds it: adopted it instead of creating one`,
    ]);
  });

  it("an adoption whose write fails keeps the write's error as its cause", async () => {
    const { spec } = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const registry = new ClaimRegistry();
    const cause = new Error("PATCH /things/thing_1: 503 Service Unavailable");
    const recover = recoveryAdoption<R>({
      what: "thing",
      from: { ids: new Set(["thing_1"]), oldestMs: SINCE },
      list: spec("a", registry, undefined).list!,
      matches: () => true,
      afterRecoveryAdoption: async () => Promise.reject(cause),
    });
    const error = await recover(registry).catch((e: unknown) => e);
    expect((error as Error).cause).toBe(cause);
  });

  it("refuses a found file whose resources hold a null", () => {
    const saved = process.env[ADOPT_FROM_ENV];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "adopt-null-"));
    try {
      const file = path.join(dir, "found.json");
      fs.writeFileSync(file, JSON.stringify({ resources: [null] }));
      process.env[ADOPT_FROM_ENV] = file;
      expect(() => adoptionCandidates("subscription")).toThrow(
        `${ADOPT_FROM_ENV}=${file}: not a file written by service-recover --found (it needs "resources": [{ "kind", "id", "createdAt" }, …])`,
      );
    } finally {
      if (saved === undefined) delete process.env[ADOPT_FROM_ENV];
      else process.env[ADOPT_FROM_ENV] = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
