/**
 * One way of storing every resource of the service: a table per contract descriptor (named by its
 * collection path, IDs minted with its prefix), one column per field of its create body (named by
 * the wire name; lists and objects as JSON), plus the columns of state the service keeps besides
 * (an abuse report's hostname reviews). A field added to a create schema gets its column, in new
 * data files and, holding the field's default, in older ones.
 *
 * Records are `{ id, accountId, createdAt }` and one member per column, named by the field's
 * TypeScript name. The repositories of each resource add what is its own (references between
 * resources, limits, reviews) around one {@link ResourceTable}.
 *
 * @packageDocumentation
 */
import type Database from "better-sqlite3";
import { writableFields, type ResourceDescriptor } from "service-contract";
import { notFound, type StoreBase } from "./database";
import type { StoredRecord } from "../records";
import type { Page, PageQuery } from "./types";

/** A column of a resource table after `id`, `account_id` and `created_at`. */
export interface Column {
  /** Column name: the field's wire name, e.g. `destination_ids`. */
  column: string;
  /** Member of the record: the field's TypeScript name, e.g. `destinationIds`. */
  key: string;
  /** A list or an object, held as JSON text. */
  structured: boolean;
  /** Value of the rows already stored when the column is added to an older data file. */
  default: unknown;
}

/** The members of a record its columns hold. */
export type Fields<T extends StoredRecord> = Omit<T, keyof StoredRecord>;

/** The rows of one resource's table, as records (see the module comment). */
export interface ResourceTable<T extends StoredRecord> {
  /** The table: the descriptor's collection path without its `/`, e.g. `event_destinations`. */
  readonly name: string;
  /** Stores a new record of the account with a new ID of the resource's kind; call inside `write`. */
  insert(accountId: string, fields: Fields<T>): T;
  /** The record `id` of the account; `undefined` when none. */
  get(accountId: string, id: string): T | undefined;
  /** The record `id` of any account (operator endpoints); `undefined` when none. */
  getAny(id: string): T | undefined;
  /** The record `id` of the account. @throws ErrorReply 404 when none. */
  require(accountId: string, id: string): T;
  /** One page of the account's records, newest first. */
  list(accountId: string, query: PageQuery): Page<T>;
  /** Writes every column of `record` back; call inside `write`. */
  save(record: T): void;
  /** Deletes the record `id`; call inside `write`. */
  remove(id: string): void;
  /** Whether `id` is a record of the account. */
  exists(accountId: string, id: string): boolean;
  /** How many records the account has. */
  count(accountId: string): number;
  /** The 404 of a record that does not exist (in the account). */
  notFound(id: string): Error;
}

/** The table of a descriptor: `/event_destinations` → `event_destinations`. */
export function tableName(descriptor: ResourceDescriptor): string {
  return descriptor.path.replace(/^\//, "");
}

/** The columns of a descriptor's create body, then `extra` ones. */
export function columnsOf(descriptor: ResourceDescriptor, extra: readonly Column[] = []): Column[] {
  return [
    ...writableFields(descriptor.schemas.create).map((f) => ({
      column: f.wire,
      key: f.name,
      structured: f.structured,
      default: f.default,
    })),
    ...extra,
  ];
}

/** Creates the table when missing, and adds each column an older data file lacks. */
function createTable(db: Database.Database, table: string, columns: readonly Column[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  created_at TEXT NOT NULL,
  ${columns.map((c) => `${c.column} TEXT NOT NULL`).join(",\n  ")}
) STRICT;
CREATE INDEX IF NOT EXISTS ${table}_by_account ON ${table}(account_id, id);`);
  const have = new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name));
  for (const c of columns) {
    if (have.has(c.column)) continue;
    const fallback = c.structured ? JSON.stringify(c.default ?? null) : String(c.default ?? "");
    db.exec(
      `ALTER TABLE ${table} ADD COLUMN ${c.column} TEXT NOT NULL DEFAULT '${fallback.replace(/'/g, "''")}'`,
    );
  }
}

type Row = { id: string; account_id: string; created_at: string } & Record<string, string>;

/**
 * The table of `descriptor` (created or completed when needed, its newest ID observed so that new
 * IDs sort after it), with `extra` columns after the create body's.
 */
export function resourceTable<T extends StoredRecord>(
  { db, mint, observe }: StoreBase,
  descriptor: ResourceDescriptor,
  extra: readonly Column[] = [],
): ResourceTable<T> {
  const name = tableName(descriptor);
  const columns = columnsOf(descriptor, extra);
  createTable(db, name, columns);
  const newest = db.prepare<[], { id: string | null }>(`SELECT max(id) AS id FROM ${name}`).get();
  if (newest?.id) observe(newest.id, descriptor.idPrefix);

  const names = columns.map((c) => c.column);
  const insert = db.prepare<unknown[]>(
    `INSERT INTO ${name} (id, account_id, created_at, ${names.join(", ")}) VALUES (?, ?, ?, ${names.map(() => "?").join(", ")})`,
  );
  const update = db.prepare<unknown[]>(
    `UPDATE ${name} SET ${names.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`,
  );
  const remove = db.prepare<[string]>(`DELETE FROM ${name} WHERE id = ?`);
  const byId = db.prepare<[string], Row>(`SELECT * FROM ${name} WHERE id = ?`);
  const ofAccount = db.prepare<[string, string], Row>(
    `SELECT * FROM ${name} WHERE id = ? AND account_id = ?`,
  );
  const first = db.prepare<[string, number], Row>(
    `SELECT * FROM ${name} WHERE account_id = ? ORDER BY id DESC LIMIT ?`,
  );
  const before = db.prepare<[string, string, number], Row>(
    `SELECT * FROM ${name} WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
  );
  const countOf = db.prepare<[string], number>(`SELECT COUNT(*) FROM ${name} WHERE account_id = ?`).pluck();

  const toRecord = (r: Row): T => {
    const record: Record<string, unknown> = { id: r.id, accountId: r.account_id, createdAt: r.created_at };
    for (const c of columns) record[c.key] = c.structured ? JSON.parse(r[c.column]) : r[c.column];
    return record as T;
  };
  const values = (fields: Fields<T>): string[] => {
    const given = fields as unknown as Record<string, unknown>;
    return columns.map((c) => (c.structured ? JSON.stringify(given[c.key]) : String(given[c.key])));
  };
  const get = (accountId: string, id: string) => {
    const row = ofAccount.get(id, accountId);
    return row === undefined ? undefined : toRecord(row);
  };
  const missing = (id: string) => notFound(descriptor.names.singular, id);

  return {
    name,
    insert(accountId, fields) {
      const { id, createdAt } = mint(descriptor.idPrefix);
      insert.run(id, accountId, createdAt, ...values(fields));
      return { id, accountId, createdAt, ...fields } as unknown as T;
    },
    get,
    getAny(id) {
      const row = byId.get(id);
      return row === undefined ? undefined : toRecord(row);
    },
    require(accountId, id) {
      const record = get(accountId, id);
      if (record === undefined) throw missing(id);
      return record;
    },
    list(accountId, { limit, beforeId }) {
      const rows =
        beforeId === undefined ? first.all(accountId, limit + 1) : before.all(accountId, beforeId, limit + 1);
      // One row more than the page tells whether more follow.
      const hasMore = rows.length > limit;
      return { items: (hasMore ? rows.slice(0, limit) : rows).map(toRecord), hasMore };
    },
    save(record) {
      update.run(...values(record), record.id);
    },
    remove(id) {
      remove.run(id);
    },
    exists: (accountId, id) => ofAccount.get(id, accountId) !== undefined,
    count: (accountId) => countOf.get(accountId) ?? 0,
    notFound: missing,
  };
}
