/**
 * The `event_destinations` repository: its columns are the contract's create fields, so a data
 * file made before a field existed still opens, and its rows read the field's default.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { EventDestinationCreate } from "service-contract";
import { writableFields } from "service-contract";
import { openStore } from "../../../packages/emulator/store";
import { refusal, storedDestination, withMemoryStore } from "../../helpers/emulator-fixtures";
import { useTempDir } from "../../helpers/temp-dir";

const datadog = { datadog: { api_key: "k", ddtags: "t", service: "", ddsite: "" } };

describe("event destinations table", () => {
  const dir = useTempDir("emulator-destinations-");

  it("stores every create field and reads it back, target as JSON with its secret", () => {
    withMemoryStore((store) => {
      const acct = store.registerAccount("c".repeat(64), false);
      const d = store.createDestination(
        acct.id,
        storedDestination({ metadata: "m", description: "d", target: datadog }),
      );
      expect(store.getDestination(acct.id, d.id)).toEqual(d);
      const raw = store.snapshot().event_destinations[0] as Record<string, unknown>;
      // One column per field of the contract's create body, after the three every table has.
      const fields = writableFields(EventDestinationCreate).map((f) => f.wire);
      expect(Object.keys(raw)).toEqual(["id", "account_id", "created_at", ...fields]);
      expect(fields).toEqual(expect.arrayContaining(["metadata", "description", "format", "target"]));
      expect(JSON.parse(raw.target as string)).toEqual(datadog);
      const next = store.updateDestination(acct.id, d.id, { description: "e" });
      expect(next).toEqual({ ...d, description: "e" });
      expect(store.getDestination(acct.id, d.id)).toEqual(next);
    });
  });

  it("opens a data file whose table lacks a field's column: adds it, old rows hold the default", () => {
    const file = path.join(dir(), "old.db");
    const s1 = openStore(file);
    const acct = s1.registerAccount("d".repeat(64), false);
    const d = s1.createDestination(
      acct.id,
      storedDestination({ metadata: "m", description: "kept?", target: datadog }),
    );
    s1.close();
    // A file of a release before `description` and `format` existed.
    const raw = new Database(file);
    raw.exec("ALTER TABLE event_destinations DROP COLUMN description");
    raw.exec("ALTER TABLE event_destinations DROP COLUMN format");
    raw.close();

    const s2 = openStore(file);
    try {
      expect(d.format).toBe("json");
      expect(s2.getDestination(acct.id, d.id)).toEqual({ ...d, description: "", format: "json" });
      const e = s2.createDestination(acct.id, storedDestination({ description: "new", target: datadog }));
      expect(s2.getDestination(acct.id, e.id)?.description).toBe("new");
    } finally {
      s2.close();
    }
  });
});

describe("event destinations repository", () => {
  it("an update keeps the fields its patch leaves undefined, and replaces those it gives", () => {
    withMemoryStore((store) => {
      const acct = store.registerAccount("d".repeat(64), false);
      const d = store.createDestination(acct.id, storedDestination({ metadata: "m", description: "d" }));
      const next = store.updateDestination(acct.id, d.id, { description: "new", metadata: undefined });
      expect(next).toEqual({ ...d, description: "new" });
      expect(store.getDestination(acct.id, d.id)).toEqual(next);
    });
  });

  it("a delete while subscriptions use it answers 409 naming the first five, and keeps it", () => {
    withMemoryStore((store) => {
      const acct = store.registerAccount("e".repeat(64), false);
      const d = store.createDestination(acct.id, storedDestination());
      const subs = Array.from(
        { length: 6 },
        () =>
          store.createSubscription(acct.id, {
            metadata: "",
            description: "",
            sources: ["ip_policy_created.v0"],
            destinationIds: [d.id],
          }).id,
      ).sort();
      expect(refusal(() => store.deleteDestination(acct.id, d.id))).toEqual({
        code: 409,
        message: `event destination ${d.id} is still used by event subscription(s) ${subs.slice(0, 5).join(", ")}; remove it from them first`,
      });
      expect(store.getDestination(acct.id, d.id)).toEqual(d);
    });
  });
});
