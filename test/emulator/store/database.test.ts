/**
 * The store's database (emulator/store/database.ts): one transaction per write, reopened files.
 */
import path from "node:path";
import Database from "better-sqlite3";
import { ErrorReply } from "../../../packages/emulator/errorReply";
import { openStore } from "../../../packages/emulator/store";
import { storedDestination, withMemoryStore } from "../../helpers/emulator-fixtures";
import { useTempDir } from "../../helpers/temp-dir";

describe("store", () => {
  const dir = useTempDir("emulator-store-");

  it("rolls a failed write back completely", () => {
    withMemoryStore((store) => {
      const acct = store.registerAccount("a".repeat(64), true);
      const d = store.createDestination(acct.id, storedDestination());
      const before = store.snapshot();
      expect(() =>
        store.createSubscription(acct.id, {
          metadata: "",
          description: "",
          sources: ["domain_created.v0"],
          destinationIds: [d.id, "ed_000000000000000000000000001"],
        }),
      ).toThrow(ErrorReply);
      const sub = store.createSubscription(acct.id, {
        metadata: "",
        description: "",
        sources: ["domain_created.v0"],
        destinationIds: [d.id],
      });
      const mid = store.snapshot();
      expect(mid.event_subscriptions).toHaveLength(1);
      expect(() =>
        store.updateSubscription(acct.id, sub.id, {
          description: "x",
          destinationIds: ["ed_000000000000000000000000001"],
        }),
      ).toThrow(expect.objectContaining({ code: 223 }));
      expect(() => store.deleteDestination(acct.id, d.id)).toThrow(expect.objectContaining({ code: 409 }));
      expect(store.snapshot()).toEqual(mid);
      expect(before.event_subscriptions).toHaveLength(0);
    });
  });

  it("finds the same account for the same key hash after reopening the file, and keeps ID order", () => {
    const file = path.join(dir(), "a", "b", "store.db");
    const s1 = openStore(file);
    const acct = s1.registerAccount("b".repeat(64), false);
    const d1 = s1.createDestination(acct.id, storedDestination());
    s1.close();
    const s2 = openStore(file);
    try {
      const again = s2.registerAccount("b".repeat(64), true);
      expect(again).toEqual({ id: acct.id, abuseReportsAuthorized: true });
      const d2 = s2.createDestination(acct.id, storedDestination());
      expect(d2.id > d1.id).toBe(true);
      expect(s2.listDestinations(acct.id, { limit: 10 }).items.map((d) => d.id)).toEqual([d2.id, d1.id]);
    } finally {
      s2.close();
    }
  });

  it("adds the request log's later columns to a data file made before them, keeping its entries", () => {
    const file = path.join(dir(), "old-log.db");
    const old = new Database(file);
    // The table as the emulator's first release made it: a data file's past format, not today's schema.
    old.exec(`CREATE TABLE request_log (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      time TEXT NOT NULL,
      method TEXT NOT NULL,
      path TEXT NOT NULL,
      status INTEGER NOT NULL,
      operation_id TEXT NOT NULL,
      account_id TEXT
    ) STRICT`);
    old
      .prepare(
        "INSERT INTO request_log (time, method, path, status, operation_id, account_id) VALUES (?, ?, ?, ?, ?, ?)",
      )
      .run("2026-01-02T03:04:05Z", "GET", "/event_destinations", 200, "op_old", null);
    old.close();

    const store = openStore(file);
    try {
      store.logRequest({
        time: "2026-01-02T03:04:06Z",
        method: "POST",
        path: "/event_destinations",
        status: 503,
        operation_id: "op_new",
        account_id: null,
        fault: "error:503",
        idempotent_replay: true,
      });
      expect(store.requests().map((r) => [r.operation_id, r.fault, r.idempotent_replay])).toEqual([
        ["op_old", null, false],
        ["op_new", "error:503", true],
      ]);
    } finally {
      store.close();
    }
  });

  it("close writes the log's pending entries and closes the file; a second close does nothing", () => {
    const file = path.join(dir(), "twice.db");
    const store = openStore(file);
    const account = store.registerAccount("c".repeat(64), true);
    store.logRequest({
      time: "2026-01-02T03:04:06Z",
      method: "GET",
      path: "/event_destinations",
      status: 200,
      operation_id: "op_pending",
      account_id: account.id,
    });
    store.close();
    expect(() => store.registerAccount("d".repeat(64), true)).toThrow(/not open/);
    expect(() => store.close()).not.toThrow();
    const again = openStore(file);
    try {
      expect(again.requests().map((r) => r.operation_id)).toEqual(["op_pending"]);
    } finally {
      again.close();
    }
  });
});
