/**
 * Success shapes of every endpoint, field by field (docs/service-api.md § Requests, § Abuse reports, § Event subscriptions, § Event destinations).
 */
import type { AddressInfo } from "node:net";
import { EVENT_TYPES, ID_BODY_LENGTH } from "service-contract";
import { createApp } from "../../../packages/emulator/app";
import { openStore } from "../../../packages/emulator/store";
import {
  apiRequest,
  getRequestLog,
  startEmulator,
  type RawResponse,
  type RunningEmulator,
} from "../../helpers/emulator";
import {
  destinationBody,
  expectError,
  idPattern,
  RFC3339_SECONDS,
  subscriptionBody,
  TARGETS,
  TARGETS_AS_RETURNED,
} from "../../helpers/emulator-fixtures";

const KEY = "key-resources";
/** The API key of a second account, whose requests must not reach the first account's resources. */
const OTHER = "key-resources-other";
let em: RunningEmulator;
const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  apiRequest(em.url, KEY, method, path, body, headers);
const callAsOther = (method: string, path: string, body?: unknown) =>
  apiRequest(em.url, OTHER, method, path, body);

beforeAll(async () => {
  em = await startEmulator({ apiKeys: [KEY, OTHER] });
});
afterAll(() => em.close());

/** Asserts the success status, JSON content type and a well-formed Operation-Id. */
function expectOk(res: RawResponse, status: number) {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  expect(res.headers["operation-id"]).toMatch(idPattern("op_"));
  if (status !== 204) expect(res.headers["content-type"]).toMatch(/^application\/json/);
  return res.status === 204 ? undefined : res.json();
}

/** Asserts a created_at within a few seconds of now, with whole seconds. */
function expectRecent(createdAt: string) {
  expect(createdAt).toMatch(RFC3339_SECONDS);
  const t = Date.parse(createdAt);
  expect(Math.abs(Date.now() - t)).toBeLessThan(10_000);
}

/**
 * Asserts what every created resource has: exactly `fields` besides `id`, `uri` and `created_at`,
 * an ID with `prefix`, its URI under `/collection`, and a recent `created_at`.
 */
function expectCreated(body: Record<string, unknown>, prefix: string, collection: string, fields: string[]) {
  expect(Object.keys(body).sort()).toEqual([...fields, "created_at", "id", "uri"].sort());
  expect(body.id).toMatch(idPattern(prefix));
  expect(body.uri).toBe(`${em.url}/${collection}/${String(body.id)}`);
  expectRecent(body.created_at as string);
}

async function newDestination(extra: Record<string, unknown> = {}): Promise<string> {
  return expectOk(await call("POST", "/event_destinations", destinationBody(extra)), 201).id;
}

describe("abuse reports", () => {
  it("create answers 201 with every field of the report", async () => {
    const urls = [
      "https://Bad.Example.COM/a",
      "http://other.org:8080/x?y=1",
      "https://bad.example.com/b",
      "http://[::1]/z",
    ];
    const body = expectOk(await call("POST", "/abuse_reports", { urls, metadata: "ticket 7" }), 201);
    expectCreated(body, "abrp_", "abuse_reports", ["hostnames", "metadata", "status", "urls"]);
    expect(body.urls).toEqual(urls);
    expect(body.metadata).toBe("ticket 7");
    expect(body.status).toBe("PENDING");
    expect(body.hostnames).toEqual([
      { hostname: "bad.example.com", status: "PENDING" },
      { hostname: "other.org", status: "PENDING" },
      { hostname: "[::1]", status: "PENDING" },
    ]);
  });

  it("get answers 200 with the same report", async () => {
    const created = expectOk(await call("POST", "/abuse_reports", { urls: ["https://x.example.net/"] }), 201);
    const got = expectOk(await call("GET", `/abuse_reports/${created.id}`), 200);
    expect(got).toEqual(created);
    expect(got.metadata).toBe("");
  });

  it("accepts metadata of exactly 4096 bytes made of multi-byte characters", async () => {
    const metadata = "é".repeat(2048);
    const body = expectOk(await call("POST", "/abuse_reports", { urls: ["https://x.com"], metadata }), 201);
    expect(body.metadata).toBe(metadata);
  });

  it("accepts 100 URLs", async () => {
    const urls = Array.from({ length: 100 }, (_, i) => `https://h${i % 7}.example.org/${i}`);
    const body = expectOk(await call("POST", "/abuse_reports", { urls }), 201);
    expect(body.hostnames.map((h: { hostname: string }) => h.hostname)).toEqual(
      Array.from({ length: 7 }, (_, i) => `h${i}.example.org`),
    );
  });
});

describe("event destinations", () => {
  describe.each(Object.keys(TARGETS) as (keyof typeof TARGETS)[])("with a %s target", (kind) => {
    it("create, get and list return every field, with secrets as empty strings", async () => {
      const created = expectOk(
        await call("POST", "/event_destinations", {
          description: "to " + kind,
          metadata: '{"k":1}',
          format: "json",
          target: TARGETS[kind],
        }),
        201,
      );
      expectCreated(created, "ed_", "event_destinations", ["description", "format", "metadata", "target"]);
      expect(created.description).toBe("to " + kind);
      expect(created.metadata).toBe('{"k":1}');
      expect(created.format).toBe("json");
      expect(created.target).toEqual(TARGETS_AS_RETURNED[kind]);

      expect(expectOk(await call("GET", `/event_destinations/${created.id}`), 200)).toEqual(created);
      const list = expectOk(await call("GET", "/event_destinations"), 200);
      expect(list.event_destinations).toContainEqual(created);
    });
  });

  it("stores the secrets it does not return", async () => {
    const id = await newDestination();
    const row = em.store.snapshot().event_destinations.find((d) => (d as { id: string }).id === id) as {
      target: string;
    };
    expect(JSON.parse(row.target).kinesis.auth.creds.aws_secret_access_key).toBe("secret-1");
  });

  it("defaults metadata and description to empty strings and format to json", async () => {
    const body = expectOk(await call("POST", "/event_destinations", { target: TARGETS.datadog }), 201);
    expect(body).toMatchObject({ metadata: "", description: "", format: "json" });
  });

  it("treats null target kinds as absent", async () => {
    const body = expectOk(
      await call("POST", "/event_destinations", {
        target: { firehose: null, datadog: { api_key: "k" }, kinesis: null },
      }),
      201,
    );
    expect(body.target).toEqual({ datadog: { api_key: "", ddtags: "", service: "", ddsite: "" } });
  });

  it("accepts metadata of exactly 4096 bytes and a description of 255 multi-byte characters", async () => {
    const metadata = "😀".repeat(1024);
    const description = "é".repeat(255);
    const body = expectOk(
      await call("POST", "/event_destinations", destinationBody({ metadata, description })),
      201,
    );
    expect(body.metadata).toBe(metadata);
    expect(body.description).toBe(description);
  });

  it("PATCH keeps omitted fields, replaces sent ones, clears with an empty string", async () => {
    const id = await newDestination({ description: "first", metadata: "m" });
    const before = expectOk(await call("GET", `/event_destinations/${id}`), 200);

    const a = expectOk(await call("PATCH", `/event_destinations/${id}`, { description: "second" }), 200);
    expect(a).toEqual({ ...before, description: "second" });

    const b = expectOk(await call("PATCH", `/event_destinations/${id}`, { metadata: "" }), 200);
    expect(b).toEqual({ ...before, description: "second", metadata: "" });

    const c = expectOk(
      await call("PATCH", `/event_destinations/${id}`, { target: TARGETS["firehose with role"] }),
      200,
    );
    expect(c).toEqual({ ...b, target: TARGETS_AS_RETURNED["firehose with role"] });

    const d = expectOk(await call("PATCH", `/event_destinations/${id}`, { id, format: "json" }), 200);
    expect(d).toEqual(c);
    expect(expectOk(await call("GET", `/event_destinations/${id}`), 200)).toEqual(c);
  });

  it("DELETE answers 204 with no body; afterwards GET and DELETE answer 404", async () => {
    const id = await newDestination();
    const del = await call("DELETE", `/event_destinations/${id}`);
    expectOk(del, 204);
    expect(del.text).toBe("");
    expectError(await call("GET", `/event_destinations/${id}`), 404, 404);
    expectError(await call("DELETE", `/event_destinations/${id}`), 404, 404);
  });

  it("DELETE works once no subscription references the destination any more", async () => {
    const d1 = await newDestination();
    const d2 = await newDestination();
    const sub = expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d1])), 201);
    expectError(await call("DELETE", `/event_destinations/${d1}`), 409, 409);
    expectOk(await call("PATCH", `/event_subscriptions/${sub.id}`, { destination_ids: [d2] }), 200);
    expectOk(await call("DELETE", `/event_destinations/${d1}`), 204);
    expectError(await call("DELETE", `/event_destinations/${d2}`), 409, 409);
    expectOk(await call("DELETE", `/event_subscriptions/${sub.id}`), 204);
    expectOk(await call("DELETE", `/event_destinations/${d2}`), 204);
  });
});

describe("event subscriptions", () => {
  let d1: string;
  let d2: string;
  beforeAll(async () => {
    d1 = await newDestination();
    d2 = await newDestination();
  });

  it("create answers 201 with sources and destinations in the order given", async () => {
    const body = expectOk(
      await call("POST", "/event_subscriptions", {
        metadata: '{"team":"net"}',
        description: "policies",
        sources: [{ type: "ip_policy_updated.v0" }, { type: "ip_policy_created.v0" }],
        destination_ids: [d2, d1],
      }),
      201,
    );
    expectCreated(body, "esb_", "event_subscriptions", [
      "description",
      "destinations",
      "metadata",
      "sources",
    ]);
    const uri = `${em.url}/event_subscriptions/${body.id}`;
    expect(body.metadata).toBe('{"team":"net"}');
    expect(body.description).toBe("policies");
    expect(body.sources).toEqual([
      { type: "ip_policy_updated.v0", uri: `${uri}/sources/ip_policy_updated.v0` },
      { type: "ip_policy_created.v0", uri: `${uri}/sources/ip_policy_created.v0` },
    ]);
    expect(body.destinations).toEqual([
      { id: d2, uri: `${em.url}/event_destinations/${d2}` },
      { id: d1, uri: `${em.url}/event_destinations/${d1}` },
    ]);
  });

  it("get answers 200 with the same subscription; omitted strings are empty", async () => {
    const created = expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d1])), 201);
    expect(created.metadata).toBe("");
    expect(created.description).toBe("");
    expect(expectOk(await call("GET", `/event_subscriptions/${created.id}`), 200)).toEqual(created);
  });

  it("a source URI answers with the source", async () => {
    const created = expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d1])), 201);
    const src = created.sources[0];
    const res = await call("GET", new URL(src.uri).pathname);
    expect(expectOk(res, 200)).toEqual(src);
    expectError(await call("GET", `${new URL(created.uri).pathname}/sources/domain_created.v0`), 404, 404);
  });

  it("accepts 10 sources, 10 destinations, 4096 multi-byte characters of metadata and 255 of description", async () => {
    const dests = [d1, d2];
    for (let i = 0; i < 8; i++) dests.push(await newDestination());
    const types = ["api_key", "domain", "secret", "vault", "tcp_address"].flatMap((r) => [
      `${r}_created.v0`,
      `${r}_deleted.v0`,
    ]);
    const metadata = "😀".repeat(4096); // 4096 characters, 16384 bytes, 8192 UTF-16 units
    const description = "😀".repeat(255);
    const body = expectOk(
      await call("POST", "/event_subscriptions", {
        metadata,
        description,
        sources: types.map((type) => ({ type })),
        destination_ids: dests,
      }),
      201,
    );
    expect(body.metadata).toBe(metadata);
    expect(body.description).toBe(description);
    expect(body.sources.map((s: { type: string }) => s.type)).toEqual(types);
    expect(body.destinations.map((d: { id: string }) => d.id)).toEqual(dests);
  });

  it("accepts every event type of the catalogue", async () => {
    const { EVENT_TYPES } = await import("service-contract");
    expect(EVENT_TYPES).toHaveLength(55);
    for (let i = 0; i < EVENT_TYPES.length; i += 10) {
      const sources = EVENT_TYPES.slice(i, i + 10).map((type) => ({ type }));
      expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d1], { sources })), 201);
    }
  });

  it("PATCH keeps omitted fields, replaces sent ones as a whole, clears with an empty string", async () => {
    const created = expectOk(
      await call(
        "POST",
        "/event_subscriptions",
        subscriptionBody([d1, d2], { description: "d", metadata: "m" }),
      ),
      201,
    );
    const uri = created.uri;

    const a = expectOk(await call("PATCH", `/event_subscriptions/${created.id}`, { description: "" }), 200);
    expect(a).toEqual({ ...created, description: "" });

    const b = expectOk(
      await call("PATCH", `/event_subscriptions/${created.id}`, {
        sources: [{ type: "tunnel_credential_deleted.v0" }],
      }),
      200,
    );
    expect(b).toEqual({
      ...a,
      sources: [{ type: "tunnel_credential_deleted.v0", uri: `${uri}/sources/tunnel_credential_deleted.v0` }],
    });

    const c = expectOk(
      await call("PATCH", `/event_subscriptions/${created.id}`, { destination_ids: [d2] }),
      200,
    );
    expect(c).toEqual({ ...b, destinations: [{ id: d2, uri: `${em.url}/event_destinations/${d2}` }] });

    const d = expectOk(await call("PATCH", `/event_subscriptions/${created.id}`, {}), 200);
    expect(d).toEqual(c);
    const e = expectOk(
      await call("PATCH", `/event_subscriptions/${created.id}`, { id: created.id, metadata: "new" }),
      200,
    );
    expect(e).toEqual({ ...c, metadata: "new" });
    expect(expectOk(await call("GET", `/event_subscriptions/${created.id}`), 200)).toEqual(e);
  });

  it("DELETE answers 204 with no body; afterwards GET, PATCH and DELETE answer 404", async () => {
    const created = expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d1])), 201);
    const del = await call("DELETE", `/event_subscriptions/${created.id}`);
    expectOk(del, 204);
    expect(del.text).toBe("");
    expectError(await call("GET", `/event_subscriptions/${created.id}`), 404, 404);
    expectError(await call("PATCH", `/event_subscriptions/${created.id}`, { description: "x" }), 404, 404);
    expectError(await call("DELETE", `/event_subscriptions/${created.id}`), 404, 404);
  });

  it("list answers the list shape", async () => {
    const body = expectOk(await call("GET", "/event_subscriptions?limit=2"), 200);
    expect(Object.keys(body).sort()).toEqual(["event_subscriptions", "next_page_uri", "uri"]);
    expect(body.uri).toBe(`${em.url}/event_subscriptions`);
    expect(body.event_subscriptions).toHaveLength(2);
    expect(body.next_page_uri).toBe(
      `${em.url}/event_subscriptions?before_id=${body.event_subscriptions[1].id}&limit=2`,
    );
  });
});

describe("URIs", () => {
  const evil = { host: "evil.example" };

  it("ignore the Host header: uri, list uri and next_page_uri stay on the listening URL", async () => {
    const created = expectOk(await call("POST", "/event_destinations", destinationBody(), evil), 201);
    expect(created.uri).toBe(`${em.url}/event_destinations/${created.id}`);
    expect(expectOk(await call("GET", `/event_destinations/${created.id}`, undefined, evil), 200).uri).toBe(
      created.uri,
    );
    await newDestination();
    const page = expectOk(await call("GET", "/event_destinations?limit=1", undefined, evil), 200);
    expect(page.uri).toBe(`${em.url}/event_destinations`);
    expect(page.next_page_uri).toBe(
      `${em.url}/event_destinations?before_id=${page.event_destinations[0].id}&limit=1`,
    );
  });

  it("without a public URL set at run time, use the address the app listens on, not the Host header", async () => {
    const other = await startEmulator({ apiKeys: ["k-host"] });
    try {
      other.app.emulator.publicUrl = undefined;
      const res = await apiRequest(
        other.url,
        "k-host",
        "POST",
        "/event_destinations",
        destinationBody(),
        evil,
      );
      expect(res.json().uri).toBe(`${other.url}/event_destinations/${res.json().id}`);
    } finally {
      await other.close();
    }
  });

  it("createApp without publicUrl bases them on the address it listens on", async () => {
    const store = openStore(":memory:");
    const app = createApp({ store, apiKeys: ["k-app"] });
    try {
      await app.listen({ port: 0, host: "127.0.0.1" });
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const res = await apiRequest(url, "k-app", "POST", "/event_destinations", destinationBody(), evil);
      expect(res.json().uri).toBe(`${url}/event_destinations/${res.json().id}`);
    } finally {
      await app.close();
      store.close();
    }
  });

  it("use the configured public URL", async () => {
    const other = await startEmulator({ apiKeys: ["k-pub"], publicUrl: "https://service.example/" });
    try {
      const res = await apiRequest(
        other.url,
        "k-pub",
        "POST",
        "/event_destinations",
        destinationBody(),
        evil,
      );
      expect(res.json().uri).toMatch(/^https:\/\/service\.example\/event_destinations\/ed_[0-9A-Za-z]{27}$/);
    } finally {
      await other.close();
    }
  });
});

describe("request log", () => {
  it("records method, path with query, status, operation ID and account, but no key or body", async () => {
    const since = (await getRequestLog(em.url, em.adminKey)).requests.at(-1)?.seq ?? 0;
    const ok = await call("GET", "/event_subscriptions?limit=1");
    const bad = await call("POST", "/event_subscriptions", { secret: "do-not-log" });
    const anon = await apiRequest(em.url, "not-a-key", "GET", "/event_destinations");
    const { requests } = await getRequestLog(em.url, em.adminKey, since);
    expect(requests.map(({ seq: _s, time: _t, ...r }) => r)).toEqual([
      {
        method: "GET",
        path: "/event_subscriptions?limit=1",
        status: 200,
        operation_id: ok.headers["operation-id"],
        account_id: expect.stringMatching(idPattern("acct_")),
        fault: null,
        idempotent_replay: false,
      },
      {
        method: "POST",
        path: "/event_subscriptions",
        status: 400,
        operation_id: bad.headers["operation-id"],
        account_id: requests[0].account_id,
        fault: null,
        idempotent_replay: false,
      },
      {
        method: "GET",
        path: "/event_destinations",
        status: 401,
        operation_id: anon.headers["operation-id"],
        account_id: null,
        fault: null,
        idempotent_replay: false,
      },
    ]);
    expect(requests[1].seq).toBeGreaterThan(requests[0].seq);
    expect(Date.parse(requests[0].time)).not.toBeNaN();
    expect(JSON.stringify(requests)).not.toContain(KEY);
    expect(JSON.stringify(requests)).not.toContain("do-not-log");
  });

  it("does not record operator requests, and can be cleared", async () => {
    await call("GET", "/event_subscriptions");
    const { clearRequestLog } = await import("../../helpers/emulator");
    await clearRequestLog(em.url, em.adminKey);
    await getRequestLog(em.url, em.adminKey);
    expect((await getRequestLog(em.url, em.adminKey)).requests).toEqual([]);
    await call("GET", "/event_subscriptions");
    const after = (await getRequestLog(em.url, em.adminKey)).requests;
    expect(after).toHaveLength(1);
    expect(after[0].path).toBe("/event_subscriptions");
  });
});

describe("another account's resources (docs/service-api.md: resources are private to their account)", () => {
  it("answer 404 to GET, PATCH and DELETE by ID, and are left as they were", async () => {
    const d = await newDestination({ description: "mine" });
    const sub = expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d])), 201);
    const report = expectOk(await call("POST", "/abuse_reports", { urls: ["https://bad.example/x"] }), 201);
    const before = {
      d: expectOk(await call("GET", `/event_destinations/${d}`), 200),
      sub: expectOk(await call("GET", `/event_subscriptions/${sub.id}`), 200),
    };

    for (const path of [`/event_destinations/${d}`, `/event_subscriptions/${sub.id}`]) {
      expectError(await callAsOther("GET", path), 404, 404);
      expectError(await callAsOther("PATCH", path, { description: "theirs" }), 404, 404);
      expectError(await callAsOther("DELETE", path), 404, 404);
    }
    expectError(await callAsOther("GET", `/abuse_reports/${report.id}`), 404, 404);

    expect(expectOk(await call("GET", `/event_destinations/${d}`), 200)).toEqual(before.d);
    expect(expectOk(await call("GET", `/event_subscriptions/${sub.id}`), 200)).toEqual(before.sub);
    expect(expectOk(await call("GET", `/abuse_reports/${report.id}`), 200)).toEqual(report);
  });

  it("are neither listed nor accepted as a subscription's destination", async () => {
    const d = await newDestination();
    const theirs = expectOk(await callAsOther("GET", "/event_destinations"), 200);
    expect(theirs.event_destinations.map((x: { id: string }) => x.id)).not.toContain(d);
    const refused = await callAsOther("POST", "/event_subscriptions", subscriptionBody([d]));
    expectError(refused, 400, 223);
    expect(expectOk(await callAsOther("GET", "/event_subscriptions"), 200).event_subscriptions).toEqual([]);
  });
});

describe("IDs in the path, and event types outside the catalogue", () => {
  const wellFormed = (prefix: string) => prefix + "a".repeat(ID_BODY_LENGTH);

  it("an ID of another kind answers 227 naming the kind the path wants", async () => {
    const sub = wellFormed("esb_");
    for (const method of ["GET", "DELETE"]) {
      expectError(
        await call(method, `/event_destinations/${sub}`),
        400,
        227,
        `the ID "${sub}" in the path is not an event destination ID (they start with ed_)`,
      );
    }
  });

  it.each([
    ["/event_destinations/", "event destination", "ed_"],
    ["/event_subscriptions/", "event subscription", "esb_"],
    ["/abuse_reports/", "abuse report", "abrp_"],
  ])(
    "an ID of %s that is not well formed, or that no record has, answers 404 naming it",
    async (path, what, prefix) => {
      for (const id of [`${prefix}short`, `${prefix}${"!".repeat(ID_BODY_LENGTH)}`, wellFormed(prefix)]) {
        expectError(await call("GET", path + id), 404, 404, `no ${what} with ID "${id}"`);
      }
    },
  );

  it("a source of a subscription no one has, or one it lacks, answers 404 naming what is missing", async () => {
    const missing = wellFormed("esb_");
    expectError(
      await call("GET", `/event_subscriptions/${missing}/sources/${EVENT_TYPES[0]}`),
      404,
      404,
      `no event subscription with ID "${missing}"`,
    );
    const d = await newDestination();
    const sub = expectOk(await call("POST", "/event_subscriptions", subscriptionBody([d])), 201);
    const lacking = EVENT_TYPES.find((t) => !sub.sources.some((s: { type: string }) => s.type === t));
    expectError(
      await call("GET", `/event_subscriptions/${sub.id}/sources/${lacking}`),
      404,
      404,
      `event subscription ${sub.id} has no source "${lacking}"`,
    );
  });

  it("an event type outside the catalogue answers 238 with the catalogue's first three types and its size", async () => {
    const d = await newDestination();
    const res = await call(
      "POST",
      "/event_subscriptions",
      subscriptionBody([d], { sources: [{ type: "nope.v1" }] }),
    );
    expectError(
      res,
      400,
      238,
      `sources[0].type: unknown event type; known types include ${EVENT_TYPES.slice(0, 3).join(", ")}, … (${EVENT_TYPES.length} in all)`,
    );
    expect(EVENT_TYPES.length).toBeGreaterThan(3);
  });
});

describe("a PATCH whose path ID is not well formed", () => {
  it.each([
    ["/event_destinations/", "event destination", "ed_"],
    ["/event_subscriptions/", "event subscription", "esb_"],
  ])(
    "answers 404 naming the path's ID on %s before comparing it with the body's id, which a well-formed ID is compared with (215)",
    async (path, what, prefix) => {
      const other = prefix + "b".repeat(ID_BODY_LENGTH);
      const malformed = prefix + "!".repeat(ID_BODY_LENGTH);
      expectError(
        await call("PATCH", path + malformed, { id: other }),
        404,
        404,
        `no ${what} with ID "${malformed}"`,
      );
      const absent = prefix + "a".repeat(ID_BODY_LENGTH);
      expectError(
        await call("PATCH", path + absent, { id: other }),
        400,
        215,
        `id: must equal the ID in the path (${absent})`,
      );
    },
  );
});
