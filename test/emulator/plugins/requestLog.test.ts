/**
 * The request log is bounded by count and by bytes, keeps long paths cut short, and is read in
 * pages through `GET /_operator/requests`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path_ from "node:path";
import { REQUEST_LOG_PAGE_MAX } from "../../../packages/emulator/app";
import {
  openStore,
  REQUEST_LOG_ENTRY_OVERHEAD_BYTES,
  REQUEST_LOG_MAX_BYTES,
  REQUEST_LOG_MAX_ENTRIES,
  REQUEST_LOG_MAX_PATH_CHARS,
  type Store,
} from "../../../packages/emulator/store";
import { getRequestLog, rawRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { expectError, requestLogEntry as entry } from "../../helpers/emulator-fixtures";

describe("request log bounds (store)", () => {
  let store: Store;
  beforeEach(() => {
    store = openStore(":memory:");
  });
  afterEach(() => store.close());

  it(`keeps only the newest ${REQUEST_LOG_MAX_ENTRIES} entries`, () => {
    const total = REQUEST_LOG_MAX_ENTRIES + 500;
    for (let i = 0; i < total; i++) store.logRequest(entry(`/n/${i}`));
    const log = store.requests();
    expect(log).toHaveLength(REQUEST_LOG_MAX_ENTRIES);
    expect(log[0].path).toBe(`/n/500`);
    expect(log.at(-1)?.path).toBe(`/n/${total - 1}`);
  });

  it(`cuts paths after ${REQUEST_LOG_MAX_PATH_CHARS} characters and marks the cut`, () => {
    const long = "/event_subscriptions/esb_" + "a".repeat(16 * 1024);
    store.logRequest(entry(long));
    store.logRequest(entry("/short"));
    const [first, second] = store.requests();
    expect(first.path).toBe(long.slice(0, REQUEST_LOG_MAX_PATH_CHARS) + "…");
    expect(second.path).toBe("/short");
  });

  it("never cuts a path inside a surrogate pair", () => {
    const path = "/" + "a".repeat(REQUEST_LOG_MAX_PATH_CHARS - 2) + "🙂tail";
    store.logRequest(entry(path));
    expect(store.requests()[0].path).toBe("/" + "a".repeat(REQUEST_LOG_MAX_PATH_CHARS - 2) + "…");
  });

  it(`keeps at most ${REQUEST_LOG_MAX_BYTES} bytes, dropping the oldest entries first`, () => {
    const path = (i: number) => `/${i}/`.padEnd(REQUEST_LOG_MAX_PATH_CHARS, "x");
    const perEntry = REQUEST_LOG_MAX_PATH_CHARS + REQUEST_LOG_ENTRY_OVERHEAD_BYTES;
    const fits = Math.floor(REQUEST_LOG_MAX_BYTES / perEntry);
    const total = fits * 2;
    for (let i = 0; i < total; i++) store.logRequest(entry(path(i)));
    const log = store.requests();
    const bytes = log.reduce((n, e) => n + Buffer.byteLength(e.path) + REQUEST_LOG_ENTRY_OVERHEAD_BYTES, 0);
    expect(bytes).toBeLessThanOrEqual(REQUEST_LOG_MAX_BYTES);
    expect(log).toHaveLength(fits);
    expect(log.at(-1)?.path).toBe(path(total - 1));
  });
});

describe("request log bounds, one write at a time (as sequential traffic writes it)", () => {
  /** The newest entries that fit both bounds: what the log must hold after logging `paths`. */
  const newestThatFit = (paths: string[]) => {
    const kept: string[] = [];
    let bytes = 0;
    for (let i = paths.length - 1; i >= 0 && kept.length < REQUEST_LOG_MAX_ENTRIES; i--) {
      const size = Buffer.byteLength(paths[i]) + REQUEST_LOG_ENTRY_OVERHEAD_BYTES;
      if (bytes + size > REQUEST_LOG_MAX_BYTES) break;
      bytes += size;
      kept.unshift(paths[i]);
    }
    return kept;
  };
  // Short paths make the count bind, runs of long ones the bytes.
  const path = (i: number) =>
    Math.floor(i / 4000) % 2 === 1 ? `/${i}/`.padEnd(REQUEST_LOG_MAX_PATH_CHARS, "x") : `/${i}`;
  const logOneByOne = (store: Store, from: number, to: number, pathOf = path) => {
    for (let i = from; i < to; i++) {
      store.logRequest(entry(pathOf(i)));
      store.requests(Number.MAX_SAFE_INTEGER, 1); // writes it now, reads nothing
    }
  };

  it.each<[string, (i: number) => string, number]>([
    ["short paths: the count binds", (i) => `/${i}`, REQUEST_LOG_MAX_ENTRIES],
    ["runs of long paths: the bytes bind", path, REQUEST_LOG_MAX_ENTRIES - 1],
  ])("keeps exactly the newest entries within both bounds (%s)", (_what, pathOf, atMost) => {
    const store = openStore(":memory:");
    try {
      const total = REQUEST_LOG_MAX_ENTRIES + 9000;
      logOneByOne(store, 0, total, pathOf);
      const all = Array.from({ length: total }, (_, i) => pathOf(i));
      const kept = newestThatFit(all);
      expect(kept.length).toBeLessThanOrEqual(atMost);
      expect(store.requests().map((e) => e.path)).toEqual(kept);
    } finally {
      store.close();
    }
  });

  it("a store reopened on a data file counts the entries it holds", () => {
    const dir = mkdtempSync(path_.join(tmpdir(), "request-log-"));
    const file = path_.join(dir, "data.db");
    try {
      let store = openStore(file);
      logOneByOne(store, 0, 9000); // 4,000 long paths: most of the byte bound
      store.close();
      store = openStore(file);
      logOneByOne(store, 9000, 14000); // 1,000 more: over it
      const all = Array.from({ length: 14000 }, (_, i) => path(i));
      const kept = newestThatFit(all);
      expect(kept.length).toBeLessThan(all.length);
      expect(store.requests().map((e) => e.path)).toEqual(kept);
      store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("GET /_operator/requests pages", () => {
  let em: RunningEmulator;
  const get = (query: string) =>
    rawRequest({
      method: "GET",
      url: `${em.url}/_operator/requests${query}`,
      headers: { authorization: `Bearer ${em.adminKey}` },
    });

  beforeAll(async () => {
    em = await startEmulator();
    for (let i = 0; i < REQUEST_LOG_PAGE_MAX * 2 + 10; i++) em.store.logRequest(entry(`/p/${i}`));
  });
  afterAll(() => em.close());

  it(`answers at most ${REQUEST_LOG_PAGE_MAX} entries and links the next page`, async () => {
    const first = (await get("")).json();
    expect(first.requests).toHaveLength(REQUEST_LOG_PAGE_MAX);
    expect(first.next_page_uri).toBe(
      `${em.url}/_operator/requests?since=${first.requests.at(-1).seq}&limit=${REQUEST_LOG_PAGE_MAX}`,
    );
  });

  it("pages through every entry once, in order, and ends with next_page_uri null", async () => {
    const seen: string[] = [];
    let query = "?limit=700";
    for (;;) {
      const page = (await get(query)).json();
      seen.push(...page.requests.map((r: { path: string }) => r.path));
      if (page.next_page_uri === null) break;
      query = new URL(page.next_page_uri).search;
    }
    const all = (await getRequestLog(em.url, em.adminKey)).requests.map((r) => r.path);
    expect(seen).toEqual(all);
    expect(seen.filter((p) => p.startsWith("/p/"))).toEqual(
      Array.from({ length: REQUEST_LOG_PAGE_MAX * 2 + 10 }, (_, i) => `/p/${i}`),
    );
  });

  it.each([["0"], [String(REQUEST_LOG_PAGE_MAX + 1)], ["-1"], ["abc"], ["1.5"], [""]])(
    "rejects limit=%s with 233",
    async (limit) => {
      expectError(await get(`?limit=${limit}`), 400, 233);
    },
  );
});
