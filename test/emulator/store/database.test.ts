/**
 * The store's database (emulator/store/database.ts): one transaction per write, reopened files.
 */
import path from "node:path";
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
});
