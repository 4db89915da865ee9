/**
 * The bound on abuse reports (reports are never deleted): at most `abuseReportsPerAccount` per
 * account; the next create answers 409 / 241 naming the limit and stores nothing, and every
 * report already stored stays readable.
 */
import { apiRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { expectError } from "../../helpers/emulator-fixtures";

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
