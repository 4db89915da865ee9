/**
 * Recovery adoption (`SERVICE_ADOPT_SINCE`): `createOnce` with `adoptSince` against an in-memory
 * list, and the setting's parsing. The whole recovery through the engine runs in
 * test/reliability/fast-mode.test.ts.
 */
import {
  CLOCK_SKEW_MS,
  ClaimRegistry,
  createOnce,
  type CreateOnceSpec,
} from "../../../provider/impl/ambiguous";
import { ADOPT_SINCE_ENV, adoptSince } from "../../../provider/impl/runtime";

type R = { id: string; createdAt: string; v: string };
const SINCE = Date.parse("2026-11-21T10:00:00Z");
const at = (offsetMs: number) => new Date(SINCE + offsetMs).toISOString();

/** A service holding `stored` (newest first) that counts listings and creates. */
function service(stored: R[]) {
  let next = 100;
  const calls = { listings: 0, creates: [] as string[] };
  const spec = (
    v: string,
    registry: ClaimRegistry,
    extra: Partial<CreateOnceSpec<R>> = {},
  ): CreateOnceSpec<R> => ({
    what: "thing",
    create: async () => {
      const made = { id: `thing_${next++}`, createdAt: at(60_000), v };
      calls.creates.push(made.id);
      stored.unshift(made);
      return made;
    },
    list: async function* () {
      calls.listings++;
      for (const r of [...stored]) yield r;
    },
    matches: (live) => live.v === v,
    keysHonoured: () => true,
    registry,
    adoptSince: SINCE,
    ...extra,
  });
  return { calls, spec };
}

describe("createOnce with adoptSince (recovery adoption)", () => {
  it("adopts unclaimed exact matches made since the time less the skew margin, listing once; creates the rest", async () => {
    const stored: R[] = [
      { id: "thing_5", createdAt: at(20_000), v: "b" },
      { id: "thing_4", createdAt: at(10_000), v: "a" },
      { id: "thing_3", createdAt: at(5_000), v: "a" }, // held by another resource of the deployment
      { id: "thing_2", createdAt: at(-CLOCK_SKEW_MS + 1_000), v: "a" }, // within the margin
      { id: "thing_1", createdAt: at(-CLOCK_SKEW_MS - 1_000), v: "a" }, // before it: never adopted
    ];
    const { calls, spec } = service(stored);
    const registry = new ClaimRegistry();
    registry.claim("thing_3");
    const results = await Promise.all(["a", "a", "a", "b", "c"].map((v) => createOnce(spec(v, registry))));
    expect(results.map((r) => r.id)).toEqual(["thing_4", "thing_2", "thing_100", "thing_5", "thing_101"]);
    expect(calls.listings).toBe(1);
    expect(calls.creates).toEqual(["thing_100", "thing_101"]);
    for (const r of results) expect(registry.isClaimed(r.id)).toBe(true);
  });

  it("returns what afterRecoveryAdoption makes of an adopted resource, and never calls it for a created one", async () => {
    const { spec } = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const registry = new ClaimRegistry();
    const seen: string[] = [];
    const after = async (r: R) => {
      seen.push(r.id);
      return { ...r, v: "patched" };
    };
    expect(await createOnce(spec("a", registry, { afterRecoveryAdoption: after }))).toEqual({
      id: "thing_1",
      createdAt: at(0),
      v: "patched",
    });
    expect((await createOnce(spec("a", registry, { afterRecoveryAdoption: after }))).id).toBe("thing_100");
    expect(seen).toEqual(["thing_1"]);
  });

  it("without adoptSince, a create never lists and never adopts", async () => {
    const { calls, spec } = service([{ id: "thing_1", createdAt: at(0), v: "a" }]);
    const made = await createOnce(spec("a", new ClaimRegistry(), { adoptSince: undefined }));
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
      adoptSince: SINCE,
    };
    await expect(createOnce(failing)).rejects.toThrow(
      /SERVICE_ADOPT_SINCE is set.*failed 3 times.*nothing was created/,
    );
    expect({ listings, creates }).toEqual({ listings: 3, creates: 0 });
    await expect(createOnce(failing)).rejects.toThrow(/failed 3 times/);
    expect(listings).toBe(6);
  });
});

describe(`adoptSince() (${ADOPT_SINCE_ENV})`, () => {
  const saved = process.env[ADOPT_SINCE_ENV];
  afterEach(() => {
    if (saved === undefined) delete process.env[ADOPT_SINCE_ENV];
    else process.env[ADOPT_SINCE_ENV] = saved;
  });

  it("is undefined when unset or empty, and milliseconds for an RFC 3339 time", () => {
    delete process.env[ADOPT_SINCE_ENV];
    expect(adoptSince()).toBeUndefined();
    process.env[ADOPT_SINCE_ENV] = "";
    expect(adoptSince()).toBeUndefined();
    process.env[ADOPT_SINCE_ENV] = "2026-11-21T10:00:00Z";
    expect(adoptSince()).toBe(SINCE);
    process.env[ADOPT_SINCE_ENV] = "2026-11-21T11:00:00.500+01:00";
    expect(adoptSince()).toBe(SINCE + 500);
  });

  it.each(["yesterday", "2026-11-21", "2026-11-21T10:00:00", "1732183200"])(
    "refuses %j with an error naming the variable",
    (value) => {
      process.env[ADOPT_SINCE_ENV] = value;
      expect(() => adoptSince()).toThrow(/SERVICE_ADOPT_SINCE must be an RFC 3339 date and time with a zone/);
    },
  );

  it("refuses a time in the future", () => {
    process.env[ADOPT_SINCE_ENV] = new Date(Date.now() + 3_600_000).toISOString();
    expect(() => adoptSince()).toThrow(/SERVICE_ADOPT_SINCE is in the future/);
  });
});
