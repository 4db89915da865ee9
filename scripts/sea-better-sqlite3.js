// `better-sqlite3` inside the emulator's self-contained executable (scripts/build-emulator-binaries.js):
// the part of better-sqlite3's API the emulator's store uses (packages/emulator/store), on the
// SQLite built into Node.js 22 (`node:sqlite`, DatabaseSync), since a Single Executable
// Application cannot load a native addon from inside itself. esbuild puts this file in the
// executable's bundle wherever the store requires `better-sqlite3`; the npm package keeps
// better-sqlite3.
//
// What it implements, as better-sqlite3 does:
// - `new Database(path)`: ":memory:" or a file (better-sqlite3's options are not supported);
// - `db.exec(sql)`, `db.prepare(sql)`, `db.pragma(source)` (the rows, as plain objects),
//   `db.close()`, `db.open`, `db.inTransaction`;
// - `db.transaction(fn)`: a function running `fn` in `BEGIN` … `COMMIT` (`.deferred`,
//   `.immediate`, `.exclusive` for the other modes), rolled back when `fn` throws; nested, a
//   savepoint; `fn` must not return a promise;
// - statements: `run` (`{ changes, lastInsertRowid }`), `get`, `all`, `iterate`, `pluck()`; rows
//   are plain objects (node:sqlite's have no prototype).
// Errors are node:sqlite's (`code` "ERR_SQLITE_ERROR", SQLite's message), not better-sqlite3's
// SqliteError; the emulator matches none of them.
"use strict";

/**
 * node:sqlite, loaded without Node.js 22's one-off "SQLite is an experimental feature" warning
 * (the emulator's stderr is for its own messages; the API used here is stable in Node.js 22.23).
 */
function loadSqlite() {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0] && rest[0].type;
    if (type === "ExperimentalWarning" && /SQLite/.test(String(warning))) return;
    return emitWarning.call(process, warning, ...rest);
  };
  try {
    return require("node:sqlite");
  } finally {
    process.emitWarning = emitWarning;
  }
}

const { DatabaseSync } = loadSqlite();

/** A row as better-sqlite3 returns it: a plain object (node:sqlite's rows have a null prototype). */
function plain(row) {
  return row === undefined ? undefined : { ...row };
}

/** A prepared statement (better-sqlite3's Statement, the methods the store calls). */
class Statement {
  /** @param {import("node:sqlite").StatementSync} statement */
  constructor(statement) {
    this.statement = statement;
    this.plucked = false;
  }

  /** Makes `get`, `all` and `iterate` return each row's first column instead of the row. */
  pluck(toggle = true) {
    this.plucked = toggle;
    return this;
  }

  /** @returns {{ changes: number, lastInsertRowid: number | bigint }} */
  run(...params) {
    const r = this.statement.run(...params);
    return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
  }

  /** The first row, or undefined when there is none. */
  get(...params) {
    return this.shape(this.statement.get(...params));
  }

  /** Every row. */
  all(...params) {
    return this.statement.all(...params).map((row) => this.shape(row));
  }

  /** The rows, one at a time. */
  *iterate(...params) {
    for (const row of this.statement.iterate(...params)) yield this.shape(row);
  }

  /** `row` as this statement returns it: a plain object, or its first column when plucked. */
  shape(row) {
    if (row === undefined) return undefined;
    return this.plucked ? Object.values(row)[0] : plain(row);
  }
}

/**
 * `fn` run in a transaction of `db` (`BEGIN <mode>` … `COMMIT`, or a savepoint inside another
 * one), rolled back when it throws; see {@link Database.transaction}.
 */
function transactionFunction(db, fn, mode) {
  return function (...args) {
    const nested = db.depth > 0;
    const savepoint = `sea_better_sqlite3_${db.depth}`;
    db.db.exec(nested ? `SAVEPOINT ${savepoint}` : `BEGIN ${mode}`);
    db.depth += 1;
    let result;
    try {
      result = fn.apply(this, args);
      if (result !== null && typeof result === "object" && typeof result.then === "function")
        throw new TypeError("Transaction function cannot return a promise");
      db.db.exec(nested ? `RELEASE ${savepoint}` : "COMMIT");
    } catch (err) {
      try {
        db.db.exec(nested ? `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}` : "ROLLBACK");
      } catch {
        // SQLite already rolled the transaction back (it does on some errors)
      }
      throw err;
    } finally {
      db.depth -= 1;
    }
    return result;
  };
}

/** A database connection (better-sqlite3's Database, the methods the store calls). */
class Database {
  /**
   * @param {string} filename - ":memory:" or a file path (made when missing).
   * @throws Error (node:sqlite's) when the file cannot be opened.
   */
  constructor(filename, options) {
    if (options !== undefined && Object.keys(options).length > 0)
      throw new Error(
        `better-sqlite3 options (${Object.keys(options).join(", ")}) are not supported in the executable`,
      );
    this.db = new DatabaseSync(filename);
    this.name = filename;
    this.depth = 0;
  }

  /** Whether the connection is open (node:sqlite of 22.23 tells only through errors: true). */
  get open() {
    return this.db.isOpen !== undefined ? this.db.isOpen : true;
  }

  /** Whether a transaction of {@link Database.transaction} is running. */
  get inTransaction() {
    return this.depth > 0;
  }

  /** `sql` prepared once. @throws Error (node:sqlite's) when it is not valid SQL. */
  prepare(sql) {
    return new Statement(this.db.prepare(sql));
  }

  /** Runs `sql` (any number of statements, no parameters). @throws Error (node:sqlite's) when one fails. */
  exec(sql) {
    this.db.exec(sql);
    return this;
  }

  /** `PRAGMA <source>`: its rows as plain objects (`{ simple: true }`: the first row's first column). */
  pragma(source, options = {}) {
    const rows = this.db
      .prepare(`PRAGMA ${source}`)
      .all()
      .map((row) => plain(row));
    return options.simple ? (rows[0] === undefined ? undefined : Object.values(rows[0])[0]) : rows;
  }

  /**
   * `fn` as a transaction: `BEGIN <mode>` before, `COMMIT` after, `ROLLBACK` when it throws; inside
   * another transaction, a savepoint instead.
   * @throws TypeError when `fn` is not a function, or (when called) returns a promise.
   */
  transaction(fn) {
    if (typeof fn !== "function") throw new TypeError("Expected first argument to be a function");
    const run = transactionFunction(this, fn, "DEFERRED");
    run.deferred = run;
    run.immediate = transactionFunction(this, fn, "IMMEDIATE");
    run.exclusive = transactionFunction(this, fn, "EXCLUSIVE");
    return run;
  }

  /** Closes the connection. @throws Error (node:sqlite's) when it is closed already. */
  close() {
    this.db.close();
    return this;
  }
}

module.exports = Database;
module.exports.default = Database;
