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
  const bytesOf = db.prepare<[number], { bytes: number | null }>(
    "SELECT sum(length(CAST(path AS BLOB)) + ?) AS bytes FROM request_log",
  );
  // Deletes the oldest entries until the newest ones fit in the byte budget.
  const trimBytes = db.prepare<[number, number]>(
    `DELETE FROM request_log WHERE seq <= (
       SELECT seq FROM (
         SELECT seq, sum(length(CAST(path AS BLOB)) + ?) OVER (ORDER BY seq DESC) AS total FROM request_log
       ) WHERE total > ? ORDER BY seq DESC LIMIT 1)`,
  );
  const clear = db.prepare("DELETE FROM request_log");
  const trimCount = db.prepare<[number]>(
    "DELETE FROM request_log WHERE seq <= (SELECT max(seq) FROM request_log) - ?",
  );

  let pending: RequestLogInput[] = [];
  let flushScheduled = false;
  let closed = false;
  const entryBytes = (path: string) => Buffer.byteLength(path, "utf8") + REQUEST_LOG_ENTRY_OVERHEAD_BYTES;
  let logBytes = bytesOf.get(REQUEST_LOG_ENTRY_OVERHEAD_BYTES)?.bytes ?? 0;
  const write = db.transaction((entries: RequestLogInput[]) => {
    for (const e of entries) {
      const path = truncateLoggedPath(e.path);
      logBytes += entryBytes(path);
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
    }
    // `logBytes` is exact after a trim and grows by each insert in between.
    let trimmed = trimCount.run(REQUEST_LOG_MAX_ENTRIES).changes > 0;
    if (logBytes > REQUEST_LOG_MAX_BYTES) {
      trimBytes.run(REQUEST_LOG_ENTRY_OVERHEAD_BYTES, REQUEST_LOG_MAX_BYTES);
      trimmed = true;
    }
    if (trimmed) logBytes = bytesOf.get(REQUEST_LOG_ENTRY_OVERHEAD_BYTES)?.bytes ?? 0;
  });
  function flush(): void {
    flushScheduled = false;
    if (pending.length === 0 || closed) return;
    const entries = pending;
    pending = [];
    write(entries);
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
      logBytes = 0;
    },
    close() {
      flush();
      closed = true;
    },
  };
}
