/**
 * The harness of the HTTP hostile-input properties (test/reliability/fuzz-bodies.test.ts,
 * fuzz-requests.test.ts): an emulator started in-process with two accounts, a restricted key and
 * an admin key ({@link useFuzzEmulator}), its seed data, how a case is sent (over HTTP, or as raw
 * bytes), and the checks every case gets ({@link runCase}): an answer within the timeout, never a
 * 5xx, the service's error body, nothing stored or configured changed by a rejected request.
 * `RELIABILITY_LONG=1` runs ten times as many cases; `FUZZ_SEED=<n>` replays a run.
 */
import fc from "fast-check";
import http from "node:http";
import { startEmulator, type RunningEmulator } from "./emulator";
import { TARGETS } from "./emulator-fixtures";

/** Longest one case waits for its answer, in milliseconds, before it fails as a hang. */
export const REQUEST_TIMEOUT_MS = 5_000;

export const A = "fuzz-key-account-a";
export const B = "fuzz-key-account-b";
export const R = "fuzz-key-restricted";
export const ADMIN = "fuzz-admin-key";

/** HTTP cases run, per property, and statuses seen: printed at the end. */
export const counts: Record<string, number> = {};
export const statuses: Record<string, number> = {};

// -----------------------------------------------------------------------------------------------
// The emulator, its seed data and the per-case checks
// -----------------------------------------------------------------------------------------------

export let em: RunningEmulator;
export let port: number;
/** IDs the generated cases refer to as `$D1`, `$S1`…; replaced when the case is sent. */
export const ids: Record<string, string> = {};
export let snapshot = "";
export const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort().join();

/** Valid requests of every endpoint that takes a body; the mutations start from these. */
export const BODY_ENDPOINTS: { method: string; path: string; body: unknown; admin?: boolean }[] = [
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

export const PATHS = [
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

export function fill(s: string): string {
  return s.replace(/\$(D1|D2|S1|R1|DB|SB)/g, (_m, k: string) => ids[k]);
}

export interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request of a case: its method, path, headers and body (sent chunked when `chunked`). */
export interface Case {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
  chunked?: boolean;
}

/** Client-side refusals (Node will not send such a header or path): the case is not sent. */
export class NotSendable extends Error {}

export function send(
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
export function sendable(s: string): string {
  return [...s]
    .map((c) =>
      /^[\t\x20-\x7e\x80-\xff]$/.test(c) ? c : String.fromCharCode(0x80 + (c.codePointAt(0)! % 0x80)),
    )
    .join("");
}

export const std = (key = A): Record<string, string> => ({
  authorization: `Bearer ${key}`,
  "service-version": "2",
});

/** Asserts the service's error body; `statusCode` is the HTTP status. */
export function expectErrorShape(
  statusCode: number,
  operationIdHeader: unknown,
  text: string,
  what: string,
): void {
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
export async function ensureSeeds(): Promise<void> {
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

export const snap = () => JSON.stringify(em.store.snapshot());

/** The fault configuration with injection off, as `GET /_operator/faults` renders it. */
export const NO_FAULTS = JSON.stringify({});

/**
 * Whether a request target could reach an operator route under any reading a router might make
 * of it: percent-decoded (twice), `;` parameters cut off, slashes collapsed, dot segments
 * resolved, case ignored. No public route reads like this, so a 2xx on such a path without the
 * admin key is an access hole.
 */
export function resolvesToOperatorPath(target: string): boolean {
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
export const encodedOperatorPath = fc
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
export async function runCase(family: string, sent: Case): Promise<void> {
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

/** Sets the stored data's snapshot that the next case's "nothing changed" check compares with. */
export function setSnapshot(now: string): void {
  snapshot = now;
}

/**
 * Starts the fuzzed emulator before the file's tests (two accounts `A` and `B`, the restricted
 * key `R`, the admin key `ADMIN`, the seed data) and closes it after them, printing how many
 * cases of each family were sent and the statuses seen.
 */
export function useFuzzEmulator(): void {
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
        .join(", ")}); statuses ${JSON.stringify(statuses)}; `,
    );
  });
}
