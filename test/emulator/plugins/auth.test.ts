/**
 * Access to the operator endpoints is decided by the route the server matched, not by the text
 * of the request URL: every spelling of an operator path that the router resolves to an operator
 * route needs the admin key, and answers 404 when no admin key is configured. A request that
 * fails never changes the faults, a review or the request log.
 */
import { createApp } from "../../../packages/emulator/app";
import { openStore, type Store } from "../../../packages/emulator/store";
import { apiRequest, rawRequest, type RawResponse } from "../../helpers/emulator";
import { attachResponseValidation } from "../../helpers/openapi";

const PUBLIC = "key_operator_access_public";
const RESTRICTED = "rkey_operator_access_restricted";
const ADMIN = "admin_operator_access_right";
const WRONG_ADMIN = "admin_operator_access_wrong";

/** Spellings of an operator path `/_operator/<rest>` that a router may resolve to it. */
const SPELLINGS: [string, (rest: string) => string][] = [
  ["percent-encoded underscore (upper case)", (r) => `/%5Foperator/${r}`],
  ["percent-encoded underscore (lower case)", (r) => `/%5foperator/${r}`],
  ["every letter of the prefix percent-encoded", (r) => `/%5F%6F%70%65%72%61%74%6F%72/${r}`],
  ["mixed-case percent-encoding", (r) => `/%5f%6F%70erator/${r}`],
  ["encoded slash after the prefix", (r) => `/_operator%2F${r}`],
  ["encoded slash, lower case", (r) => `/_operator%2f${r}`],
  ["double leading slash", (r) => `//_operator/${r}`],
  ["double slash inside", (r) => `/_operator//${r}`],
  ["dot segment", (r) => `/./_operator/${r}`],
  ["dot-dot segment", (r) => `/x/../_operator/${r}`],
  ["encoded dot-dot segment", (r) => `/x/%2E%2E/_operator/${r}`],
  ["upper-case prefix", (r) => `/_OPERATOR/${r}`],
  ["upper-case path", (r) => `/_operator/${r.toUpperCase()}`],
  ["trailing slash", (r) => `/_operator/${r}/`],
  ["query string", (r) => `/_operator/${r}?since=0`],
  ["encoded query mark", (r) => `/%5Foperator/${r}%3Fx=1`],
  ["semicolon parameter", (r) => `/_operator/${r};x=1`],
  ["encoded underscore and trailing slash", (r) => `/%5Foperator/${r}/`],
  ["the canonical spelling", (r) => `/_operator/${r}`],
];

/** Operator endpoints as `[label, method, rest of the path, body]`; the report ID is filled in. */
const ENDPOINTS: [string, string, (reportId: string) => string, unknown][] = [
  ["read the faults", "GET", () => "faults", undefined],
  ["switch faults on", "PUT", () => "faults", { status503: 1 }],
  ["read the request log", "GET", () => "requests", undefined],
  ["clear the request log", "DELETE", () => "requests", undefined],
  [
    "review a report",
    "POST",
    (id) => `abuse_reports/${id}/review`,
    { hostnames: [{ hostname: "a.bad.org", status: "BANNED" }] },
  ],
];

const CALLERS: [string, string | undefined][] = [
  ["no key", undefined],
  ["a public API key", PUBLIC],
  ["a restricted API key", RESTRICTED],
  ["a wrong admin key", WRONG_ADMIN],
];

interface Running {
  url: string;
  store: Store;
  faults(): unknown;
  close(): Promise<void>;
}

async function start(adminKey: string | undefined): Promise<Running> {
  const store = openStore(":memory:");
  const app = createApp({ store, apiKeys: [PUBLIC], restrictedApiKeys: [RESTRICTED], adminKey });
  await attachResponseValidation(app);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    store,
    faults: () => app.emulator.getFaults(),
    close: async () => {
      await app.close();
      store.close();
    },
  };
}

function send(
  em: Running,
  method: string,
  path: string,
  body: unknown,
  key: string | undefined,
): Promise<RawResponse> {
  // Sent as a client of the public API would, so that a public route's checks would all pass.
  const headers: Record<string, string> = { "service-version": "2" };
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return rawRequest({
    method,
    url: em.url,
    path,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const cases = SPELLINGS.flatMap(([spelling, spell]) =>
  ENDPOINTS.flatMap(([endpoint, method, rest, body]) =>
    CALLERS.map(([caller, key]) => ({ spelling, spell, endpoint, method, rest, body, caller, key })),
  ),
);

describe.each([
  ["with an admin key configured", ADMIN],
  ["with no admin key configured", undefined],
])("operator endpoints %s", (_label, adminKey) => {
  let em: Running;
  let reportId: string;
  let reportBefore: unknown;
  let faultsBefore: unknown;

  beforeAll(async () => {
    em = await start(adminKey);
    const created = await apiRequest(em.url, PUBLIC, "POST", "/abuse_reports", {
      urls: ["https://a.bad.org/x"],
    });
    expect(created.status).toBe(201);
    reportId = created.json().id;
    reportBefore = em.store.snapshot().abuse_reports;
    faultsBefore = em.faults();
  });
  afterAll(() => em.close());

  it.each(cases)(
    "$method $endpoint, $spelling, with $caller: no 2xx and nothing changes",
    async ({ spell, method, rest, body, key }) => {
      const logBefore = em.store.requests();
      const res = await send(em, method, spell(rest(reportId)), body, key);
      expect(`${res.status} ${res.text}`).not.toMatch(/^2/);
      expect(em.faults()).toEqual(faultsBefore);
      expect(em.store.snapshot().abuse_reports).toEqual(reportBefore);
      // Earlier entries are all still there (not cleared); only this request may have been added.
      expect(em.store.requests().slice(0, logBefore.length)).toEqual(logBefore);
    },
  );

  if (adminKey !== undefined) {
    it("the admin key still reaches every endpoint by its canonical path", async () => {
      for (const [, method, rest, body] of ENDPOINTS) {
        const res = await send(em, method, `/_operator/${rest(reportId)}`, body, adminKey);
        expect([method, res.status]).toEqual([method, method === "DELETE" ? 204 : 200]);
      }
    });
  }
});
