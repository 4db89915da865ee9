/**
 * The `event_destinations` table: one column per field of the contract's create body (the
 * target a JSON column, secrets included; responses blank them). A destination a subscription still uses cannot be deleted.
 * Reference: docs/service-api.md § Event destinations.
 *
 * @packageDocumentation
 */
import { ID_PREFIX } from "service-contract";
import { ServiceError } from "../errors";
import { EventDestinationCreate } from "service-contract";
import { writableFields } from "service-contract";
import type { DestinationFields, DestinationRecord } from "../resources";
import { notFound, ownedRows, type StoreBase } from "./database";
import type { Store } from "./types";

/**
 * The columns of the table after `id`, `account_id` and `created_at`: one per field of the
 * contract's create body, named by its wire name; lists and objects (the target) hold JSON.
 */
const FIELDS = writableFields(EventDestinationCreate);
const COLUMNS = FIELDS.map((f) => f.wire);

type Row = { id: string; account_id: string; created_at: string } & Record<string, string>;

function toDestination(r: Row): DestinationRecord {
  const record: Record<string, unknown> = { id: r.id, accountId: r.account_id, createdAt: r.created_at };
  for (const f of FIELDS) record[f.wire] = f.structured ? JSON.parse(r[f.wire]) : r[f.wire];
  return record as DestinationRecord;
}

/** The column values of `fields`, in {@link COLUMNS} order. */
function columnValues(fields: DestinationFields): string[] {
  const values = fields as unknown as Record<string, unknown>;
  return FIELDS.map((f) => (f.structured ? JSON.stringify(values[f.wire]) : String(values[f.wire])));
}

/**
 * Adds the column of each contract field the table lacks (a data file made before the field
 * existed), holding the field's default for the rows already there.
 */
function addMissingColumns(db: StoreBase["db"]): void {
  const have = new Set(
    (db.pragma("table_info(event_destinations)") as { name: string }[]).map((c) => c.name),
  );
  for (const f of FIELDS) {
    if (have.has(f.wire)) continue;
    const fallback = f.structured ? JSON.stringify(f.default ?? null) : String(f.default ?? "");
    db.exec(
      `ALTER TABLE event_destinations ADD COLUMN ${f.wire} TEXT NOT NULL DEFAULT '${fallback.replace(/'/g, "''")}'`,
    );
  }
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
  addMissingColumns(db);
  const insert = db.prepare<string[]>(
    `INSERT INTO event_destinations (id, account_id, created_at, ${COLUMNS.join(", ")}) VALUES (?, ?, ?, ${COLUMNS.map(() => "?").join(", ")})`,
  );
  const rows = ownedRows(db, "event_destinations", "event destination", toDestination);
  const existsStmt = db.prepare<[string, string], { one: number }>(
    "SELECT 1 AS one FROM event_destinations WHERE id = ? AND account_id = ?",
  );
  const update = db.prepare<string[]>(
    `UPDATE event_destinations SET ${COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
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
        insert.run(id, accountId, createdAt, ...columnValues(input));
        return { id, accountId, createdAt, ...input };
      });
    },

    getDestination: rows.get,
    listDestinations: rows.list,

    updateDestination(accountId, id, patch) {
      return write(() => {
        const d = rows.require(accountId, id);
        const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
        const next = { ...d, ...given } as DestinationRecord;
        update.run(...columnValues(next), id);
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
