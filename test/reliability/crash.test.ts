/**
 * Crash safety of the emulator.
 *
 * The compiled command line runs on a data file under the system temp folder. Six writers send a
 * stream of creates, updates and deletes of destinations and subscriptions, each writer one
 * request at a time on resources of its own, and the test remembers every write whose 2xx it
 * received. The process is killed with SIGKILL at a different moment each round. Then:
 *
 * - with the process gone, the file is opened with better-sqlite3: `PRAGMA integrity_check` is
 *   `ok`, `PRAGMA foreign_key_check` is empty, and every row agrees with the write that produced
 *   it (secrets included, which the API never shows);
 * - the command line is started again on the same file with the same key, and over the API every
 *   acknowledged create is there with the values of its last acknowledged update, every
 *   acknowledged delete is gone, and nothing else exists but what a write in flight at the kill
 *   may have made (a write in flight may or may not have happened; each writer has at most one).
 *
 * The restart of one round is the start of the next. `RELIABILITY_LONG=1` runs more rounds.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { seededRandom } from "../../packages/emulator/faults";
import { rawRequest, spawnEmulator, type SpawnedEmulator } from "../helpers/emulator";

const LONG = process.env.RELIABILITY_LONG === "1";
/**
 * Kill moments, one round each: after the `acks`-th acknowledged write of the round, plus
 * `jitterMs` (so the kill lands in the middle of the stream whatever the machine's speed).
 */
const KILL_AT: { acks: number; jitterMs: number }[] = (
  LONG
    ? [1, 5, 20, 50, 100, 200, 300, 500, 800, 1000, 1300, 1600, 2000, 2500, 3000, 10, 150, 400, 700, 1800]
    : [5, 60, 250, 600, 1200]
).map((acks, i) => ({ acks, jitterMs: (i * 7) % 11 }));
const WRITERS = 6;
const KEY = "crash-test-key-7f3a91c2";
const ADMIN = "crash-test-admin-0b1d";

const SOURCE_TYPES = [
  "ip_policy_created.v0",
  "ip_policy_updated.v0",
  "domain_created.v0",
  "tunnel_credential_deleted.v0",
  "http_request_complete.v0",
];

type Kind = "dest" | "sub";
/** The collection of each kind, and its name in messages. */
const COLLECTIONS = { dest: "event_destinations", sub: "event_subscriptions" } as const;
const NAMES = { dest: "destination", sub: "subscription" } as const;

/** The body of one write, identified by its tag (also its `description`). */
interface DestWrite {
  kind: "dest";
  tag: string;
  body: { description: string; metadata: string; target: Record<string, unknown> };
  /** Non-secret marker inside the target (visible over the API) and the secret (only in the file). */
  marker: string;
  secret: string;
}
interface SubWrite {
  kind: "sub";
  tag: string;
  body: { description: string; metadata: string; sources: { type: string }[]; destination_ids: string[] };
}
type Write = DestWrite | SubWrite;

/** What the test knows of one resource. */
interface Known {
  kind: Kind;
  id: string;
  /** Tag of the last acknowledged create or update. */
  acked: string;
  /** Tag of an update in flight when the process died (may or may not be applied). */
  pendingUpdate?: string;
  /** A delete was in flight when the process died. */
  pendingDelete?: boolean;
  /** Destinations it references (subscriptions), per acknowledged write. */
}

/** One writer's view: resources it owns, and its one request in flight at the kill. */
interface Writer {
  n: number;
  random: () => number;
  counter: number;
  known: Map<string, Known>;
  /** Creates in flight at the kill (at most one): the tag it would have. */
  pendingCreate?: Write;
}

interface Figures {
  round: number;
  killAfterAcks: number;
  killAfterMs: number;
  acknowledged: number;
  inFlightAtKill: number;
  resourcesAfter: number;
}

const writes = new Map<string, Write>();
/** IDs whose delete was acknowledged: must never come back. */
const deleted = new Set<string>();
const unexpected: string[] = [];

function newDestWrite(w: Writer): DestWrite {
  const tag = `w${w.n}.${++w.counter}`;
  const marker = `arn:aws:kinesis:us-east-1:1:stream/${tag}`;
  const secret = `crash-secret-${tag}`;
  const target =
    w.random() < 0.5
      ? {
          kinesis: {
            auth: { creds: { aws_access_key_id: "AKIA", aws_secret_access_key: secret } },
            stream_arn: marker,
          },
        }
      : { datadog: { api_key: secret, ddtags: marker } };
  const write: DestWrite = {
    kind: "dest",
    tag,
    body: { description: tag, metadata: JSON.stringify({ tag }), target },
    marker,
    secret,
  };
  writes.set(tag, write);
  return write;
}

function pick<T>(random: () => number, items: T[]): T {
  return items[Math.floor(random() * items.length)];
}

function newSubWrite(w: Writer, destinationIds: string[]): SubWrite {
  const tag = `w${w.n}.${++w.counter}`;
  const types = SOURCE_TYPES.filter(() => w.random() < 0.5);
  if (types.length === 0) types.push(pick(w.random, SOURCE_TYPES));
  const write: SubWrite = {
    kind: "sub",
    tag,
    body: {
      description: tag,
      metadata: `meta ${tag} ✓`,
      sources: types.map((type) => ({ type })),
      destination_ids: destinationIds,
    },
  };
  writes.set(tag, write);
  return write;
}

/** A keep-alive client for one round; `close` drops its sockets. */
function client(url: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: WRITERS * 2 });
  const send = (method: string, p: string, body?: unknown) =>
    rawRequest({
      method,
      url,
      path: p,
      agent,
      timeoutMs: 10_000,
      headers: {
        authorization: `Bearer ${KEY}`,
        "service-version": "2",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return { send, close: () => agent.destroy() };
}

type Send = ReturnType<typeof client>["send"];

/** One writer's loop: runs until `stopped()`, one request at a time; returns acknowledged writes. */
async function runWriter(
  w: Writer,
  send: Send,
  stopped: () => boolean,
  onFlight: (d: number) => void,
  onAck: () => void,
) {
  let acknowledged = 0;
  const ack = () => {
    acknowledged++;
    onAck();
  };
  // Each write marks itself pending while in flight, and counts once its 2xx has arrived.
  const create = (write: Write) => async () => {
    w.pendingCreate = write;
    const res = await send("POST", `/${COLLECTIONS[write.kind]}`, write.body);
    w.pendingCreate = undefined;
    if (res.status !== 201) return void unexpected.push(`create ${NAMES[write.kind]}: ${res.status}`);
    const id = (res.json() as { id: string }).id;
    w.known.set(id, { kind: write.kind, id, acked: write.tag });
    ack();
  };
  const update = (target: Known, write: Write) => async () => {
    target.pendingUpdate = write.tag;
    const res = await send("PATCH", `/${COLLECTIONS[target.kind]}/${target.id}`, write.body);
    target.pendingUpdate = undefined;
    if (res.status !== 200) return void unexpected.push(`update ${NAMES[target.kind]}: ${res.status}`);
    target.acked = write.tag;
    ack();
  };
  const remove = (target: Known) => async () => {
    target.pendingDelete = true;
    const res = await send("DELETE", `/${COLLECTIONS[target.kind]}/${target.id}`);
    target.pendingDelete = undefined;
    if (res.status !== 204) return void unexpected.push(`delete ${NAMES[target.kind]}: ${res.status}`);
    w.known.delete(target.id);
    deleted.add(target.id);
    ack();
  };
  while (!stopped()) {
    const dests = [...w.known.values()].filter((k) => k.kind === "dest");
    const subs = [...w.known.values()].filter((k) => k.kind === "sub");
    const referenced = new Set(subs.flatMap((s) => (writes.get(s.acked) as SubWrite).body.destination_ids));
    const r = w.random();
    const someDests = () => {
      const ids = dests.map((d) => d.id).filter(() => w.random() < 0.5);
      return ids.length > 0 ? ids.slice(0, 10) : [pick(w.random, dests).id];
    };
    let op: () => Promise<void>;
    if (dests.length < 2 || (r < 0.2 && dests.length < 8)) {
      op = create(newDestWrite(w));
    } else if (r < 0.4 && subs.length < 10) {
      op = create(newSubWrite(w, someDests()));
    } else if (r < 0.6) {
      const target = pick(w.random, dests);
      op = update(target, newDestWrite(w));
    } else if (r < 0.8 && subs.length > 0) {
      const target = pick(w.random, subs);
      op = update(target, newSubWrite(w, someDests()));
    } else if (r < 0.92 && subs.length > 0) {
      op = remove(pick(w.random, subs));
    } else {
      const free = dests.filter((d) => !referenced.has(d.id));
      if (free.length === 0 || dests.length <= 2) continue;
      op = remove(pick(w.random, free));
    }
    onFlight(+1);
    try {
      await op();
    } catch {
      // The process died with this request in flight: its pending marker stays set.
      onFlight(-1);
      return acknowledged;
    }
    onFlight(-1);
  }
  return acknowledged;
}

/** A resource as found after the kill, from the API or from the file. */
interface Found {
  kind: Kind;
  id: string;
  tag: string;
  /** The fields that must agree with the write `tag`. */
  fields: unknown;
}

function expectedFields(write: Write, withSecret: boolean): unknown {
  if (write.kind === "sub") {
    return {
      metadata: write.body.metadata,
      sources: write.body.sources.map((s) => s.type),
      destinationIds: write.body.destination_ids,
    };
  }
  return {
    metadata: write.body.metadata,
    marker: write.marker,
    ...(withSecret ? { secret: write.secret } : {}),
  };
}

/** A stored or returned target of the two kinds the writers use. */
interface TargetJson {
  kinesis?: { stream_arn?: string; auth?: { creds?: { aws_secret_access_key?: string } } };
  datadog?: { ddtags?: string; api_key?: string };
}
interface DestinationRow {
  id: string;
  description: string;
  metadata: string;
  target: string;
}
interface SubscriptionRow {
  id: string;
  description: string;
  metadata: string;
  sources: string;
  destination_ids: string;
}
interface Listed {
  id: string;
  description: string;
  metadata: string;
  target?: TargetJson;
  sources?: { type: string }[];
  destinations?: { id: string }[];
}

function markerOf(target: TargetJson): string | undefined {
  return target.kinesis?.stream_arn ?? target.datadog?.ddtags;
}

function secretOf(target: TargetJson): string | undefined {
  return target.kinesis?.auth?.creds?.aws_secret_access_key ?? target.datadog?.api_key;
}

/** Reads every resource from the data file (the process must be dead); checks its integrity. */
function readFile(file: string): Found[] {
  const db = new Database(file);
  try {
    expect(db.pragma("integrity_check")).toEqual([{ integrity_check: "ok" }]);
    expect(db.pragma("foreign_key_check")).toEqual([]);
    const found: Found[] = [];
    for (const r of db.prepare("SELECT * FROM event_destinations").all() as DestinationRow[]) {
      const target = JSON.parse(r.target) as TargetJson;
      found.push({
        kind: "dest",
        id: r.id,
        tag: r.description,
        fields: { metadata: r.metadata, marker: markerOf(target), secret: secretOf(target) },
      });
    }
    const links = db
      .prepare("SELECT subscription_id, destination_id FROM subscription_destinations")
      .all() as {
      subscription_id: string;
      destination_id: string;
    }[];
    for (const r of db.prepare("SELECT * FROM event_subscriptions").all() as SubscriptionRow[]) {
      const destinationIds = JSON.parse(r.destination_ids) as string[];
      // The link table agrees with the subscription's list (same transaction).
      expect(
        links
          .filter((l) => l.subscription_id === r.id)
          .map((l) => l.destination_id)
          .sort(),
      ).toEqual([...destinationIds].sort());
      found.push({
        kind: "sub",
        id: r.id,
        tag: r.description,
        fields: { metadata: r.metadata, sources: JSON.parse(r.sources), destinationIds },
      });
    }
    return found;
  } finally {
    db.close();
  }
}

/** Reads every resource over the API of a restarted emulator (all pages). */
async function readApi(send: Send): Promise<Found[]> {
  const found: Found[] = [];
  for (const [collection, kind] of [
    ["event_destinations", "dest"],
    ["event_subscriptions", "sub"],
  ] as const) {
    let before: string | undefined;
    for (;;) {
      const res = await send("GET", `/${collection}?limit=37${before ? `&before_id=${before}` : ""}`);
      expect(res.status).toBe(200);
      const page = res.json() as Record<string, Listed[]> & { next_page_uri: string | null };
      const items = page[collection];
      for (const r of items) {
        found.push(
          kind === "dest"
            ? {
                kind,
                id: r.id,
                tag: r.description,
                fields: { metadata: r.metadata, marker: markerOf(r.target ?? {}) },
              }
            : {
                kind,
                id: r.id,
                tag: r.description,
                fields: {
                  metadata: r.metadata,
                  sources: (r.sources ?? []).map((s) => s.type),
                  destinationIds: (r.destinations ?? []).map((d) => d.id),
                },
              },
        );
        // Secrets never come back over the API.
        if (kind === "dest") expect(secretOf(r.target ?? {})).toBe("");
      }
      if (page.next_page_uri === null) break;
      before = items[items.length - 1].id;
    }
  }
  return found;
}

/**
 * Checks what was found against what the writers know. With `resolve`, the writers' knowledge
 * becomes what was found (pending writes settled either way) for the next round.
 */
function verify(writers: Writer[], found: Found[], withSecret: boolean, resolve: boolean): void {
  const byId = new Map(found.map((f) => [f.id, f]));
  const problems: string[] = [];
  for (const id of deleted) if (byId.has(id)) problems.push(`${id}: acknowledged delete, but it is back`);
  const claimed = new Set<string>();
  for (const w of writers) {
    for (const k of w.known.values()) {
      claimed.add(k.id);
      const f = byId.get(k.id);
      if (!f) {
        if (!k.pendingDelete) problems.push(`${k.id} (${k.kind}, ${k.acked}): acknowledged, but missing`);
        continue;
      }
      const allowed = k.pendingUpdate ? [k.acked, k.pendingUpdate] : [k.acked];
      if (!allowed.includes(f.tag)) {
        problems.push(`${k.id}: holds write ${f.tag}, expected one of ${allowed.join(", ")}`);
        continue;
      }
      const want = expectedFields(writes.get(f.tag)!, withSecret);
      if (JSON.stringify(f.fields) !== JSON.stringify(want))
        problems.push(`${k.id}: fields ${JSON.stringify(f.fields)} are not those of write ${f.tag}`);
    }
  }
  // Anything else must be the one create a writer had in flight.
  for (const f of found) {
    if (claimed.has(f.id)) continue;
    const w = writers.find((x) => x.pendingCreate?.tag === f.tag && x.pendingCreate.kind === f.kind);
    if (!w) {
      problems.push(`${f.id} (${f.kind}, ${f.tag}): exists but no write made it`);
      continue;
    }
    claimed.add(f.id);
    const want = expectedFields(writes.get(f.tag)!, withSecret);
    if (JSON.stringify(f.fields) !== JSON.stringify(want))
      problems.push(`${f.id}: fields ${JSON.stringify(f.fields)} are not those of write ${f.tag}`);
  }
  expect(problems).toEqual([]);
  if (!resolve) return;
  for (const w of writers) {
    for (const k of [...w.known.values()]) {
      const f = byId.get(k.id);
      if (!f) {
        w.known.delete(k.id);
        deleted.add(k.id);
      } else {
        k.acked = f.tag;
        k.pendingUpdate = undefined;
        k.pendingDelete = undefined;
      }
    }
    const made = found.find((f) => f.tag === w.pendingCreate?.tag);
    if (made) w.known.set(made.id, { kind: made.kind, id: made.id, acked: made.tag });
    w.pendingCreate = undefined;
  }
}

describe("emulator crash safety (SIGKILL during a stream of writes)", () => {
  let dir: string;
  let em: SpawnedEmulator | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), "emulator-crash-"));
  });
  afterAll(async () => {
    await em?.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    `keeps every acknowledged write and a sound file across ${KILL_AT.length} kills`,
    async () => {
      const started = Date.now();
      const file = path.join(dir, "data.db");
      const args = ["--port", "0", "--data", file, "--api-key", KEY, "--admin-key", ADMIN];
      const writers: Writer[] = Array.from({ length: WRITERS }, (_, n) => ({
        n,
        random: seededRandom(1000 + n),
        counter: 0,
        known: new Map(),
      }));
      const figures: Figures[] = [];

      for (let round = 0; round <= KILL_AT.length; round++) {
        em = await spawnEmulator(args);
        const c = client(em.url);
        // The restart: everything acknowledged before the last kill is there, over the API.
        if (round > 0) {
          const found = await readApi(c.send);
          verify(writers, found, false, true);
          figures[round - 1].resourcesAfter = found.length;
        }
        if (round === KILL_AT.length) {
          c.close();
          expect(await em.stop("SIGTERM")).toBe(0);
          verify(writers, readFile(file), true, false);
          break;
        }

        const { acks: killAfterAcks, jitterMs } = KILL_AT[round];
        let killed = false;
        let inFlight = 0;
        let inFlightAtKill = 0;
        let acksSoFar = 0;
        let killAfterMs = 0;
        const startedAt = Date.now();
        const proc = em;
        const kill = () => {
          if (killed) return;
          killAfterMs = Date.now() - startedAt;
          inFlightAtKill = inFlight;
          killed = true;
          proc.process.kill("SIGKILL");
        };
        const timers = [setTimeout(kill, 30_000)];
        const acked = await Promise.all(
          writers.map((w) =>
            runWriter(
              w,
              c.send,
              () => killed,
              (d) => (inFlight += d),
              () => {
                if (++acksSoFar === killAfterAcks) timers.push(setTimeout(kill, jitterMs));
              },
            ),
          ),
        );
        timers.forEach(clearTimeout);
        if (!killed) throw new Error("the writers stopped before the kill");
        await em.stop("SIGKILL");
        c.close();
        em = undefined;
        expect(unexpected).toEqual([]);

        // With the process gone: the file is sound and holds every acknowledged write.
        verify(writers, readFile(file), true, false);
        figures.push({
          round: round + 1,
          killAfterAcks,
          killAfterMs,
          acknowledged: acked.reduce((a, b) => a + b, 0),
          inFlightAtKill,
          resourcesAfter: 0,
        });
      }

      const total = figures.reduce((a, f) => a + f.acknowledged, 0);
      console.log(
        `crash safety: ${figures.length} SIGKILLs survived, ${total} acknowledged writes checked, ` +
          `${figures.reduce((a, f) => a + f.inFlightAtKill, 0)} writes in flight at the kills, ` +
          `${((Date.now() - started) / 1000).toFixed(1)} s\n` +
          figures
            .map(
              (f) =>
                `  round ${f.round}: kill ${f.killAfterMs} ms in (after ack #${f.killAfterAcks}), ` +
                `${f.acknowledged} acknowledged, ` +
                `${f.inFlightAtKill} in flight, ${f.resourcesAfter} resources after restart`,
            )
            .join("\n"),
      );
      // The kills happened in the middle of the stream, not before or after it.
      expect(figures.every((f) => f.acknowledged > 0)).toBe(true);
      expect(figures.filter((f) => f.inFlightAtKill > 0).length).toBeGreaterThan(0);
    },
    LONG ? 300_000 : 60_000,
  );
});
