/**
 * The request log's writing (packages/emulator/store/requestLog.ts): entries reach the data file
 * on the next tick without a read, a store closed with entries still to write neither loses them
 * nor fails later, a batch that fails leaves the log's bounds counted right, and the byte bound
 * holds entries that fill it exactly. The bounds with many entries and the operator's pages:
 * test/emulator/plugins/requestLog.test.ts.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  openStore,
  REQUEST_LOG_ENTRY_OVERHEAD_BYTES,
  REQUEST_LOG_MAX_BYTES,
  REQUEST_LOG_MAX_ENTRIES,
  REQUEST_LOG_MAX_PATH_CHARS,
  truncateLoggedPath,
} from "../../../packages/emulator/store";
import { requestLogEntry as entry } from "../../helpers/emulator-fixtures";

/** One turn of the event loop: what the log waits before it writes. */
const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "request-log-store-"));
  file = path.join(dir, "data.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The paths the data file holds, read through a connection of its own (not the store's). */
function pathsOnDisk(): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT path FROM request_log ORDER BY seq").all() as { path: string }[]).map(
      (r) => r.path,
    );
  } finally {
    db.close();
  }
}

describe("the request log's writes", () => {
  it("writes each tick's entries to the data file without waiting for a read, tick after tick", async () => {
    const store = openStore(file);
    try {
      store.logRequest(entry("/a"));
      store.logRequest(entry("/b"));
      expect(pathsOnDisk()).toEqual([]); // a batch: not yet, within the same tick
      await nextTick();
      expect(pathsOnDisk()).toEqual(["/a", "/b"]);
      store.logRequest(entry("/c"));
      await nextTick();
      expect(pathsOnDisk()).toEqual(["/a", "/b", "/c"]);
    } finally {
      store.close();
    }
  });

  it("a store closed with entries still to write writes them, and fails neither on the tick it asked for nor later", () => {
    // The ticks the log asks for, run by the test once the file is closed (a failure there would
    // be thrown outside any request: the emulator's process would end).
    const ticks: (() => void)[] = [];
    const spy = jest.spyOn(global, "setImmediate").mockImplementation(((fn: () => void) => {
      ticks.push(fn);
      return {} as NodeJS.Immediate;
    }) as unknown as typeof setImmediate);
    try {
      const store = openStore(file);
      store.logRequest(entry("/before-close"));
      store.logRequest(entry("/before-close, too"));
      expect(ticks).toHaveLength(1); // one write for the tick's entries

      store.close();
      store.logRequest(entry("/after-close"));
      expect(() => ticks.splice(0).forEach((tick) => tick())).not.toThrow();
    } finally {
      spy.mockRestore();
    }
    expect(pathsOnDisk()).toEqual(["/before-close", "/before-close, too"]);
  });

  it("a batch that fails is written not at all, and the bounds still count only what is stored", () => {
    const store = openStore(":memory:");
    try {
      for (let i = 0; i < REQUEST_LOG_MAX_ENTRIES - 1; i++) store.logRequest(entry(`/${i}`));
      expect(store.requests()).toHaveLength(REQUEST_LOG_MAX_ENTRIES - 1);
      // Ten good entries and one SQLite cannot store: the batch's transaction is rolled back.
      for (let i = 0; i < 10; i++) store.logRequest(entry(`/batch/${i}`));
      store.logRequest({ ...entry("/bad"), method: {} as unknown as string });
      expect(() => store.requests()).toThrow(/parameter values/);
      // One more entry fills the log exactly: nothing is dropped.
      store.logRequest(entry("/last"));
      const log = store.requests();
      expect(log).toHaveLength(REQUEST_LOG_MAX_ENTRIES);
      expect([log[0].path, log.at(-1)?.path]).toEqual(["/0", "/last"]);
    } finally {
      store.close();
    }
  });

  it(`keeps entries that fill the ${REQUEST_LOG_MAX_BYTES} bytes exactly, and drops the oldest for one more`, () => {
    const store = openStore(":memory:");
    try {
      // 8,192 entries of 768-byte paths: 8,192 × (768 + 256) bytes is the bound exactly.
      const pathBytes = 1024 - REQUEST_LOG_ENTRY_OVERHEAD_BYTES;
      const count = REQUEST_LOG_MAX_BYTES / (pathBytes + REQUEST_LOG_ENTRY_OVERHEAD_BYTES);
      expect(Number.isInteger(count) && count < REQUEST_LOG_MAX_ENTRIES).toBe(true);
      const p = (i: number) => `/${i}/`.padEnd(pathBytes, "x");
      for (let i = 0; i < count; i++) store.logRequest(entry(p(i)));
      const full = store.requests();
      expect([full.length, full[0].path]).toEqual([count, p(0)]);
      store.logRequest(entry(p(count)));
      const after = store.requests();
      expect([after.length, after[0].path, after.at(-1)?.path]).toEqual([count, p(1), p(count)]);
    } finally {
      store.close();
    }
  });
});

describe("truncateLoggedPath", () => {
  it("keeps a surrogate pair before the cut whole, and the cut where it is", () => {
    const p = "/🙂" + "a".repeat(2 * REQUEST_LOG_MAX_PATH_CHARS);
    const cut = truncateLoggedPath(p);
    expect(cut).toBe(p.slice(0, REQUEST_LOG_MAX_PATH_CHARS) + "…");
    expect(cut).toHaveLength(REQUEST_LOG_MAX_PATH_CHARS + 1);
  });

  it(`leaves a path of exactly ${REQUEST_LOG_MAX_PATH_CHARS} characters as it is`, () => {
    const p = "/" + "a".repeat(REQUEST_LOG_MAX_PATH_CHARS - 1);
    expect(truncateLoggedPath(p)).toBe(p);
  });
});
