/**
 * The bound on abuse reports (reports are never deleted): at most `abuseReportsPerAccount` per
 * account; the next create answers 409 / 241 naming the limit and stores nothing, and every
 * report already stored stays readable.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { autoReviewStatus } from "../../../packages/emulator/review";
import { openStore, type Store } from "../../../packages/emulator/store";
import { apiRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { expectError, refusal } from "../../helpers/emulator-fixtures";
import { useTempDir } from "../../helpers/temp-dir";

const A = "key-reports-a";
const B = "key-reports-b";
const LIMIT = 3;

describe("abuse reports per account", () => {
  let em: RunningEmulator;
  const report = (n: number, key = A, headers: Record<string, string> = {}) =>
    apiRequest(em.url, key, "POST", "/abuse_reports", { urls: [`https://r${n}.example.org/`] }, headers);

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [A, B], limits: { abuseReportsPerAccount: LIMIT } });
  });
  afterAll(() => em.close());

  it("the last allowed create succeeds, the next answers 409 / 241 with the limit and stores nothing", async () => {
    const ids: string[] = [];
    for (let n = 1; n <= LIMIT - 1; n++) ids.push((await report(n)).json().id);
    const keyed = await report(LIMIT, A, { "idempotency-key": "last-allowed" });
    expect(keyed.status).toBe(201);
    ids.push(keyed.json().id);

    const before = em.store.snapshot();
    const refused = await report(LIMIT + 1, A, { "idempotency-key": "one-too-many" });
    expectError(
      refused,
      409,
      241,
      `this account already has ${LIMIT} abuse reports, the most an account may have; reports are never deleted, so no more can be created`,
    );
    expect(em.store.snapshot()).toEqual(before);

    for (const id of ids) {
      const got = await apiRequest(em.url, A, "GET", `/abuse_reports/${id}`);
      expect({ status: got.status, id: got.json().id }).toEqual({ status: 200, id });
    }
  });

  it("a retry of a create made before the bound still gets its first response", async () => {
    const again = await report(LIMIT, A, { "idempotency-key": "last-allowed" });
    expect(again.status).toBe(201);
    expect(again.headers["idempotent-replayed"]).toBe("true");
  });

  it("counts per account: another account still creates", async () => {
    expect((await report(1, B)).status).toBe(201);
  });
});

it.each([0, 1.5, -1])("abuseReportsPerAccount %p is refused at start", async (n) => {
  await expect(startEmulator({ limits: { abuseReportsPerAccount: n } })).rejects.toThrow(
    `limits.abuseReportsPerAccount must be a whole number from 1 up, got ${n}`,
  );
});

describe("the abuse report store (packages/emulator/store/abuseReports.ts)", () => {
  const dir = useTempDir("emulator-reports-");
  let store: Store;
  let account: string;
  const input = (hostnames: string[]) => ({
    urls: hostnames.map((h) => `https://${h}/x`),
    metadata: "",
    hostnames,
  });
  beforeEach(() => {
    store = openStore(":memory:");
    account = store.registerAccount("a".repeat(64), true).id;
  });
  afterEach(() => store.close());

  it("opens a data file whose table lacks a structured column (hostnames): its reports read the default, none", () => {
    const file = path.join(dir(), "old.db");
    const s1 = openStore(file);
    const acct = s1.registerAccount("b".repeat(64), true).id;
    const r = s1.createAbuseReport(acct, input(["old.example"]), 0);
    s1.close();
    const raw = new Database(file);
    raw.exec("ALTER TABLE abuse_reports DROP COLUMN hostnames");
    raw.close();
    const s2 = openStore(file);
    try {
      expect(s2.getAbuseReport(acct, r.id)).toEqual({ ...r, hostnames: [] });
    } finally {
      s2.close();
    }
  });

  it("names a limit of one report in the singular", () => {
    store.createAbuseReport(account, input(["one.example"]), 0, 1);
    expect(() => store.createAbuseReport(account, input(["two.example"]), 0, 1)).toThrow(
      "this account already has 1 abuse report, the most an account may have; reports are never deleted, so no more can be created",
    );
  });

  it("a review naming a hostname the report lacks answers 215 listing the report's, and changes nothing", () => {
    const r = store.createAbuseReport(account, input(["a.example", "b.example"]), 0);
    const before = store.getAbuseReport(account, r.id);
    expect(
      refusal(() =>
        store.reviewAbuseReport(r.id, [
          { hostname: "A.example", status: "BANNED" },
          { hostname: "c.example", status: "BANNED" },
        ]),
      ),
    ).toEqual({
      code: 215,
      message: `hostnames[1].hostname: not a hostname of abuse report ${r.id} (it has a.example, b.example)`,
    });
    expect(store.getAbuseReport(account, r.id)).toEqual(before);
  });

  it("a review that keeps a hostname PENDING keeps when it became pending; one set back to PENDING restarts it", () => {
    const delayMs = 1000;
    const autoReview = (nowMs: number) => ({ nowMs, delayMs });
    const r = store.createAbuseReport(account, input(["kept.example", "restarted.example"]), 0);
    store.reviewAbuseReport(r.id, [{ hostname: "restarted.example", status: "BANNED" }], 100);
    store.reviewAbuseReport(
      r.id,
      [
        { hostname: "kept.example", status: "PENDING" },
        { hostname: "restarted.example", status: "PENDING" },
      ],
      500,
    );
    const statuses = (nowMs: number) =>
      store.getAbuseReport(account, r.id, autoReview(nowMs))?.hostnames.map((h) => h.status);
    // At 1,000 ms the first has been pending since 0 (due); the second only since 500.
    expect(statuses(1000)).toEqual([autoReviewStatus("kept.example"), "PENDING"]);
    expect(statuses(1500)).toEqual([autoReviewStatus("kept.example"), autoReviewStatus("restarted.example")]);
  });
});
