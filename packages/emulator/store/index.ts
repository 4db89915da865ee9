/**
 * The emulator's persistent store: one repository per table over one SQLite database, sharing
 * one write-transaction helper (see `database.ts`); the three resources are stored the one way
 * `resourceTable.ts` derives from their contract descriptors. {@link openStore} composes them into the
 * {@link Store} the app uses.
 *
 * @packageDocumentation
 */
import { abuseReportsRepository } from "./abuseReports";
import { accountsRepository } from "./accounts";
import { openDatabase } from "./database";
import { eventDestinationsRepository } from "./eventDestinations";
import { eventSubscriptionsRepository } from "./eventSubscriptions";
import { idempotencyKeysRepository } from "./idempotencyKeys";
import { requestLogRepository } from "./requestLog";
import { RESOURCE_LIST } from "service-contract";
import { tableName } from "./resourceTable";
import type { Store, StoreSnapshot } from "./types";

export { ACCOUNT_ID_PREFIX, notFound } from "./database";
export {
  REQUEST_LOG_ENTRY_OVERHEAD_BYTES,
  REQUEST_LOG_MAX_BYTES,
  REQUEST_LOG_MAX_ENTRIES,
  REQUEST_LOG_MAX_PATH_CHARS,
  truncateLoggedPath,
} from "./requestLog";
export type * from "./types";

/**
 * Opens (creating when needed) the store at `path`: `":memory:"` for a throw-away store, or a
 * file path whose parent directories are created. Sets WAL mode and creates the tables.
 *
 * @throws Error from better-sqlite3 when the file cannot be opened or is not a database.
 */
export function openStore(path: string): Store {
  const base = openDatabase(path);
  const destinations = eventDestinationsRepository(base);
  const { exists: _exists, ...destinationMethods } = destinations;
  const log = requestLogRepository(base);
  return {
    path,
    ...accountsRepository(base),
    ...abuseReportsRepository(base),
    ...destinationMethods,
    ...eventSubscriptionsRepository(base, destinations.exists),
    ...idempotencyKeysRepository(base),
    logRequest: log.logRequest,
    requests: log.requests,
    clearRequests: log.clearRequests,
    snapshot() {
      const all = (sql: string) => base.db.prepare(sql).all();
      const resources = RESOURCE_LIST.map((d) => [
        tableName(d),
        all(`SELECT * FROM ${tableName(d)} ORDER BY id`),
      ]);
      return {
        accounts: all("SELECT * FROM accounts ORDER BY id"),
        api_keys: all("SELECT * FROM api_keys ORDER BY account_id, key_hash"),
        ...(Object.fromEntries(resources) as Pick<
          StoreSnapshot,
          "abuse_reports" | "event_destinations" | "event_subscriptions"
        >),
        subscription_destinations: all(
          "SELECT * FROM subscription_destinations ORDER BY subscription_id, destination_id",
        ),
        idempotency_keys: all("SELECT * FROM idempotency_keys ORDER BY account_id, key"),
      };
    },
    close() {
      // A second close does nothing: the log is closed, and better-sqlite3's close of a closed
      // database returns.
      log.close();
      base.db.close();
    },
  };
}
