/**
 * The columns a resource table adds to an older data file (packages/emulator/store/resourceTable.ts):
 * the rows already stored hold each added column's default, as the table would read it back.
 */
import path from "node:path";
import { RESOURCES } from "service-contract";
import { openStore } from "../../../packages/emulator/store";
import { openDatabase } from "../../../packages/emulator/store/database";
import { resourceTable } from "../../../packages/emulator/store/resourceTable";
import { storedDestination } from "../../helpers/emulator-fixtures";
import { useTempDir } from "../../helpers/temp-dir";

describe("resource tables: columns added to an older data file", () => {
  const dir = useTempDir("emulator-resource-table-");

  it('gives the rows already stored each added column\'s default: "" for a text column without one, a default with quotes whole', () => {
    const file = path.join(dir(), "old.db");
    const store = openStore(file);
    const acct = store.registerAccount("o".repeat(64), false);
    const d = store.createDestination(acct.id, storedDestination({ description: "old" }));
    store.close();

    const base = openDatabase(file);
    try {
      const table = resourceTable(base, RESOURCES.eventDestination, [
        { column: "note", key: "note", structured: false, default: undefined },
        { column: "quoted", key: "quoted", structured: false, default: "it's 'here'" },
      ]);
      expect(table.getAny(d.id)).toEqual({ ...d, note: "", quoted: "it's 'here'" });
    } finally {
      base.db.close();
    }
  });
});
