/**
 * The client's debug log of requests (client/log.ts): one line per attempt with status and duration,
 * one per retry wait; never the API key, a body or a query value; nothing unless asked for.
 */
import { ServiceClient, ServiceError } from "../../client";
import type { RequestLogEntry } from "../../client";
import { formatLogEntry, loggerFromEnv, redactQuery, stderrLogger } from "../../client/log";
import {
  busy,
  fakeId,
  json,
  reset,
  type Step,
  wireDestination,
  wireSubscription,
} from "../helpers/scripted-server";
import { scriptedClients } from "../helpers/scripted-client";

const API_KEY = "sk_test_LOGSECRET_0123456789abcdef";
const DEST_SECRET = "aws-secret-DO-NOT-LOG-42";
const SUB_ID = fakeId("esb_", 1);

const destination = wireDestination("http://svc", 1);
const create = (client: ServiceClient) =>
  client.eventDestinations.create({
    target: {
      firehose: {
        auth: { creds: { awsAccessKeyId: "AK", awsSecretAccessKey: DEST_SECRET } },
        deliveryStreamArn: "arn:x",
      },
    },
  });

const scripted = scriptedClients(API_KEY);
const savedLog = process.env.SERVICE_LOG;

afterEach(async () => {
  await scripted.close();
  if (savedLog === undefined) delete process.env.SERVICE_LOG;
  else process.env.SERVICE_LOG = savedLog;
  jest.restoreAllMocks();
});

/** Everything written to stderr and the console while `fn` runs. */
async function output(fn: () => Promise<unknown>): Promise<string> {
  const written: string[] = [];
  const keep = (...args: unknown[]) => void written.push(args.map(String).join(" "));
  jest.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => (keep(chunk), true));
  jest.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => (keep(chunk), true));
  for (const m of ["log", "info", "warn", "error", "debug"] as const)
    jest.spyOn(console, m).mockImplementation(keep);
  try {
    await fn();
  } finally {
    jest.restoreAllMocks();
  }
  return written.join("");
}

describe("with a logger", () => {
  test("a create retried after a 503: both attempts with status and duration, the wait between", async () => {
    const lines: string[] = [];
    const entries: RequestLogEntry[] = [];
    const { server, client } = await scripted.start([busy, json(201, destination)], {
      logger: (line, entry) => (lines.push(line), entries.push(entry)),
    });
    await create(client);
    expect(server.requests).toHaveLength(2);
    expect(entries.map((e) => [e.kind, e.attempt, "status" in e ? e.status : undefined])).toEqual([
      ["attempt", 1, 503],
      ["retry", 2, undefined],
      ["attempt", 2, 201],
    ]);
    expect(lines[0]).toMatch(
      /^service: POST \/event_destinations -> 503 in \d+ ms \(attempt 1 of 5, operation op_E{27}\)$/,
    );
    expect(lines[1]).toBe("service: POST /event_destinations: attempt 2 of 5 in 0 ms");
    expect(lines[2]).toMatch(
      /^service: POST \/event_destinations -> 201 in \d+ ms \(attempt 2 of 5, operation op_x+\)$/,
    );
    for (const e of entries) if (e.kind === "attempt") expect(e.durationMs).toBeGreaterThanOrEqual(0);
    const all = lines.join("\n") + JSON.stringify(entries);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(DEST_SECRET);
  });

  test("a duration is the attempt's own time, in milliseconds", async () => {
    const slow: Step = (_req, res) =>
      setTimeout(() => json(200, wireSubscription("http://svc", 1))(_req, res, null as never), 150);
    const entries: RequestLogEntry[] = [];
    const { client } = await scripted.start([slow], { logger: (_l, e) => entries.push(e) });
    await client.eventSubscriptions.get(SUB_ID);
    const [entry] = entries;
    expect(entry.kind === "attempt" && entry.durationMs).toBeGreaterThanOrEqual(140);
    expect(entry.kind === "attempt" && entry.durationMs).toBeLessThan(5_000);
  });

  test("query values are left out, names kept; a reset is logged with undici's code", async () => {
    const page = { event_subscriptions: [], uri: "http://svc/event_subscriptions", next_page_uri: null };
    const lines: string[] = [];
    const { server, client } = await scripted.start([reset, json(200, page)], {
      logger: (l) => lines.push(l),
    });
    for await (const p of client.eventSubscriptions.pages({ limit: 7 })) expect(p.items).toEqual([]);
    expect(server.requests[1].url).toBe("/event_subscriptions?limit=7");
    expect(lines[0]).toMatch(
      /^service: GET \/event_subscriptions\?limit=… -> UND_ERR_SOCKET after \d+ ms \(attempt 1 of 5\)$/,
    );
    expect(lines[2]).toMatch(/^service: GET \/event_subscriptions\?limit=… -> 200 in \d+ ms/);
  });

  test("a logger that throws loses its line, not the request", async () => {
    const { client } = await scripted.start([json(200, wireSubscription("http://svc", 1))], {
      logger: () => {
        throw new Error("log sink down");
      },
    });
    await expect(client.eventSubscriptions.get(SUB_ID)).resolves.toMatchObject({ id: SUB_ID });
  });
});

describe("SERVICE_LOG", () => {
  test("=debug: the lines go to stderr, without the key or the destination's secret", async () => {
    process.env.SERVICE_LOG = "debug";
    const out = await output(async () => {
      const { client } = await scripted.start([busy, json(201, destination)]);
      await create(client);
    });
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^service: POST \/event_destinations -> 503 in \d+ ms \(attempt 1 of 5/);
    expect(lines[2]).toMatch(/^service: POST \/event_destinations -> 201 in \d+ ms \(attempt 2 of 5/);
    expect(out).not.toContain(API_KEY);
    expect(out).not.toContain(DEST_SECRET);
  });

  test.each([[undefined], ["off"]])("=%s: nothing is written anywhere", async (value) => {
    if (value === undefined) delete process.env.SERVICE_LOG;
    else process.env.SERVICE_LOG = value;
    const out = await output(async () => {
      const { client } = await scripted.start([busy, json(201, destination)]);
      await create(client);
    });
    expect(scripted.server?.requests).toHaveLength(2);
    expect(out).toBe("");
  });

  test("any other value: a ServiceError naming SERVICE_LOG and its values", () => {
    process.env.SERVICE_LOG = "verbose";
    expect(() => new ServiceClient({ apiKey: API_KEY, baseUrl: "http://127.0.0.1:9" })).toThrow(
      new ServiceError('SERVICE_LOG must be "debug" or "off" (or unset), got "verbose"'),
    );
  });
});

test("redactQuery hides each query value, keeps names and a name without a value, and a path without a query", () => {
  expect(redactQuery("/event_subscriptions")).toBe("/event_subscriptions");
  expect(redactQuery("/x?limit=5&before_id=esb_1&flag")).toBe("/x?limit=…&before_id=…&flag");
  expect(redactQuery("?=a")).toBe("?=…");
  expect(redactQuery("/x?")).toBe("/x?");
});

test("SERVICE_LOG's values are read trimmed and in any case; an attempt with no status and no error is an error", () => {
  expect(loggerFromEnv(" Debug ")).toBe(stderrLogger);
  expect(loggerFromEnv(" OFF ")).toBeUndefined();
  expect(() => loggerFromEnv("verbose")).toThrow(
    new ServiceError('SERVICE_LOG must be "debug" or "off" (or unset), got "verbose"'),
  );
  expect(
    formatLogEntry({
      kind: "attempt",
      method: "GET",
      path: "/x",
      attempt: 1,
      maxAttempts: 2,
      durationMs: 3.4,
    }),
  ).toBe("service: GET /x -> error after 3 ms (attempt 1 of 2)");
});
