/**
 * Security of the emulator and the package.
 *
 * - The emulator binds 127.0.0.1 by default (checked on the listening socket itself) and warns on
 *   stderr when bound elsewhere.
 * - API keys and the admin key are compared in constant time: every request hashes the token and
 *   compares the 32-byte digest with `crypto.timingSafeEqual` against every key, whichever
 *   matches, so neither the length nor the position of a mismatch nor which key matched changes
 *   the work done.
 * - Request bodies are limited to 1 MiB: a 2 MiB body answers 413 (with or without a length).
 * - No API key, admin key or destination secret appears in any log line: a `--verbose` emulator
 *   serves a whole session of the client (every operation, secrets of every kind, failing
 *   requests) and its stdout and stderr are searched, as are the request log and the data file.
 */
import crypto from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ServiceClient } from "../../client";
import { MAX_BODY_BYTES } from "service-contract";
import {
  apiRequest,
  getRequestLog,
  rawRequest,
  spawnEmulator,
  startEmulator,
  type RawResponse,
  type SpawnedEmulator,
} from "../helpers/emulator";

let dir: string;
const running: SpawnedEmulator[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "emulator-security-"));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((em) => em.stop("SIGKILL")));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function spawnTracked(args: string[]): Promise<SpawnedEmulator> {
  const em = await spawnEmulator(args);
  running.push(em);
  return em;
}

/** Waits until `predicate` holds (checked every 20 ms) or `ms` pass; returns whether it held. */
async function eventually(predicate: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/**
 * Local addresses of the TCP sockets listening on `port`, from the kernel's table
 * (`/proc/net/tcp` and `tcp6`), e.g. `["127.0.0.1"]`; `undefined` where there is no such table.
 * No connection is made: this reads how the socket is bound.
 */
function listeningAddresses(port: number): string[] | undefined {
  if (!existsSync("/proc/net/tcp")) return undefined;
  const out: string[] = [];
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue; // 0A = LISTEN
      const [hexAddr, hexPort] = cols[1].split(":");
      if (parseInt(hexPort, 16) !== port) continue;
      if (hexAddr.length === 8) {
        out.push(
          (hexAddr.match(/../g) ?? [])
            .reverse()
            .map((b) => parseInt(b, 16))
            .join("."),
        );
      } else {
        out.push(
          /^0+$/.test(hexAddr) ? "::" : hexAddr === "00000000000000000000000001000000" ? "::1" : hexAddr,
        );
      }
    }
  }
  return out;
}

describe("binding", () => {
  it("the command line listens on 127.0.0.1 only by default, with no warning", async () => {
    const em = await spawnTracked(["--port", "0", "--data", ":memory:"]);
    expect(em.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const port = Number(new URL(em.url).port);
    const bound = listeningAddresses(port);
    if (bound === undefined)
      console.log("binding: no /proc/net/tcp here; the listening address was not read");
    else expect(bound).toEqual(["127.0.0.1"]);
    await new Promise((r) => setTimeout(r, 100));
    expect(em.stderr()).not.toMatch(/warning/i);
  });

  it("startEmulator() listens on 127.0.0.1 by default", async () => {
    const em = await startEmulator();
    try {
      const address = em.app.server.address();
      expect(typeof address === "object" && address?.address).toBe("127.0.0.1");
    } finally {
      await em.close();
    }
  });

  it("--host 0.0.0.0 prints a warning on stderr (and the process is stopped at once)", async () => {
    const em = await spawnTracked(["--host", "0.0.0.0", "--port", "0", "--data", ":memory:"]);
    const port = Number(new URL(em.url).port);
    const bound = listeningAddresses(port);
    await em.stop("SIGKILL");
    if (bound !== undefined) expect(bound).toEqual(["0.0.0.0"]);
    expect(await eventually(() => /warning/.test(em.stderr()))).toBe(true);
    expect(em.stderr()).toMatch(
      /service-emulator: warning: listening on 0\.0\.0\.0, reachable from other machines/,
    );
  });
});

describe("API keys are compared in constant time", () => {
  const KEYS = ["ct-key-one", "ct-key-two-longer-than-the-first", "ct-key-3"];
  const RESTRICTED = "ct-restricted";
  const ADMIN = "ct-admin-key";
  let em: Awaited<ReturnType<typeof startEmulator>>;
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: KEYS, restrictedApiKeys: [RESTRICTED], adminKey: ADMIN });
  });
  beforeEach(() => {
    spy = jest.spyOn(crypto, "timingSafeEqual");
  });
  afterEach(() => spy.mockRestore());
  afterAll(() => em.close());

  const get = (token: string, p = "/event_subscriptions") =>
    rawRequest({
      method: "GET",
      url: em.url + p,
      headers: { authorization: `Bearer ${token}`, "service-version": "2" },
    });

  /** The calls of timingSafeEqual: every one on two 32-byte digests. */
  const digestCalls = () => {
    for (const [a, b] of spy.mock.calls as [Buffer, Buffer][]) {
      expect(a.length).toBe(32);
      expect(b.length).toBe(32);
    }
    return spy.mock.calls.length;
  };

  it.each([
    ["the first key", KEYS[0], 200],
    ["the last key", RESTRICTED, 200],
    ["a wrong key of the same length as a real one", KEYS[0].slice(0, -1) + "X", 401],
    ["a wrong key that is a prefix of a real one", KEYS[1].slice(0, 10), 401],
    ["a long wrong key", "k".repeat(512), 401],
  ])("%s: one digest comparison per key, no early exit", async (_what, token, status) => {
    const res = await get(token);
    expect(res.status).toBe(status);
    expect(digestCalls()).toBe(KEYS.length + 1);
  });

  it("the admin key: one digest comparison, right or wrong", async () => {
    expect((await get(ADMIN, "/_operator/faults")).status).toBe(200);
    expect(digestCalls()).toBe(1);
    spy.mockClear();
    expect((await get(ADMIN.slice(0, -1) + "Z", "/_operator/faults")).status).toBe(401);
    expect(digestCalls()).toBe(1);
  });
});

describe("request body size", () => {
  let em: Awaited<ReturnType<typeof startEmulator>>;
  beforeAll(async () => {
    em = await startEmulator({ apiKeys: ["size-key"] });
  });
  afterAll(() => em.close());

  const post = (body: string, chunked = false) =>
    rawRequest({
      method: "POST",
      url: em.url + "/event_destinations",
      headers: {
        authorization: "Bearer size-key",
        "service-version": "2",
        "content-type": "application/json",
      },
      body,
      chunked,
    });

  function expect413(res: RawResponse): void {
    expect(res.status).toBe(413);
    const body = res.json();
    expect(body).toEqual({
      error_code: "ERR_SERVICE_413",
      status_code: 413,
      msg: expect.stringMatching(/1 MiB/),
      details: { operation_id: res.headers["operation-id"] },
    });
  }

  it("a 2 MiB body answers 413, with a Content-Length or chunked, and stores nothing", async () => {
    const before = JSON.stringify(em.store.snapshot());
    const big = JSON.stringify({ description: "x".repeat(2 * 1024 * 1024) });
    expect413(await post(big));
    expect413(await post(big, true));
    expect(JSON.stringify(em.store.snapshot())).toBe(before);
  });

  it("the limit is exactly 1 MiB: one byte more is 413, the limit itself is read", async () => {
    const fill = (n: number) => {
      const head = '{"description":"';
      return head + "x".repeat(n - head.length - 2) + '"}';
    };
    expect(Buffer.byteLength(fill(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
    expect413(await post(fill(MAX_BODY_BYTES + 1)));
    const atLimit = await post(fill(MAX_BODY_BYTES));
    expect(atLimit.status).toBe(400); // read and validated: the description is too long (215)
    expect(atLimit.json().error_code).toBe("ERR_SERVICE_215");
  });
});

describe("no key or secret in any log line", () => {
  const API_KEY = "sk_live_logcheck_7d41f0a9c3";
  const RESTRICTED_KEY = "sk_restricted_logcheck_55e2b8";
  const ADMIN_KEY = "admin_logcheck_c0ffee91";
  const WRONG_KEY = "sk_wrong_logcheck_0b7e6a";
  const SECRETS = {
    aws: "aws-secret-logcheck-1f2e3d",
    aws2: "aws-secret-logcheck-updated-9a8b",
    dd: "dd-api-key-logcheck-77aa",
    azure: "azure-client-secret-logcheck-42",
    invalid: "secret-in-a-rejected-body-3c3c",
    big: "secret-in-a-too-large-body-5d5d",
  };

  it("a --verbose emulator serving a whole client session logs none of them", async () => {
    const data = path.join(dir, "logcheck.db");
    const em = await spawnTracked([
      "--port",
      "0",
      "--data",
      data,
      "--api-key",
      API_KEY,
      "--restricted-api-key",
      RESTRICTED_KEY,
      "--admin-key",
      ADMIN_KEY,
      "--verbose",
    ]);
    const client = new ServiceClient({ apiKey: API_KEY, baseUrl: em.url, maxRetries: 0 });
    const restricted = new ServiceClient({ apiKey: RESTRICTED_KEY, baseUrl: em.url, maxRetries: 0 });
    const wrong = new ServiceClient({ apiKey: WRONG_KEY, baseUrl: em.url, maxRetries: 0 });
    const failures: string[] = [];
    const expectFailure = async (what: string, p: Promise<unknown>) => {
      await p.then(
        () => failures.push(`${what}: succeeded`),
        () => undefined,
      );
    };
    try {
      // Every operation, with secrets of every kind.
      const kinesis = await client.eventDestinations.create({
        description: "kinesis",
        target: {
          kinesis: {
            auth: { creds: { awsAccessKeyId: "AKIALOGCHECK", awsSecretAccessKey: SECRETS.aws } },
            streamArn: "arn:aws:kinesis:us-east-1:1:stream/s",
          },
        },
      });
      const dd = await client.eventDestinations.create({ target: { datadog: { apiKey: SECRETS.dd } } });
      const azure = await client.eventDestinations.create({
        target: {
          azureLogsIngestion: {
            tenantId: "t",
            clientId: "c",
            clientSecret: SECRETS.azure,
            logsIngestionUri: "https://x.ingest.monitor.azure.com",
            dataCollectionRuleId: "dcr",
            dataCollectionStreamName: "Custom-S",
          },
        },
      });
      await client.eventDestinations.update(kinesis.id, {
        target: {
          firehose: {
            auth: { creds: { awsAccessKeyId: "AKIALOGCHECK", awsSecretAccessKey: SECRETS.aws2 } },
            deliveryStreamArn: "arn:aws:firehose:s",
          },
        },
      });
      const sub = await client.eventSubscriptions.create({
        sources: [{ type: "ip_policy_created.v0" }],
        destinationIds: [kinesis.id, dd.id],
      });
      await client.eventSubscriptions.get(sub.id);
      await client.eventSubscriptions.update(sub.id, { description: "updated" });
      for await (const s of client.eventSubscriptions.list({ limit: 1 })) void s;
      for await (const d of client.eventDestinations.list({ limit: 2 })) void d;
      await client.eventDestinations.get(azure.id);
      const report = await client.abuseReports.create({ urls: ["https://phish.example.com/x"] });
      await client.abuseReports.get(report.id);

      // Failing requests.
      await expectFailure("wrong key", wrong.eventSubscriptions.get(sub.id));
      await expectFailure(
        "restricted key",
        restricted.abuseReports.create({ urls: ["https://a.example.com/"] }),
      );
      await expectFailure("destination in use", client.eventDestinations.delete(kinesis.id));
      await expectFailure("absent ID", client.eventSubscriptions.get("esb_" + "0".repeat(26) + "1"));
      const rejected: [string, RawResponse][] = [
        [
          "invalid destination with a secret",
          await apiRequest(em.url, API_KEY, "POST", "/event_destinations", {
            format: "xml",
            target: { datadog: { api_key: SECRETS.invalid } },
          }),
        ],
        [
          "unknown field holding a secret",
          await apiRequest(em.url, API_KEY, "POST", "/event_destinations", {
            password: SECRETS.invalid,
            target: { datadog: { api_key: SECRETS.invalid } },
          }),
        ],
        [
          "secret in a body that is not JSON",
          await apiRequest(em.url, API_KEY, "POST", "/event_destinations", `{"api_key":"${SECRETS.invalid}"`),
        ],
        [
          "secret in a body over 1 MiB",
          await apiRequest(em.url, API_KEY, "POST", "/event_destinations", {
            target: { datadog: { api_key: SECRETS.big } },
            metadata: "m".repeat(MAX_BODY_BYTES),
          }),
        ],
        [
          "malformed Authorization around a key",
          await apiRequest(em.url, API_KEY, "GET", "/event_subscriptions", undefined, {
            authorization: `Bearer ${API_KEY}!`,
          }),
        ],
        [
          "Basic authorization with the key",
          await apiRequest(em.url, API_KEY, "GET", "/event_subscriptions", undefined, {
            authorization: `Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}`,
          }),
        ],
        [
          "wrong admin key",
          await rawRequest({
            method: "GET",
            url: `${em.url}/_operator/requests`,
            headers: { authorization: `Bearer ${WRONG_KEY}` },
          }),
        ],
      ];
      for (const [what, res] of rejected) if (res.status < 400) failures.push(`${what}: ${res.status}`);
      expect(failures).toEqual([]);

      // Clean up through the API (deletes are logged too).
      await client.eventSubscriptions.delete(sub.id);
      for (const d of [kinesis, dd, azure]) await client.eventDestinations.delete(d.id);

      const requestLog = JSON.stringify(await getRequestLog(em.url, ADMIN_KEY));
      expect(await em.stop("SIGTERM")).toBe(0);

      const logs = em.firstLine + "\n" + em.stdoutRest() + em.stderr();
      // The session was logged: one line per request at least (the search is not vacuous).
      const logged = logs.split("\n").filter((l) => /"url":"\/(event_|abuse_|_operator)/.test(l));
      expect(logged.length).toBeGreaterThanOrEqual(25);

      // The first line of stdout announces the keys the emulator was given, by design (README);
      // nothing after it may repeat one.
      const afterFirstLine = em.stdoutRest() + em.stderr();
      const files = readdirSync(dir)
        .filter((f) => f.startsWith("logcheck.db"))
        .map((f) => readFileSync(path.join(dir, f)).toString("latin1"))
        .join("\n");
      const leaks: string[] = [];
      for (const key of [API_KEY, RESTRICTED_KEY, ADMIN_KEY, WRONG_KEY]) {
        if (afterFirstLine.includes(key)) leaks.push(`key ${key} in the emulator's log`);
        if (requestLog.includes(key)) leaks.push(`key ${key} in the request log`);
        if (files.includes(key)) leaks.push(`key ${key} in the data file`);
        const b64 = Buffer.from(`${key}:`).toString("base64");
        if (afterFirstLine.includes(b64)) leaks.push(`key ${key} (base64) in the emulator's log`);
      }
      for (const secret of Object.values(SECRETS)) {
        if (logs.includes(secret)) leaks.push(`secret ${secret} in the emulator's log`);
        if (requestLog.includes(secret)) leaks.push(`secret ${secret} in the request log`);
      }
      expect(leaks).toEqual([]);
    } finally {
      await Promise.all([client.close(), restricted.close(), wrong.close()]);
    }
  });
});
