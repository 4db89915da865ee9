/**
 * The generators of the hostile-input properties (test/reliability/fuzz-*.test.ts): junk values,
 * keys that reach the prototype, huge and Unicode strings, wrong IDs, and mutations of a valid
 * body ({@link mutate}). Pure: no emulator, no I/O.
 */
import fc from "fast-check";

/** How many cases (`RELIABILITY_LONG=1`: ten times as many) and which seed (`FUZZ_SEED`). */
export const LONG = process.env.RELIABILITY_LONG === "1";
export const SCALE = LONG ? 10 : 1;
export const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Jest timeout of each property (the long variant runs ten times as many cases). */
export const TEST_TIMEOUT_MS = LONG ? 900_000 : 60_000;
export const runs = (n: number) => ({ numRuns: n * SCALE, ...(SEED === undefined ? {} : { seed: SEED }) });

export const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "__defineGetter__",
  "isPrototypeOf",
];

/** Sets an own, enumerable property even for `__proto__`, so that JSON.stringify writes it. */
export function define(o: object, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

export const keyArb = fc.oneof(
  fc.constantFrom(...PROTO_KEYS),
  fc.constantFrom(
    "",
    " ",
    "id",
    "ID",
    "sources",
    "destination_ids",
    "destinationIds",
    "target",
    "metadata",
    "description",
    "format",
    "urls",
    "type",
    "kinesis",
    "datadog",
    "auth",
    "role",
    "creds",
    "hostnames",
    "status503",
    "seed",
    "a.b",
    "sources[0]",
    "x\u0000y",
    "é",
    "🙂",
  ),
  fc.string({ maxLength: 12 }),
);

export const hugeString = fc.oneof(
  fc.constantFrom(255, 256, 4096, 4097, 20_000).map((n) => "x".repeat(n)),
  fc.constantFrom(2048, 2049).map((n) => "é".repeat(n)),
  fc.constantFrom(1365, 1366).map((n) => "€".repeat(n)),
  fc.constantFrom(1024, 1025, 4097).map((n) => "🙂".repeat(n)),
);

export const unicodeString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("\ud800", "a\udfff", "\u0000", "\u202e", "\ufeff", "e\u0301", "🙂", "\uffff", "\u2028"),
);

/**
 * IDs with a kind's prefix that the emulator holds nowhere: of the right length but unknown, and
 * far over any limit (up to a request line over 16 KiB). Path segments and query values both
 * draw them.
 */
export const WRONG_IDS = [
  "ed_" + "0".repeat(27),
  "esb_" + "z".repeat(27),
  "abrp_" + "0".repeat(26) + "1",
  "esb_" + "a".repeat(2100),
  "esb_" + "a".repeat(5000),
  "esb_" + "a".repeat(20_000),
];

export const idLike = fc.constantFrom(
  "$D1",
  "$D2",
  "$S1",
  "$R1",
  "$DB",
  "$SB",
  "ed_",
  "esb_",
  "abrp_",
  "ed_" + "0".repeat(26) + "1",
  "esb_" + "Z".repeat(27),
  "ed_" + "a".repeat(3000),
  "ip_policy_created.v0",
  "no_such.v0",
  "json",
  "https://a.example.com/x",
  "http://",
  "ftp://x.example/",
  "PENDING",
  "BANNED",
);

export const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1.5, 1e308, 2 ** 53 + 1, 101, 0.5),
  fc.string({ maxLength: 10 }),
  unicodeString,
  hugeString,
  idLike,
);

export function nest(depth: number, leaf: unknown, asObject: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asObject ? { a: v } : [v];
  return v;
}

export const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: scalar },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.array(fc.tuple(keyArb, scalar), { maxLength: 4 }).map((entries) => {
      const o = {};
      for (const [k, v] of entries) define(o, k, v);
      return o;
    }),
  },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 12 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 20, max: 3000 }), scalar, fc.boolean())
      .map(([d, l, o]) => nest(d, l, o)),
  },
);

export interface Mutation {
  at: number;
  op: number;
  key: string;
  value: unknown;
}

export const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.nat({ max: 9 }),
  key: keyArb,
  value: junk,
});

export type Json = Record<string, unknown>;
export interface Slot {
  parent: Json | unknown[] | undefined;
  key: string | number;
  value: unknown;
}

/** Every value in the tree down to depth 8 with where it sits (the root has no parent). */
export function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: undefined, key: "", value: root }];
  const walk = (v: unknown, depth: number) => {
    if (depth >= 8) return;
    if (Array.isArray(v)) {
      v.forEach((x, i) => {
        out.push({ parent: v, key: i, value: x });
        walk(x, depth + 1);
      });
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        out.push({ parent: v as Json, key: k, value: x });
        walk(x, depth + 1);
      }
    }
  };
  walk(root, 0);
  return out;
}

/** A deep copy of arrays and plain objects (own enumerable keys, `__proto__` included). */
export function clone(v: unknown, depth = 0): unknown {
  if (depth > 10) return v; // below what mutations reach (see slots): shared, never changed
  if (Array.isArray(v)) return v.map((x) => clone(x, depth + 1));
  if (v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const o = {};
    for (const k of Object.keys(v)) define(o, k, clone((v as Json)[k], depth + 1));
    return o;
  }
  return v;
}

/** Applies the mutations to a copy of `valid`; returns the new root (generated values are not changed). */
export function mutate(valid: unknown, mutations: Mutation[]): unknown {
  let root: unknown = clone(valid);
  for (const generated of mutations) {
    const m = { ...generated, value: clone(generated.value) };
    const all = slots(root);
    const s = all[m.at % all.length];
    const set = (v: unknown) => {
      if (s.parent === undefined) root = v;
      else if (Array.isArray(s.parent)) s.parent[s.key as number] = v;
      else define(s.parent, s.key as string, v);
    };
    const isObj = s.value !== null && typeof s.value === "object" && !Array.isArray(s.value);
    switch (m.op) {
      case 0:
        set(m.value);
        break;
      case 1: // missing field / item
        if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
        else if (s.parent) delete s.parent[s.key as string];
        break;
      case 2: // extra field
        if (isObj) define(s.value as object, m.key, m.value);
        else if (Array.isArray(s.value)) s.value.push(m.value);
        else set(m.value);
        break;
      case 3:
        set(s.value === undefined ? m.value : JSON.stringify(s.value));
        break;
      case 4:
        set([s.value]);
        break;
      case 5:
        set(null);
        break;
      case 6: // repeat: long lists, long strings
        if (Array.isArray(s.value))
          set(Array.from({ length: 11 + (m.at % 20) }, () => (s.value as unknown[])[0]));
        else if (typeof s.value === "string")
          set(
            s.value.repeat(Math.min(1 + (m.at % 5000), Math.floor(1_200_000 / Math.max(1, s.value.length)))),
          );
        else set(m.value);
        break;
      case 7: // type flips
        if (typeof s.value === "string") set(Number(s.value) || s.value.length);
        else if (Array.isArray(s.value)) set({ ...s.value });
        else if (isObj) set(Object.values(s.value as object));
        else set(String(s.value));
        break;
      case 8: // a prototype-pollution key holding an object
        if (isObj)
          define(s.value as object, PROTO_KEYS[m.at % PROTO_KEYS.length], { polluted: true, toString: 1 });
        else set(m.value);
        break;
      default:
        set(undefined);
    }
  }
  return root;
}
