/**
 * Hostile input, property-based (fast-check).
 *
 * Over real HTTP, to an emulator started in-process: mutated valid bodies (wrong types, huge
 * strings, Unicode, nested junk, missing and extra fields, `__proto__` / `constructor` keys), raw
 * bodies, headers (Content-Type, Authorization, Service-Version variants), paths (random segments,
 * encoded characters, wrong prefixes, very long IDs), query strings (`limit`, `before_id` junk)
 * and raw bytes on a socket. For every case:
 *
 * - the answer comes within the per-request timeout (never a hang) and is never a 5xx;
 * - every error has the service's error body (`error_code`, `status_code`, `msg`,
 *   `details.operation_id`, the same ID as the `Operation-Id` header);
 * - a rejected (non-2xx) request leaves the stored data exactly as it was, and the fault
 *   configuration and `Object.prototype` untouched.
 *
 * And the providers' `check` functions: arbitrary and mutated inputs never throw, and every
 * failure names a top-level input property and has a reason that starts with the field path.
 *
 * The short variant always runs; `RELIABILITY_LONG=1` runs ten times as many cases.
 * `FUZZ_SEED=<n>` replays a run (fast-check prints the seed of a failure).
 */
import fc from "fast-check";
import http from "node:http";
import net from "node:net";
import {
  checkAbuseReportInputs,
  checkEventDestinationInputs,
  checkEventSubscriptionInputs,
  type CheckFailure,
} from "../../provider/impl/inputChecks";
import * as clientValidation from "../../client/requestValidation";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { TARGETS } from "../helpers/emulator-fixtures";

const LONG = process.env.RELIABILITY_LONG === "1";
const SCALE = LONG ? 10 : 1;
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const REQUEST_TIMEOUT_MS = 5_000;
/** Jest timeout of each property (the long variant runs ten times as many cases). */
const TEST_TIMEOUT_MS = LONG ? 900_000 : 60_000;
const runs = (n: number) => ({ numRuns: n * SCALE, ...(SEED === undefined ? {} : { seed: SEED }) });

const A = "fuzz-key-account-a";
const B = "fuzz-key-account-b";
const R = "fuzz-key-restricted";
const ADMIN = "fuzz-admin-key";

/** HTTP cases run, per property, and statuses seen: printed at the end. */
const counts: Record<string, number> = {};
const statuses: Record<string, number> = {};

// -----------------------------------------------------------------------------------------------
// The emulator, its seed data and the per-case checks
// -----------------------------------------------------------------------------------------------

let em: RunningEmulator;
let port: number;
/** IDs the generated cases refer to as `$D1`, `$S1`…; replaced when the case is sent. */
const ids: Record<string, string> = {};
let snapshot = "";
const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join();

/** Valid requests of every endpoint that takes a body; the mutations start from these. */
const BODY_ENDPOINTS: { method: string; path: string; body: unknown; admin?: boolean }[] = [
  {
    method: "POST",
    path: "/event_subscriptions",
    body: {
      sources: [{ type: "ip_policy_created.v0" }, { type: "domain_created.v0" }],
      destination_ids: ["$D1"],
      description: "d",
      metadata: "m",
    },
  },
  {
    method: "PATCH",
    path: "/event_subscriptions/$S1",
    body: {
      description: "patched",
      sources: [{ type: "tunnel_credential_deleted.v0" }],
      destination_ids: ["$D1"],
    },
  },
  ...Object.values(TARGETS).map((target) => ({
    method: "POST",
    path: "/event_destinations",
    body: { target, description: "d", metadata: "m", format: "json" },
  })),
  {
    method: "PATCH",
    path: "/event_destinations/$D2",
    body: { target: TARGETS.datadog, description: "patched" },
  },
  { method: "POST", path: "/abuse_reports", body: { urls: ["https://a.example.com/x"], metadata: "m" } },
  {
    method: "POST",
    path: "/_operator/abuse_reports/$R1/review",
    body: { hostnames: [{ hostname: "seed.example.com", status: "BANNED" }] },
    admin: true,
  },
  { method: "PUT", path: "/_operator/faults", body: { status503: 0, latencyMs: 0 }, admin: true },
];

const PATHS = [
  "/event_subscriptions",
  "/event_subscriptions/$S1",
  "/event_subscriptions/$S1/sources/ip_policy_created.v0",
  "/event_destinations",
  "/event_destinations/$D1",
  "/event_destinations/$D2",
  "/abuse_reports",
  "/abuse_reports/$R1",
  "/event_subscriptions/$SB",
  "/event_destinations/$DB",
];

function fill(s: string): string {
  return s.replace(/\$(D1|D2|S1|R1|DB|SB)/g, (_m, k: string) => ids[k]);
}

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request of a case: its method, path, headers and body (sent chunked when `chunked`). */
interface Case {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
  chunked?: boolean;
}

/** Client-side refusals (Node will not send such a header or path): the case is not sent. */
class NotSendable extends Error {}

function send(
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
  chunked = false,
): Promise<Sent> {
  return new Promise<Sent>((resolve, reject) => {
    const h = { ...headers };
    if (body !== undefined && !chunked) h["content-length"] = String(Buffer.byteLength(body));
    let req: http.ClientRequest;
    try {
      req = http.request({ method, host: "127.0.0.1", port, path, headers: h, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      });
    } catch (e) {
      reject(new NotSendable((e as Error).message));
      return;
    }
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms: ${method} ${path.slice(0, 200)}`)),
    );
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * The characters node:http sends in a header value (tab, printable ASCII, Latin-1): others are
 * replaced by one of them, so that a case is not refused by the client. (Control characters and
 * bytes that are not Latin-1 are sent by the raw-socket property.)
 */
function sendable(s: string): string {
  return [...s]
    .map((c) =>
      /^[\t\x20-\x7e\x80-\xff]$/.test(c) ? c : String.fromCharCode(0x80 + (c.codePointAt(0)! % 0x80)),
    )
    .join("");
}

const std = (key = A): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  "service-version": "2",
});

/** Asserts the service's error body; `statusCode` is the HTTP status. */
function expectErrorShape(statusCode: number, operationIdHeader: unknown, text: string, what: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(
      `${what}: ${statusCode} with a body that is not JSON: ${JSON.stringify(text.slice(0, 300))}`,
    );
  }
  const b = body as { error_code?: unknown; status_code?: unknown; msg?: unknown; details?: unknown };
  const ok =
    typeof b === "object" &&
    b !== null &&
    Object.keys(b).sort().join() === "details,error_code,msg,status_code" &&
    typeof b.error_code === "string" &&
    /^ERR_SERVICE_\d{3}$/.test(b.error_code) &&
    b.status_code === statusCode &&
    typeof b.msg === "string" &&
    b.msg.length > 0 &&
    JSON.stringify(b.details) === JSON.stringify({ operation_id: operationIdHeader }) &&
    typeof operationIdHeader === "string" &&
    /^op_[0-9A-Za-z]{27}$/.test(operationIdHeader);
  if (!ok)
    throw new Error(
      `${what}: ${statusCode} with a body not of the service's error shape: ${text.slice(0, 300)}`,
    );
}

/** Creates the seed data again where a successful DELETE removed it. */
async function ensureSeeds(): Promise<void> {
  const exists = async (p: string, key = A) => (await send("GET", fill(p), std(key))).status === 200;
  const create = async (p: string, body: unknown, key = A) => {
    const res = await send(
      "POST",
      p,
      { ...std(key), "content-type": "application/json" },
      JSON.stringify(body),
    );
    if (res.status !== 201) throw new Error(`seeding ${p}: ${res.status} ${res.text}`);
    return JSON.parse(res.text).id as string;
  };
  for (const [k, key] of [
    ["D1", A],
    ["D2", A],
    ["DB", B],
  ] as const) {
    if (!ids[k] || !(await exists(`/event_destinations/$${k}`, key)))
      ids[k] = await create(
        "/event_destinations",
        { target: TARGETS["kinesis with creds"], description: `seed ${k}` },
        key,
      );
  }
  for (const [k, d, key] of [
    ["S1", "D1", A],
    ["SB", "DB", B],
  ] as const) {
    if (!ids[k] || !(await exists(`/event_subscriptions/$${k}`, key))) {
      ids[k] = await create(
        "/event_subscriptions",
        { sources: [{ type: "ip_policy_created.v0" }], destination_ids: [ids[d]] },
        key,
      );
    }
  }
  if (!ids.R1) ids.R1 = await create("/abuse_reports", { urls: ["https://seed.example.com/x"] });
}

const snap = () => JSON.stringify(em.store.snapshot());

/** The fault configuration with injection off, as `GET /_operator/faults` renders it. */
const NO_FAULTS = JSON.stringify({});

/**
 * Whether a request target could reach an operator route under any reading a router might make
 * of it: percent-decoded (twice), `;` parameters cut off, slashes collapsed, dot segments
 * resolved, case ignored. No public route reads like this, so a 2xx on such a path without the
 * admin key is an access hole.
 */
function resolvesToOperatorPath(target: string): boolean {
  let p = target.split(/[?#]/)[0];
  for (let i = 0; i < 2; i++)
    p = p.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
  p = p.split(/[?#;]/)[0].replace(/\/+/g, "/");
  try {
    p = new URL(p, "http://x").pathname;
  } catch {
    // keep the path as it is
  }
  return /^\/_operator(\/|$)/i.test(p);
}

/**
 * An operator path in one of the spellings a router may decode to it: characters percent-encoded
 * at random (either case, slashes included), doubled slashes, dot segments, upper case.
 */
const encodedOperatorPath = fc
  .tuple(
    fc.constantFrom("/_operator/faults", "/_operator/requests", "/_operator/abuse_reports/$R1/review"),
    fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 64, maxLength: 64 }),
    fc.constantFrom("", "/", "//", "/./", "/x/../", "/X/%2E%2E/"),
    fc.boolean(),
  )
  .map(([path, modes, lead, upper]) => {
    const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, "0");
    let i = 0;
    const encode = (part: string) =>
      [...part]
        .map((c) => {
          const mode = modes[i++ % modes.length];
          return mode === 1 ? `%${hex(c).toUpperCase()}` : mode === 2 ? `%${hex(c)}` : c;
        })
        .join("");
    // `$R1` is a placeholder for a report ID, filled in when the case is sent.
    const spelled = (lead === "" ? "/" : lead) + path.slice(1).split("$R1").map(encode).join("$R1");
    return upper ? spelled.replace("_operator", "_OPERATOR") : spelled;
  });

/**
 * Sends one case and checks everything: answer in time, no 5xx, error shape, no change on a
 * rejection. A 2xx create is deleted again and a 2xx delete of seed data is undone, so the store
 * stays small.
 */
async function runCase(family: string, sent: Case): Promise<void> {
  const { method, path, headers, body, chunked } = sent;
  const what = `${method} ${path.slice(0, 120)}${path.length > 120 ? "…" : ""}`;
  let res: Sent;
  try {
    res = await send(method, path, headers, body, chunked);
  } catch (e) {
    if (e instanceof NotSendable) {
      counts[`${family} (not sendable by node:http, skipped)`] =
        (counts[`${family} (not sendable by node:http, skipped)`] ?? 0) + 1;
      return;
    }
    throw new Error(`${what}: ${(e as Error).message}`);
  }
  counts[family] = (counts[family] ?? 0) + 1;
  statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  if (res.status >= 500) throw new Error(`${what}: ${res.status} ${res.text.slice(0, 300)}`);
  if (res.status >= 400 && method !== "HEAD")
    expectErrorShape(res.status, res.headers["operation-id"], res.text, what);

  const now = snap();
  const faults = JSON.stringify(em.app.emulator.getFaults());
  const asAdmin = headers.authorization === `Bearer ${ADMIN}`;
  const operatorPath = resolvesToOperatorPath(path);
  if (res.status >= 300) {
    if (now !== snapshot) throw new Error(`${what}: answered ${res.status} but changed the stored data`);
    if (faults !== NO_FAULTS) throw new Error(`${what}: answered ${res.status} but changed the faults`);
  } else {
    if (operatorPath && !asAdmin)
      throw new Error(`${what}: an operator path answered ${res.status} without the admin key`);
    if (faults !== NO_FAULTS) {
      // Only the operator's own request to the faults endpoint may change them; the change is then
      // undone openly, through the same endpoint, and counted.
      if (!(asAdmin && operatorPath && method === "PUT"))
        throw new Error(`${what}: answered ${res.status} and changed the faults to ${faults}`);
      const undo = await send(
        "PUT",
        "/_operator/faults",
        { ...std(ADMIN), "content-type": "application/json" },
        "{}",
      );
      if (undo.status !== 200)
        throw new Error(`undoing the faults set by ${what}: ${undo.status} ${undo.text}`);
      counts["faults set by the operator, then switched off again"] =
        (counts["faults set by the operator, then switched off again"] ?? 0) + 1;
    }
    if (method === "POST" && res.status === 201 && !path.startsWith("/abuse_reports")) {
      const created = JSON.parse(res.text) as { id: string };
      const collection = created.id.startsWith("esb_") ? "event_subscriptions" : "event_destinations";
      const auth = typeof headers.authorization === "string" ? headers.authorization : `Bearer ${A}`;
      const del = await send("DELETE", `/${collection}/${created.id}`, {
        authorization: auth,
        "service-version": "2",
      });
      if (del.status !== 204) throw new Error(`cleanup of ${created.id}: ${del.status} ${del.text}`);
    }
    if (method === "DELETE") await ensureSeeds();
    snapshot = snap();
  }
  if (Object.getOwnPropertyNames(Object.prototype).sort().join() !== prototypeKeys)
    throw new Error(`${what}: Object.prototype was changed`);
}

// -----------------------------------------------------------------------------------------------
// Generators
// -----------------------------------------------------------------------------------------------

const PROTO_KEYS = [
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
function define(o: object, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

const keyArb = fc.oneof(
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

const hugeString = fc.oneof(
  fc.constantFrom(255, 256, 4096, 4097, 20_000).map((n) => "x".repeat(n)),
  fc.constantFrom(2048, 2049).map((n) => "é".repeat(n)),
  fc.constantFrom(1365, 1366).map((n) => "€".repeat(n)),
  fc.constantFrom(1024, 1025, 4097).map((n) => "🙂".repeat(n)),
);

const unicodeString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom("\ud800", "a\udfff", "\u0000", "\u202e", "\ufeff", "e\u0301", "🙂", "\uffff", "\u2028"),
);

/**
 * IDs with a kind's prefix that the emulator holds nowhere: of the right length but unknown, and
 * far over any limit (up to a request line over 16 KiB). Path segments and query values both
 * draw them.
 */
const WRONG_IDS = [
  "ed_" + "0".repeat(27),
  "esb_" + "z".repeat(27),
  "abrp_" + "0".repeat(26) + "1",
  "esb_" + "a".repeat(2100),
  "esb_" + "a".repeat(5000),
  "esb_" + "a".repeat(20_000),
];

const idLike = fc.constantFrom(
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

const scalar = fc.oneof(
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

function nest(depth: number, leaf: unknown, asObject: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asObject ? { a: v } : [v];
  return v;
}

const junk: fc.Arbitrary<unknown> = fc.oneof(
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

interface Mutation {
  at: number;
  op: number;
  key: string;
  value: unknown;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  op: fc.nat({ max: 9 }),
  key: keyArb,
  value: junk,
});

type Json = Record<string, unknown>;
interface Slot {
  parent: Json | unknown[] | undefined;
  key: string | number;
  value: unknown;
}

/** Every value in the tree down to depth 8 with where it sits (the root has no parent). */
function slots(root: unknown): Slot[] {
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
function clone(v: unknown, depth = 0): unknown {
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
function mutate(valid: unknown, mutations: Mutation[]): unknown {
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

// -----------------------------------------------------------------------------------------------
// HTTP properties
// -----------------------------------------------------------------------------------------------

beforeAll(async () => {
  em = await startEmulator({ apiKeys: [A, B], restrictedApiKeys: [R], adminKey: ADMIN });
  port = Number(new URL(em.url).port);
  await ensureSeeds();
  snapshot = snap();
});

afterAll(async () => {
  await em?.close();
  const total = Object.entries(counts)
    .filter(([k]) => !k.includes("skipped"))
    .reduce((a, [, n]) => a + n, 0);
  console.log(
    `hostile input: ${total} HTTP cases sent (${Object.entries(counts)
      .map(([k, n]) => `${k}: ${n}`)
      .join(", ")}); statuses ${JSON.stringify(statuses)}; ` + `provider/sdk check inputs: ${checkCases}`,
  );
});

describe("the emulator under hostile HTTP input", () => {
  it(
    "mutated valid bodies on every endpoint that takes one",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...BODY_ENDPOINTS),
          fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
          fc.constantFrom("application/json", "application/json; charset=utf-8"),
          async (endpoint, mutations, contentType) => {
            const body = mutate(endpoint.body, mutations);
            const text = body === undefined ? "" : fill(JSON.stringify(body));
            const headers: Record<string, string> = {
              ...std(endpoint.admin ? ADMIN : A),
              "content-type": contentType,
            };
            if (endpoint.admin) delete headers["service-version"];
            await runCase("mutated bodies", {
              method: endpoint.method,
              path: fill(endpoint.path),
              headers,
              body: text,
            });
          },
        ),
        runs(1000),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "raw bodies: not JSON, truncated, duplicated keys, deep nesting, invalid UTF-8, over 1 MiB",
    async () => {
      const valid = (i: number) => fill(JSON.stringify(BODY_ENDPOINTS[i % BODY_ENDPOINTS.length].body));
      const rawBody = fc.oneof(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.jsonValue().map((v) => JSON.stringify(v) ?? ""),
        fc.tuple(fc.nat(), fc.nat()).map(([i, cut]) => valid(i).slice(0, cut % (valid(i).length + 1))),
        fc.tuple(fc.nat(), fc.string({ maxLength: 5 })).map(([i, s]) => valid(i) + s),
        fc.nat().map((i) => "\ufeff" + valid(i)),
        fc.nat().map((i) => valid(i).replace(/^\{/, '{"sources":"dup","destination_ids":1,"target":null,')),
        fc.constantFrom(
          '{"__proto__":{"polluted":true},"sources":[{"type":"ip_policy_created.v0"}],"destination_ids":["$D1"]}',
          '{"constructor":{"prototype":{"polluted":true}}}',
          '{"sources":[{"type":"ip_policy_created.v0","__proto__":{"type":"x"}}],"destination_ids":["$D1"]}',
          '{"target":{"__proto__":{"kinesis":{}},"datadog":{"api_key":"k"}}}',
          "1e999999",
          "NaN",
          "null",
          "[]",
          '"string"',
          "{}",
          "{",
          "}",
          '{"a":1}{"b":2}',
          "[".repeat(100_000),
          '{"sources":' + "[".repeat(50_000) + "]".repeat(50_000) + "}",
          '{"metadata":"' + "\\ud800".repeat(100) + '"}',
        ),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...BODY_ENDPOINTS),
          fc.oneof(
            { weight: 20, arbitrary: rawBody.map((s) => fill(s) as string | Buffer) },
            { weight: 3, arbitrary: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) },
            {
              weight: 1,
              arbitrary: fc.constantFrom(1024 * 1024 + 1, 2 * 1024 * 1024).map((n) => "x".repeat(n)),
            },
          ),
          fc.boolean(),
          async (endpoint, body, chunked) => {
            const headers: Record<string, string> = {
              ...std(endpoint.admin ? ADMIN : A),
              "content-type": "application/json",
            };
            if (chunked) headers["transfer-encoding"] = "chunked";
            await runCase("raw bodies", {
              method: endpoint.method,
              path: fill(endpoint.path),
              headers,
              body,
              chunked,
            });
          },
        ),
        runs(350),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "headers: Authorization, Service-Version, Content-Type and body variants on every route",
    async () => {
      // Each header is well formed about half of the time, so that later checks are reached too.
      const authorization = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(`Bearer ${A}`, `Bearer ${B}`, `Bearer ${R}`) },
        fc.constantFrom(
          undefined,
          `Bearer ${A}`,
          `Bearer ${B}`,
          `Bearer ${R}`,
          `Bearer ${ADMIN}`,
          "Bearer",
          "Bearer ",
          `bearer ${A}`,
          `BEARER   ${A}`,
          `Bearer ${A} extra`,
          `Bearer ${A}x`,
          `Bearer ${A.slice(0, -1)}`,
          `Basic ${Buffer.from(`${A}:`).toString("base64")}`,
          `Token ${A}`,
          A,
          "Bearer " + "a".repeat(512),
          "Bearer " + "a".repeat(513),
          "Bearer " + "a".repeat(8000),
          "Bearer é",
          `Bearer\t${A}`,
        ),
        fc.string({ unit: "binary-ascii", maxLength: 40 }).map((s) => `Bearer ${sendable(s)}`),
        fc.string({ unit: "binary", maxLength: 40 }).map(sendable),
      );
      const version = fc.oneof(
        { weight: 3, arbitrary: fc.constant("2") },
        fc.constantFrom(undefined, "2", " 2 ", "1", "3", "02", "2.0", "", "two", "2,2", "é", "-2", "2\t"),
        fc.constant<string[]>(["2", "2"]),
        fc.string({ unit: "binary", maxLength: 8 }).map(sendable),
      );
      const contentType = fc.oneof(
        { weight: 2, arbitrary: fc.constant("application/json") },
        fc.constantFrom(
          undefined,
          "application/json",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          "application/json;charset=latin1",
          "application/json;",
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/jsonx",
          "application/merge-patch+json",
          "",
          ";",
          "application/json, text/plain",
          "*/*",
        ),
        fc.string({ unit: "binary", maxLength: 30 }).map(sendable),
      );
      const extra = fc.constantFrom<Record<string, string>>(
        {},
        { "x-http-method-override": "DELETE" },
        { "x-forwarded-host": "evil.example" },
        { host: "evil.example:1" },
        { "idempotency-key": "k".repeat(300) },
        { "idempotency-key": "" },
        { "operation-id": "op_forged" },
        { connection: "upgrade", upgrade: "websocket" },
        { expect: "100-continue" },
        { "content-encoding": "gzip" },
        { accept: "text/html" },
      );
      const routes = [
        ...BODY_ENDPOINTS.map((e) => ({ method: e.method, path: e.path, body: e.body as unknown })),
        ...PATHS.flatMap((p) =>
          ["GET", "DELETE", "HEAD", "OPTIONS", "PUT"].map((method) => ({
            method,
            path: p,
            body: undefined as unknown,
          })),
        ),
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes),
          authorization,
          version,
          contentType,
          fc.constantFrom("none", "valid", "empty", "junk"),
          extra,
          fc.boolean(),
          async (route, auth, ver, ct, bodyKind, more, chunked) => {
            const headers: Record<string, string | string[]> = { ...more };
            if (auth !== undefined) headers.authorization = auth;
            if (ver !== undefined) headers["service-version"] = ver;
            if (ct !== undefined) headers["content-type"] = ct;
            const body =
              bodyKind === "none"
                ? undefined
                : bodyKind === "empty"
                  ? ""
                  : bodyKind === "junk"
                    ? "not json"
                    : fill(JSON.stringify(route.body ?? { description: "x" }));
            if (body !== undefined && chunked) headers["transfer-encoding"] = "chunked";
            await runCase("headers", {
              method: route.method,
              path: fill(route.path),
              headers,
              body,
              chunked: body !== undefined && chunked,
            });
          },
        ),
        runs(600),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "operator paths in encoded spellings: a 2xx only with the admin key",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("GET", "PUT", "POST", "DELETE"),
          encodedOperatorPath,
          fc.constantFrom("none", "A", "R", "wrong admin", "admin"),
          fc.constantFrom(
            undefined,
            JSON.stringify({ status503: 1 }),
            JSON.stringify({ hostnames: [{ hostname: "seed.example.com", status: "UNBANNED" }] }),
          ),
          async (method, path, who, body) => {
            const key = { none: undefined, A, R, "wrong admin": ADMIN + "x", admin: ADMIN }[who];
            const headers: Record<string, string> = key === undefined ? {} : std(key);
            if (body !== undefined) headers["content-type"] = "application/json";
            await runCase("operator paths, encoded", { method, path: fill(path), headers, body });
          },
        ),
        runs(400),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "paths: random segments, encoded characters, wrong prefixes, very long IDs",
    async () => {
      const prefix = fc.constantFrom(
        "",
        "/",
        "/event_subscriptions",
        "/event_destinations",
        "/abuse_reports",
        "/_operator",
        "/_operator/requests",
        "/_operator/faults",
        "/_operator/abuse_reports",
        "/%5Foperator/faults",
        "/%5foperator/requests",
        "/_operator%2Ffaults",
        "//_operator/requests",
        "/_OPERATOR/faults",
        "/v2/event_subscriptions",
        "/Event_Subscriptions",
        "//event_subscriptions",
        "/event_subscriptions/",
        "/event_subscriptions/$S1/sources",
        "/%65vent_subscriptions",
      );
      const segment = fc.oneof(
        idLike,
        fc.constantFrom(
          "$S1/sources/ip_policy_created.v0",
          "$S1/sources/%2e%2e",
          "..",
          ".",
          "%2e%2e",
          "%2F",
          "%00",
          "%ZZ",
          "%",
          "%E0%A4%A",
          "%C0%AF",
          "é",
          "%F0%9F%99%82",
          "review",
          "sources",
          ";",
          "a;b=c",
          ...WRONG_IDS,
        ),
        fc.string({ maxLength: 30 }).map(encodeURIComponent),
        fc.string({ unit: "binary", maxLength: 10 }).map((s) => encodeURIComponent(s).replace(/%25/g, "%")),
        fc.string({ unit: "binary-ascii", maxLength: 10 }).map((s) => s.replace(/[^\x21-\x7e]/g, "_")),
      );
      await fc.assert(
        fc.asyncProperty(
          // (CONNECT is sent by the raw-socket property: node:http treats its answer as a tunnel.)
          fc.constantFrom(
            "GET",
            "POST",
            "PATCH",
            "DELETE",
            "PUT",
            "HEAD",
            "OPTIONS",
            "TRACE",
            "PROPFIND",
            "SEARCH",
          ),
          prefix,
          fc.array(segment, { maxLength: 3 }),
          fc.constantFrom("", "?", "?limit=1", "#frag", "?a=%ZZ"),
          fc.constantFrom("A", "admin", "none"),
          fc.boolean(),
          async (method, pre, segments, tail, who, withBody) => {
            const path = fill(pre + segments.map((s) => "/" + s).join("") + tail) || "/";
            const headers: Record<string, string> =
              who === "none" ? {} : { ...std(who === "admin" ? ADMIN : A) };
            let body: string | undefined;
            if (withBody) {
              headers["content-type"] = "application/json";
              body = fill(JSON.stringify(BODY_ENDPOINTS[segments.length % BODY_ENDPOINTS.length].body));
            }
            await runCase("paths", { method, path, headers, body });
          },
        ),
        runs(600),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "query strings: limit and before_id junk, repeated and unknown parameters",
    async () => {
      const value = fc.oneof(
        fc.constantFrom(
          "",
          "0",
          "1",
          "100",
          "101",
          "-1",
          "1e2",
          "0x10",
          "%205",
          "5%20",
          "+5",
          "5.0",
          "abc",
          "%00",
          "%ZZ",
          "9".repeat(400),
          "$S1",
          "$D1",
          "$SB",
          "esb_",
          ...WRONG_IDS,
          "null",
          "undefined",
          "%E2%82%AC",
        ),
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
      );
      const name = fc.constantFrom(
        "limit",
        "before_id",
        "limit[]",
        "limit[a]",
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "LIMIT",
        "beforeId",
        "since",
        "",
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(
            "/event_subscriptions",
            "/event_destinations",
            "/event_subscriptions/$S1",
            "/abuse_reports/$R1",
            "/_operator/requests",
          ),
          fc.array(fc.tuple(name, value, fc.boolean()), { minLength: 1, maxLength: 4 }),
          fc.constantFrom("&", ";", "&&"),
          async (p, params, sep) => {
            const q = params.map(([n, v, bare]) => (bare && v === "" ? n : `${n}=${v}`)).join(sep);
            const headers = p.startsWith("/_operator") ? std(ADMIN) : std(A);
            await runCase("query strings", { method: "GET", path: fill(`${p}?${q}`), headers });
          },
        ),
        runs(400),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "raw bytes on a socket: malformed request lines and headers, unknown methods, no Host",
    async () => {
      /** Sends bytes, reads one response (status and body by Content-Length), or fails on timeout. */
      const rawExchange = (bytes: Buffer) =>
        new Promise<{ status: number; head: string; body: string }>((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
          let buf = Buffer.alloc(0);
          const timer = setTimeout(() => {
            socket.destroy();
            reject(
              new Error(
                `no answer in ${REQUEST_TIMEOUT_MS} ms to ${JSON.stringify(bytes.toString("latin1").slice(0, 200))}`,
              ),
            );
          }, REQUEST_TIMEOUT_MS);
          const tryParse = (final: boolean) => {
            const end = buf.indexOf("\r\n\r\n");
            if (end < 0) {
              if (final) {
                clearTimeout(timer);
                reject(
                  new Error(
                    `connection closed without a response to ${JSON.stringify(bytes.toString("latin1").slice(0, 200))}`,
                  ),
                );
              }
              return;
            }
            const head = buf.subarray(0, end).toString("latin1");
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "0");
            if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
              clearTimeout(timer);
              socket.destroy();
              reject(new Error(`chunked response without a usable body: ${head}`));
              return;
            }
            if (buf.length < end + 4 + length && !final) return;
            clearTimeout(timer);
            socket.destroy();
            resolve({
              status: Number(head.split(" ")[1]),
              head,
              body: buf.subarray(end + 4, end + 4 + length).toString("utf8"),
            });
          };
          socket.on("data", (d: Buffer) => {
            buf = Buffer.concat([buf, d]);
            tryParse(false);
          });
          socket.on("end", () => tryParse(true));
          socket.on("close", () => tryParse(true));
          socket.on("error", () => undefined);
        });

      const method = fc.constantFrom(
        "GET",
        "POST",
        "PATCH",
        "DELETE",
        "CONNECT",
        "FOO",
        "get",
        "G ET",
        "",
        "PRI",
        "M-SEARCH",
      );
      const target = fc.constantFrom(
        "/event_subscriptions",
        "/event_destinations/$D1",
        "*",
        "",
        "http://evil.example/event_subscriptions",
        "127.0.0.1:1",
        "/event_subscriptions/\x01",
        "/event_subscriptions/\xff\xfe",
        "/event_subscriptions/" + "a".repeat(17_000),
        "/_operator/requests",
      );
      const version = fc.constantFrom(
        "HTTP/1.1",
        "HTTP/1.0",
        "HTTP/2.0",
        "HTTP/9.9",
        "HTTP/1",
        "",
        "http/1.1",
      );
      const headerLine = fc.constantFrom(
        "Host: x",
        `Authorization: Bearer ${A}`,
        "Service-Version: 2",
        "Content-Type: application/json",
        "NoColon",
        ": empty-name",
        "X-Ctl: a\x01b",
        "Host: a\r\nHost: b",
        "Content-Length: -1",
        "Content-Length: abc",
        "Content-Length: 5, 6",
        "Content-Length: 2\r\nContent-Length: 3",
        "Transfer-Encoding: chunked",
        "Transfer-Encoding: chunked, identity",
        " folded: header",
        "Authorization: Bearer \xff\xfe",
        "X-Big: " + "b".repeat(17_000),
        "Connection: upgrade\r\nUpgrade: h2c",
      );
      await fc.assert(
        fc.asyncProperty(
          method,
          target,
          version,
          fc.array(headerLine, { maxLength: 6 }),
          fc.constantFrom("", "{}", "zz\r\n", "2\r\n{}\r\n0\r\n\r\n"),
          async (m, t, v, lines, body) => {
            const text = `${m} ${fill(t)} ${v}\r\n${[...lines, "Connection: close"].join("\r\n")}\r\n\r\n${body}`;
            const res = await rawExchange(Buffer.from(text, "latin1"));
            counts["raw socket"] = (counts["raw socket"] ?? 0) + 1;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            const what = JSON.stringify(text.slice(0, 200));
            if (!(res.status >= 100 && res.status < 500)) throw new Error(`${what}: ${res.head} ${res.body}`);
            if (res.status >= 400) {
              const opId = /\r\noperation-id: *(\S+)/i.exec(res.head)?.[1];
              expectErrorShape(res.status, opId, res.body, what);
            }
            const now = snap();
            if (res.status >= 300 && now !== snapshot)
              throw new Error(`${what}: rejected but changed the data`);
            snapshot = now;
          },
        ),
        runs(150),
      );
    },
    TEST_TIMEOUT_MS,
  );
});

// -----------------------------------------------------------------------------------------------
// The providers' check functions and the client's validation
// -----------------------------------------------------------------------------------------------

let checkCases = 0;

const INPUT_NAMES = {
  subscription: ["sources", "destinationIds", "description", "metadata", "adoptId"],
  destination: ["format", "target", "description", "metadata", "adoptId"],
  report: ["urls", "metadata"],
};

const VALID_INPUTS = {
  subscription: {
    sources: [{ type: "ip_policy_created.v0" }],
    destinationIds: ["ed_" + "0".repeat(26) + "1"],
    description: "d",
    metadata: "m",
  },
  destination: {
    target: {
      kinesis: {
        auth: { creds: { awsAccessKeyId: "AKIA", awsSecretAccessKey: "s" } },
        streamArn: "arn:aws:kinesis:s",
      },
    },
    format: "json",
    description: "d",
    metadata: "m",
  },
  report: { urls: ["https://a.example.com/x"], metadata: "m" },
};

const CHECKS = {
  subscription: checkEventSubscriptionInputs,
  destination: checkEventDestinationInputs,
  report: checkAbuseReportInputs,
};

/** Made inside the property: fast-check itself cannot hold a revoked proxy as a value. */
class Hostile {
  constructor(readonly make: () => unknown) {}
}
const unwrap = (v: unknown) => (v instanceof Hostile ? v.make() : v);

/**
 * A generated input as fast-check reports it: through {@link show}, since fast-check's own
 * printer recurses once per level and overflows the stack on the deepest inputs (thousands of
 * nested arrays), which would hide the property's failure behind a RangeError of the report.
 */
class Shown {
  constructor(readonly value: unknown) {}
  [fc.toStringMethod](): string {
    return show(this.value);
  }
}

/** Objects whose reading throws: getters, proxies, revoked proxies. */
const hostile = fc.constantFrom<() => unknown>(
  () =>
    Object.defineProperty({}, "sources", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    }),
  () =>
    new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("ownKeys");
        },
      },
    ),
  () => {
    const p = Proxy.revocable({}, {});
    p.revoke();
    return p.proxy;
  },
  () => ({
    target: new Proxy(
      {},
      {
        get: () => {
          throw new Error("get");
        },
      },
    ),
  }),
  () => Object.create(null),
  () =>
    Object.assign(Object.create({ sources: [{ type: "ip_policy_created.v0" }] }), {
      description: "inherited",
    }),
);

function show(input: unknown): string {
  if (input instanceof Hostile) return `Hostile(${input.make.toString().slice(0, 200)})`;
  try {
    return fc.stringify(input).slice(0, 300);
  } catch {
    try {
      const keys =
        input !== null && typeof input === "object"
          ? Object.keys(input)
              .map((k) => JSON.stringify(k))
              .join(", ")
          : typeof input;
      return `(an input too deep to print, with keys: ${keys})`;
    } catch {
      return "(an input that cannot be shown)";
    }
  }
}

function expectGoodFailures(kind: keyof typeof CHECKS, input: unknown, failures: CheckFailure[]): void {
  if (!Array.isArray(failures)) throw new Error("check did not return an array");
  let ownKeys: string[] = [];
  try {
    ownKeys = input !== null && typeof input === "object" ? Object.keys(input) : [];
  } catch {
    ownKeys = [];
  }
  // A key with no name is reported as `""` (client/requestValidation.ts).
  const allowed = new Set([...INPUT_NAMES[kind], ...ownKeys.map((k) => (k === "" ? '""' : k))]);
  for (const f of failures) {
    const what = () => `${kind} check of ${show(input)}: ${JSON.stringify(f)}`;
    if (typeof f.property !== "string" || f.property === "") throw new Error(`empty property: ${what()}`);
    if (!allowed.has(f.property)) throw new Error(`property is not a top-level input name: ${what()}`);
    if (typeof f.reason !== "string" || !f.reason.startsWith(f.property))
      throw new Error(`reason does not start with the field path: ${what()}`);
    const next = f.reason.charAt(f.property.length);
    if (![":", ".", "["].includes(next))
      throw new Error(`reason does not start with the field path: ${what()}`);
  }
}

describe("the providers' check functions under arbitrary input", () => {
  const anything = fc.anything({
    maxDepth: 4,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withObjectString: true,
    withNullPrototype: true,
    withBigInt: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    key: keyArb,
  });

  it.each(Object.keys(CHECKS) as (keyof typeof CHECKS)[])(
    "%s: never throws; every failure names a top-level input and starts with its path",
    (kind) => {
      const check = CHECKS[kind];
      expect(check(VALID_INPUTS[kind] as Record<string, unknown>)).toEqual([]);
      const inputs = fc.oneof(
        { weight: 3, arbitrary: anything },
        {
          weight: 5,
          arbitrary: fc
            .array(mutationArb, { minLength: 1, maxLength: 4 })
            .map((ms) => mutate(VALID_INPUTS[kind], ms)),
        },
        { weight: 1, arbitrary: hostile.map((make) => new Hostile(make)) },
        {
          // A value deeper than any recursive walk can follow, in one input: whatever
          // overflows the stack must be caught and named, never thrown.
          weight: 1,
          arbitrary: fc
            .tuple(
              // Each input, an unknown one, and one with no name.
              fc.constantFrom(...INPUT_NAMES[kind], "unknownField", ""),
              fc.integer({ min: 20_000, max: 200_000 }),
              fc.boolean(),
            )
            .map(([k, depth, asObject]) => ({ ...VALID_INPUTS[kind], [k]: nest(depth, "x", asObject) })),
        },
        {
          weight: 1,
          arbitrary: fc.dictionary(keyArb, junk, { maxKeys: 6 }).map((d) => {
            const o = {};
            for (const [k, v] of Object.entries(d)) define(o, k, v);
            return o;
          }),
        },
      );
      fc.assert(
        fc.property(
          inputs.map((v) => new Shown(v)),
          ({ value: generated }) => {
            const input = unwrap(generated);
            checkCases++;
            let failures: CheckFailure[] = [];
            try {
              failures = check(input as Record<string, unknown>);
            } catch (e) {
              throw new Error(`${kind} check threw ${String(e)} for ${show(input)}`);
            }
            expectGoodFailures(kind, input, failures);
          },
        ),
        runs(3000),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "the client's validation functions never throw and quote the field in every message",
    () => {
      const fns = [
        clientValidation.validateAbuseReportCreate,
        clientValidation.validateEventDestinationCreate,
        clientValidation.validateEventDestinationUpdate,
        clientValidation.validateEventSubscriptionCreate,
        clientValidation.validateEventSubscriptionUpdate,
        (v: unknown) => clientValidation.validateId(v, "esb_"),
        clientValidation.validateListParams,
      ];
      fc.assert(
        fc.property(
          fc.constantFrom(...fns),
          fc
            .oneof(
              anything,
              hostile.map((make) => new Hostile(make)),
              fc
                .tuple(
                  fc.constantFrom(...Object.values(VALID_INPUTS)),
                  fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
                )
                .map(([v, ms]) => mutate(v, ms)),
            )
            .map((v) => new Shown(v)),
          (fn, { value: generated }) => {
            checkCases++;
            const issues = fn(unwrap(generated));
            for (const i of issues) {
              if (typeof i.field !== "string" || !i.message.startsWith(`${i.field}: `))
                throw new Error(`issue without its field: ${JSON.stringify(i)}`);
            }
          },
        ),
        runs(3000),
      );
    },
    TEST_TIMEOUT_MS,
  );
});
