/**
 * The operator endpoints of API keys (emulator/routes/operatorKeys.ts): a key added to the account
 * of another (key rotation) sees and manages the same resources; a revoked key answers 401 as an
 * unknown key does while the account's other keys go on working; each refusal with its status,
 * code and message; keys never in an answer, the request log, the server's log or the data file;
 * runtime keys outliving a restart on the same data file.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createApp } from "../../../packages/emulator/app";
import { openStore } from "../../../packages/emulator/store";
import {
  addApiKey,
  apiRequest,
  getRequestLog,
  operatorRequest,
  rawRequest,
  revokeApiKey,
  startEmulator,
  type RawResponse,
  type RunningEmulator,
} from "../../helpers/emulator";
import { destinationBody, expectError, idPattern, subscriptionBody } from "../../helpers/emulator-fixtures";
import { useTempDir } from "../../helpers/temp-dir";

const OLD = "key_rotation_old_0123456789";
const NEW = "key_rotation_new_0123456789";
const OTHER = "key_rotation_other_account";
const RESTRICTED = "rkey_rotation_restricted";
const ADMIN = "admin_rotation_0123456789";
const KEY_RULE = "must be 1 to 512 characters of A-Z a-z 0-9 . _ ~ + / = -";
/** The refusal of a `same_account_as` that is no key of any account. */
const UNKNOWN_SAME = "same_account_as: is not an API key this emulator accepts (unknown or revoked)";
/** The refusal of an `api_key` that is already a key of some account. */
const TAKEN = "api_key: is already a key of an account";
/** What that refusal adds when the key is another account's. */
const ONE_ACCOUNT = "a key belongs to one account";
/** The refusal of an `api_key` that breaks {@link KEY_RULE}. */
const BAD_API_KEY = `api_key: ${KEY_RULE}`;
/** The endpoint that revokes a key. */
const REVOKE = "/_operator/keys/revoke";
/** The refusal of a body field the endpoint does not know. */
const UNKNOWN_FIELD =
  'unknown field "account"; supported fields of the request body: api_key, same_account_as';

/** A `POST` to an operator endpoint with the admin key (or `key`), the body sent as JSON. */
const operator = (em: RunningEmulator, urlPath: string, body: unknown, key = em.adminKey) =>
  operatorRequest(em.url, key, "POST", urlPath, body);

const ids = (res: RawResponse) => (res.json().event_destinations as { id: string }[]).map((d) => d.id);

describe("POST /_operator/keys and POST /_operator/keys/revoke", () => {
  let em: RunningEmulator;
  const call = (key: string, method: string, urlPath: string, body?: unknown) =>
    apiRequest(em.url, key, method, urlPath, body);

  beforeEach(async () => {
    em = await startEmulator({ apiKeys: [OLD, OTHER], restrictedApiKeys: [RESTRICTED], adminKey: ADMIN });
  });
  afterEach(() => em.close());

  it("rotation: a key added to an account sees its resources, and what either key creates the other sees", async () => {
    const destination = (await call(OLD, "POST", "/event_destinations", destinationBody())).json();
    const added = await operator(em, "/_operator/keys", { api_key: NEW, same_account_as: OLD });
    expect(added.status).toBe(201);
    expect(added.headers["operation-id"]).toMatch(idPattern("op_"));
    const account = added.json();
    expect(account).toEqual({ account_id: expect.stringMatching(idPattern("acct_")), key_count: 2 });

    // The new key reads, lists and changes what the old key made.
    expect((await call(NEW, "GET", `/event_destinations/${destination.id}`)).json()).toEqual(destination);
    expect(ids(await call(NEW, "GET", "/event_destinations"))).toEqual([destination.id]);
    const sub = await call(NEW, "POST", "/event_subscriptions", subscriptionBody([destination.id]));
    expect(sub.status).toBe(201);
    // What the new key made, the old key sees, and uses.
    expect((await call(OLD, "GET", `/event_subscriptions/${sub.json().id}`)).json()).toEqual(sub.json());
    expect((await call(OLD, "DELETE", `/event_subscriptions/${sub.json().id}`)).status).toBe(204);
    expect((await call(NEW, "GET", `/event_subscriptions/${sub.json().id}`)).status).toBe(404);

    // A key of another account sees none of it.
    expect(ids(await call(OTHER, "GET", "/event_destinations"))).toEqual([]);
    expect((await call(OTHER, "GET", `/event_destinations/${destination.id}`)).status).toBe(404);

    // Both keys are the one account of the request log, the account the answer named.
    const log = (await getRequestLog(em.url, em.adminKey)).requests.map((r) => r.account_id);
    expect(log).toHaveLength(9);
    expect(new Set(log.slice(0, 7))).toEqual(new Set([account.account_id]));
    expect(log[7]).toBe(log[8]);
    expect(log[7]).not.toBe(account.account_id);
  });

  it("a third key counts 3, and the account's authorization is the new key's: restricted stays restricted", async () => {
    expect(await addApiKey(em.url, ADMIN, NEW, OLD)).toMatchObject({ key_count: 2 });
    expect(await addApiKey(em.url, ADMIN, "key_rotation_third", NEW)).toMatchObject({ key_count: 3 });
    const restricted = await addApiKey(em.url, ADMIN, "rkey_rotation_second", RESTRICTED);
    expect(restricted.key_count).toBe(2);
    const res = await call("rkey_rotation_second", "POST", "/abuse_reports", {
      urls: ["https://a.bad.org/"],
    });
    expectError(res, 403, 221);
    expect(
      (await call("key_rotation_third", "POST", "/abuse_reports", { urls: ["https://a.bad.org/"] })).status,
    ).toBe(201);
  });

  it("revocation: the revoked key answers 401 as an unknown key does; the other key goes on working", async () => {
    const destination = (await call(OLD, "POST", "/event_destinations", destinationBody())).json();
    const { account_id } = await addApiKey(em.url, ADMIN, NEW, OLD);
    const revoked = await operator(em, "/_operator/keys/revoke", { api_key: OLD });
    expect(revoked.status).toBe(200);
    expect(revoked.json()).toEqual({ account_id, key_count: 1 });

    const refused = await call(OLD, "GET", "/event_destinations");
    const unknown = await call("key_never_registered", "GET", "/event_destinations");
    expectError(refused, 401, 203, "the API key is not valid");
    expect(refused.json().msg).toBe(unknown.json().msg);
    expectError(await call(OLD, "POST", "/event_destinations", destinationBody()), 401, 203);

    expect(ids(await call(NEW, "GET", "/event_destinations"))).toEqual([destination.id]);
    expect(ids(await call(OTHER, "GET", "/event_destinations"))).toEqual([]);
    // The refused request belongs to no account in the log, as an unknown key's.
    const log = (await getRequestLog(em.url, ADMIN)).requests;
    expect(log.filter((r) => r.status === 401).map((r) => r.account_id)).toEqual([null, null, null]);

    // Revoking again, or a key no account has: 404; a revoked key names no account to add to.
    expectError(
      await operator(em, "/_operator/keys/revoke", { api_key: OLD }),
      404,
      404,
      "api_key: is not an API key this emulator accepts (unknown or revoked already)",
    );
    expectError(await operator(em, "/_operator/keys/revoke", { api_key: "key_never_registered" }), 404, 404);
    expectError(
      await operator(em, "/_operator/keys", { api_key: "key_fresh", same_account_as: OLD }),
      400,
      215,
      UNKNOWN_SAME,
    );
    // The last key may go too: the account then has none.
    expect(await revokeApiKey(em.url, ADMIN, NEW)).toEqual({ account_id, key_count: 0 });
    expectError(await call(NEW, "GET", "/event_destinations"), 401, 203);
  });

  it("a revoked key may be added again, to any account", async () => {
    await addApiKey(em.url, ADMIN, NEW, OLD);
    await revokeApiKey(em.url, ADMIN, NEW);
    const other = (await call(OTHER, "POST", "/event_destinations", destinationBody())).json();
    expect(await addApiKey(em.url, ADMIN, NEW, OTHER)).toMatchObject({ key_count: 2 });
    expect(ids(await call(NEW, "GET", "/event_destinations"))).toEqual([other.id]);
  });

  describe("refusals: a 400 naming the field (or 404), and nothing changes", () => {
    /**
     * A refusal: what is refused, the body sent, the message expected, then the code (215 unless
     * given), the endpoint (`POST /_operator/keys` unless given) and the status (400 unless given).
     */
    type Case = [
      what: string,
      body: unknown,
      msg: string | RegExp,
      code?: number,
      urlPath?: string,
      status?: number,
    ];
    const cases: Case[] = [
      ["unknown same_account_as", { api_key: NEW, same_account_as: "key_never_registered" }, UNKNOWN_SAME],
      ["api_key of another account", { api_key: OTHER, same_account_as: OLD }, `${TAKEN}; ${ONE_ACCOUNT}`],
      ["api_key of the same account", { api_key: OLD, same_account_as: OLD }, TAKEN],
      ["malformed api_key", { api_key: "bad key!", same_account_as: OLD }, BAD_API_KEY],
      ["empty api_key", { api_key: "", same_account_as: OLD }, BAD_API_KEY],
      ["api_key over 512 characters", { api_key: "k".repeat(513), same_account_as: OLD }, BAD_API_KEY],
      ["api_key not a string", { api_key: 7, same_account_as: OLD }, "api_key: must be a string"],
      [
        "malformed same_account_as",
        { api_key: NEW, same_account_as: `${OLD}\n` },
        `same_account_as: ${KEY_RULE}`,
      ],
      ["missing same_account_as", { api_key: NEW }, "same_account_as: required"],
      ["unknown field", { api_key: NEW, same_account_as: OLD, account: "x" }, UNKNOWN_FIELD, 214],
      ["camelCase field", { apiKey: NEW, same_account_as: OLD }, /unknown field "apiKey"/, 214],
      ["body not JSON", `{"api_key":"${NEW}"`, /^request body is not valid JSON/, 213],
      ["malformed key to revoke", { api_key: "bad key!" }, BAD_API_KEY, 215, REVOKE],
      ["unknown key to revoke", { api_key: NEW }, /^api_key: is not an API key/, 404, REVOKE, 404],
      ["no key to revoke", {}, "api_key: required", 215, REVOKE],
    ];
    it.each(cases)("%s", async (_what, body, msg, code = 215, urlPath = "/_operator/keys", status = 400) => {
      const before = em.store.snapshot();
      const res = await operator(em, urlPath, body);
      expectError(res, status, code, msg);
      expect(em.store.snapshot()).toEqual(before);
      // Neither the answer nor its message quotes a key.
      for (const key of [OLD, NEW, OTHER, "key_never_registered", "bad key!", "k".repeat(513)])
        expect(res.text).not.toContain(key);
      expectError(await call(NEW, "GET", "/event_destinations"), 401, 203);
    });
  });

  it("needs the admin key: an API key gets 401 / 203 and changes nothing", async () => {
    const before = em.store.snapshot();
    expectError(await operator(em, "/_operator/keys", { api_key: NEW, same_account_as: OLD }, OLD), 401, 203);
    expectError(await operator(em, "/_operator/keys/revoke", { api_key: OLD }, OLD), 401, 203);
    expect(em.store.snapshot()).toEqual(before);
    expectError(await call(NEW, "GET", "/event_destinations"), 401, 203);
    expect((await call(OLD, "GET", "/event_destinations")).status).toBe(200);
  });

  it("other methods answer 405 (no key in a path: DELETE /_operator/keys is not a route)", async () => {
    const res = await rawRequest({
      method: "DELETE",
      url: `${em.url}/_operator/keys`,
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expectError(res, 405, 405);
    expect(res.headers.allow).toBe("POST");
  });

  it("keys are in no answer and not in the request log, and the key routes are not logged", async () => {
    const answers = [
      await operator(em, "/_operator/keys", { api_key: NEW, same_account_as: OLD }),
      await call(NEW, "GET", "/event_destinations"),
      await operator(em, "/_operator/keys/revoke", { api_key: OLD }),
      await call(OLD, "GET", "/event_destinations"),
    ];
    expect(answers.map((r) => r.status)).toEqual([201, 200, 200, 401]);
    const log = await getRequestLog(em.url, ADMIN);
    expect(log.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      "GET /event_destinations 200",
      "GET /event_destinations 401",
    ]);
    const texts = [...answers.map((r) => JSON.stringify(r.headers) + r.text), JSON.stringify(log)];
    for (const key of [OLD, NEW]) for (const text of texts) expect(text).not.toContain(key);
  });
});

describe("API keys on a data file", () => {
  const dir = useTempDir("emulator-keys-");

  it("a key added at run time outlives a restart; a revoked one stays revoked unless a start names it", async () => {
    const data = path.join(dir(), "keys.db");
    /** The emulator on `data`, started with `keys` (authorized) and its server log on. */
    const startOn = (keys: string[]) =>
      startEmulator({ data, apiKeys: keys, restrictedApiKeys: [], adminKey: ADMIN, logger: "info" });
    // The server's log (Fastify's, to stderr: every request's method and URL) is kept here.
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let em = await startOn([OLD]);
    let destination: { id: string };
    try {
      destination = (await apiRequest(em.url, OLD, "POST", "/event_destinations", destinationBody())).json();
      await addApiKey(em.url, ADMIN, NEW, OLD);
    } finally {
      await em.close();
    }

    // Started with the old key only: the new key works too, on the same account.
    em = await startOn([OLD]);
    try {
      expect(ids(await apiRequest(em.url, NEW, "GET", "/event_destinations"))).toEqual([destination.id]);
      await revokeApiKey(em.url, ADMIN, OLD);
    } finally {
      await em.close();
    }

    // Started with the new key: the revoked old key stays revoked.
    em = await startOn([NEW]);
    try {
      expect(ids(await apiRequest(em.url, NEW, "GET", "/event_destinations"))).toEqual([destination.id]);
      expectError(await apiRequest(em.url, OLD, "GET", "/event_destinations"), 401, 203);
    } finally {
      await em.close();
    }

    // A start that names the revoked key makes it valid again, in its account.
    em = await startOn([OLD]);
    try {
      expect(ids(await apiRequest(em.url, OLD, "GET", "/event_destinations"))).toEqual([destination.id]);
      expect(ids(await apiRequest(em.url, NEW, "GET", "/event_destinations"))).toEqual([destination.id]);
    } finally {
      await em.close();
      stderr.mockRestore();
    }

    // Neither the server's log nor the data file holds a key.
    const logged = written.join("");
    expect(logged).toMatch(/"url":"\/_operator\/keys"/);
    const files = readdirSync(dir())
      .filter((f) => f.startsWith("keys.db"))
      .map((f) => readFileSync(path.join(dir(), f)).toString("latin1"))
      .join("\n");
    expect(files.length).toBeGreaterThan(0);
    for (const key of [OLD, NEW, ADMIN]) {
      expect(logged).not.toContain(key);
      expect(files).not.toContain(key);
    }
  });

  it("a start naming two keys of one account, one authorized and one restricted, fails and changes nothing", async () => {
    const data = path.join(dir(), "conflict.db");
    const em = await startEmulator({ data, apiKeys: [OLD], restrictedApiKeys: [], adminKey: ADMIN });
    try {
      await addApiKey(em.url, ADMIN, NEW, OLD);
    } finally {
      await em.close();
    }
    const store = openStore(data);
    try {
      const before = store.snapshot();
      expect(() => createApp({ store, apiKeys: [OLD], restrictedApiKeys: [NEW] })).toThrow(
        "two API keys of one account cannot be one authorized and one restricted",
      );
      expect(store.snapshot()).toEqual(before);
    } finally {
      store.close();
    }
  });
});
