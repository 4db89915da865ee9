/**
 * The `event_destinations` table: destinations with their target (a JSON column, secrets
 * included; responses blank them). A destination a subscription still uses cannot be deleted.
 * Reference: docs/service-api.md § Event destinations.
 *
 * @packageDocumentation
 */
import { ID_PREFIX } from "../../contract/limits";
import { ServiceError } from "../errors";
import type { DestinationRecord, StoredTarget } from "../resources";
import { notFound, ownedRows, type StoreBase } from "./database";
import type { Store } from "./types";

interface DestinationRow {
  id: string;
  account_id: string;
  created_at: string;
  metadata: string;
  description: string;
  format: string;
  target: string;
}

function toDestination(r: DestinationRow): DestinationRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    createdAt: r.created_at,
    metadata: r.metadata,
    description: r.description,
    format: r.format,
    target: JSON.parse(r.target) as StoredTarget,
  };
}

/** The destination methods of the store, and `exists` for the subscriptions' references. */
export function eventDestinationsRepository({
  db,
  write,
  mint,
}: StoreBase): Pick<
  Store,
  "createDestination" | "getDestination" | "listDestinations" | "updateDestination" | "deleteDestination"
> & { exists(accountId: string, id: string): boolean } {
  const insert = db.prepare<[string, string, string, string, string, string, string]>(
    "INSERT INTO event_destinations (id, account_id, created_at, metadata, description, format, target) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const rows = ownedRows(db, "event_destinations", "event destination", toDestination);
  const existsStmt = db.prepare<[string, string], { one: number }>(
    "SELECT 1 AS one FROM event_destinations WHERE id = ? AND account_id = ?",
  );
  const update = db.prepare<[string, string, string, string, string]>(
    "UPDATE event_destinations SET metadata = ?, description = ?, format = ?, target = ? WHERE id = ?",
  );
  const remove = db.prepare<[string]>("DELETE FROM event_destinations WHERE id = ?");
  const referencing = db.prepare<[string], { subscription_id: string }>(
    "SELECT subscription_id FROM subscription_destinations WHERE destination_id = ? ORDER BY subscription_id LIMIT 5",
  );
  const exists = (accountId: string, id: string) => existsStmt.get(id, accountId) !== undefined;
  return {
    exists,

    createDestination(accountId, input) {
      return write(() => {
        const { id, createdAt } = mint(ID_PREFIX.eventDestination);
        insert.run(
          id,
          accountId,
          createdAt,
          input.metadata,
          input.description,
          input.format,
          JSON.stringify(input.target),
        );
        return { id, accountId, createdAt, ...input };
      });
    },

    getDestination: rows.get,
    listDestinations: rows.list,

    updateDestination(accountId, id, patch) {
      return write(() => {
        const d = rows.require(accountId, id);
        const next: DestinationRecord = {
          ...d,
          metadata: patch.metadata ?? d.metadata,
          description: patch.description ?? d.description,
          format: patch.format ?? d.format,
          target: patch.target ?? d.target,
        };
        update.run(next.metadata, next.description, next.format, JSON.stringify(next.target), id);
        return next;
      });
    },

    deleteDestination(accountId, id) {
      write(() => {
        if (!exists(accountId, id)) throw notFound("event destination", id);
        const refs = referencing.all(id);
        if (refs.length > 0) {
          throw new ServiceError(
            409,
            `event destination ${id} is still used by event subscription(s) ${refs.map((r) => r.subscription_id).join(", ")}; remove it from them first`,
          );
        }
        remove.run(id);
      });
    },
  };
}
