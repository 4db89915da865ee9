/**
 * The `request_log` table: every public request the emulator answered, written in batches (at
 * the latest on the next tick, and before any read), bounded by count and by bytes, read in
 * pages by the operator.
 *
 * @packageDocumentation
 */
import type { StoreBase } from "./database";
import type { RequestLogEntry, RequestLogInput, Store } from "./types";

/** The request log keeps at most this many most recent entries; older ones are dropped. */
export const REQUEST_LOG_MAX_ENTRIES = 20_000;

/**
 * The request log keeps at most this many **bytes** of entries (see
 * {@link REQUEST_LOG_ENTRY_OVERHEAD_BYTES}); the oldest entries are dropped first. 8 MiB.
 */
export const REQUEST_LOG_MAX_BYTES = 8 * 1024 * 1024;

/** What one entry counts towards {@link REQUEST_LOG_MAX_BYTES} besides its path's UTF-8 bytes. */
export const REQUEST_LOG_ENTRY_OVERHEAD_BYTES = 256;

/**
 * Longest path kept in the request log, in **characters** (UTF-16 code units); a longer path is
 * cut there and ends with `…`.
 */
export const REQUEST_LOG_MAX_PATH_CHARS = 1024;

/** `path` cut to {@link REQUEST_LOG_MAX_PATH_CHARS} characters plus `…` when it is longer. */
export function truncateLoggedPath(path: string): string {
  if (path.length <= REQUEST_LOG_MAX_PATH_CHARS) return path;
  let cut = path.slice(0, REQUEST_LOG_MAX_PATH_CHARS);
  // Never end on the first half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut + "…";
}

interface RequestLogRow extends Omit<RequestLogEntry, "idempotent_replay"> {
  idempotent_replay: number;
}

/** The request log methods of the store, and `flush` / `close` for the store's own close. */
export function requestLogRepository({ db }: StoreBase): Pick<
  Store,
  "logRequest" | "requests" | "clearRequests"
> & {
  close(): void;
} {
  const insert = db.prepare<[string, string, string, number, string, string | null, string | null, number]>(
    "INSERT INTO request_log (time, method, path, status, operation_id, account_id, fault, idempotent_replay) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const since = db.prepare<[number], RequestLogRow>("SELECT * FROM request_log WHERE seq > ? ORDER BY seq");
  const page = db.prepare<[number, number], RequestLogRow>(
    "SELECT * FROM request_log WHERE seq > ? ORDER BY seq LIMIT ?",
  );
  const totals = db.prepare<[number], { entries: number; bytes: number | null }>(
    "SELECT count(*) AS entries, sum(length(CAST(path AS BLOB)) + ?) AS bytes FROM request_log",
  );
  const oldestFirst = db.prepare<[], { seq: number; bytes: number }>(
    "SELECT seq, length(CAST(path AS BLOB)) AS bytes FROM request_log ORDER BY seq",
  );
  const dropUpTo = db.prepare<[number]>("DELETE FROM request_log WHERE seq <= ?");
  const clear = db.prepare("DELETE FROM request_log");

  let pending: RequestLogInput[] = [];
  let flushScheduled = false;
  let closed = false;
  const entryBytes = (pathBytes: number) => pathBytes + REQUEST_LOG_ENTRY_OVERHEAD_BYTES;
  // The log's size, counted once at open and then kept up to date by every insert and drop, so
  // that logging costs the same whatever the log holds (a full log drops its oldest entries, a
  // few per write, without summing the table again).
  const initial = totals.get(REQUEST_LOG_ENTRY_OVERHEAD_BYTES);
  let logEntries = initial?.entries ?? 0;
  let logBytes = initial?.bytes ?? 0;
  /** Drops the oldest entries until both bounds hold; reads only the entries it drops. */
  function trim(): void {
    if (logEntries <= REQUEST_LOG_MAX_ENTRIES && logBytes <= REQUEST_LOG_MAX_BYTES) return;
    let last: number | undefined;
    for (const row of oldestFirst.iterate()) {
      if (logEntries <= REQUEST_LOG_MAX_ENTRIES && logBytes <= REQUEST_LOG_MAX_BYTES) break;
      last = row.seq;
      logEntries -= 1;
      logBytes -= entryBytes(row.bytes);
    }
    if (last !== undefined) dropUpTo.run(last);
  }
  const write = db.transaction((entries: RequestLogInput[]) => {
    for (const e of entries) {
      const path = truncateLoggedPath(e.path);
      insert.run(
        e.time,
        e.method,
        path,
        e.status,
        e.operation_id,
        e.account_id,
        e.fault ?? null,
        e.idempotent_replay ? 1 : 0,
      );
      logEntries += 1;
      logBytes += entryBytes(Buffer.byteLength(path, "utf8"));
    }
    trim();
  });
  function flush(): void {
    flushScheduled = false;
    if (pending.length === 0) return;
    const entries = pending;
    pending = [];
    try {
      write(entries);
    } catch (err) {
      // The transaction was rolled back: count the log again.
      const now = totals.get(REQUEST_LOG_ENTRY_OVERHEAD_BYTES);
      logEntries = now?.entries ?? 0;
      logBytes = now?.bytes ?? 0;
      throw err;
    }
  }
  return {
    logRequest(entry) {
      if (closed) return;
      pending.push(entry);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flush);
      }
    },
    requests(after = 0, limit) {
      flush();
      const rows = limit === undefined ? since.all(after) : page.all(after, limit);
      return rows.map((r) => ({ ...r, idempotent_replay: r.idempotent_replay === 1 }));
    },
    clearRequests() {
      flush();
      clear.run();
      logEntries = 0;
      logBytes = 0;
    },
    close() {
      flush();
      closed = true;
    },
  };
}
