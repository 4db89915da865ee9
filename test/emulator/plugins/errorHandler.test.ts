/**
 * Every row of the error table of docs/service-api.md § Errors, over real HTTP, with the order in which
 * the checks apply. After each bad request the stored data must be exactly what it was before.
 */
import {
  apiRequest,
  rawRequest,
  startEmulator,
  type RawResponse,
  type RunningEmulator,
} from "../../helpers/emulator";
import {
  absentId,
  destinationBody,
  expectError,
  subscriptionBody,
  TARGETS,
} from "../../helpers/emulator-fixtures";

const A = "key-account-a";
const B = "key-account-b";
const R = "key-restricted";

interface Ctx {
  url: string;
  dA1: string;
  dA2: string;
  sA: string;
  rA: string;
  dB: string;
  sB: string;
  rB: string;
}

let em: RunningEmulator;
const ctx = {} as Ctx;

/** A request of account A (or `key`) with the usual headers. */
const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = A) =>
  apiRequest(ctx.url, key, method, path, body, headers);

/** Usual headers without a body. */
const auth = (key = A) => ({ authorization: `Bearer ${key}`, "service-version": "2" });

beforeAll(async () => {
  em = await startEmulator({ apiKeys: [A, B], restrictedApiKeys: [R] });
  ctx.url = em.url;
  const created = async (res: Promise<RawResponse>) => {
    const r = await res;
    expect(r.status).toBe(201);
    return r.json().id as string;
  };
  ctx.dA1 = await created(call("POST", "/event_destinations", destinationBody()));
  ctx.dA2 = await created(call("POST", "/event_destinations", destinationBody({ description: "unused" })));
  ctx.sA = await created(call("POST", "/event_subscriptions", subscriptionBody([ctx.dA1])));
  ctx.rA = await created(call("POST", "/abuse_reports", { urls: ["https://a.example.com/x"] }));
  ctx.dB = await created(call("POST", "/event_destinations", destinationBody(), {}, B));
  ctx.sB = await created(call("POST", "/event_subscriptions", subscriptionBody([ctx.dB]), {}, B));
  ctx.rB = await created(call("POST", "/abuse_reports", { urls: ["https://b.example.com/x"] }, {}, B));
});

afterAll(() => em.close());

interface Row {
  name: string;
  send: () => Promise<RawResponse>;
  status: number;
  code: number;
  msg?: RegExp;
}

const row = (
  name: string,
  status: number,
  code: number,
  send: () => Promise<RawResponse>,
  msg?: RegExp,
): Row => ({
  name,
  send,
  status,
  code,
  msg,
});

/**
 * The rows of `GET`, `PATCH` (a valid description) and `DELETE` of the resource at `path()`, in
 * that order, each answered `status` / `code`, named `<METHOD> of <what>`.
 */
const itemMethods = (what: string, path: () => string, status: number, code: number): Row[] =>
  (["GET", "PATCH", "DELETE"] as const).map((method) =>
    row(`${method} of ${what}`, status, code, () =>
      call(method, path(), method === "PATCH" ? { description: "x" } : undefined),
    ),
  );

/**
 * The rows of a request sending `Service-Version: <value>` (`""` leaves the header out): a `GET`
 * of the subscriptions (named `name`) and a `POST` of a destination (`<name> on POST`), each
 * answered 400 / `code` with a message naming the header.
 */
const serviceVersionRows = (name: string, value: string, code: number): Row[] => [
  row(
    name,
    400,
    code,
    () => call("GET", "/event_subscriptions", undefined, { "service-version": value }),
    /Service-Version/,
  ),
  row(
    `${name} on POST`,
    400,
    code,
    () => call("POST", "/event_destinations", destinationBody(), { "service-version": value }),
    /Service-Version/,
  ),
];

/** A row answered 400 / 215: a field of the wrong type, missing, or breaking a limit. */
const invalid = (name: string, send: () => Promise<RawResponse>, msg?: RegExp): Row =>
  row(name, 400, 215, send, msg);

/**
 * Rows answered 400 / `code` of requests `method path` (`path()` read when a row runs, once the IDs
 * of `ctx` exist), one per `[name, body, msg?]`: the body sent is `body`, or what `body()` returns
 * when the row runs.
 */
const badBodies = (
  code: number,
  method: string,
  path: string | (() => string),
  rows: [name: string, body: unknown, msg?: RegExp][],
): Row[] =>
  rows.map(([name, body, msg]) =>
    row(
      name,
      400,
      code,
      () =>
        call(method, typeof path === "string" ? path : path(), typeof body === "function" ? body() : body),
      msg,
    ),
  );

const e = "é"; // 2 bytes of UTF-8, 1 character
const smile = "😀"; // 4 bytes of UTF-8, 2 UTF-16 units, 1 character
const eleven = <T>(f: (i: number) => T) => Array.from({ length: 11 }, (_, i) => f(i));
const someTypes = [
  "ip_policy_created.v0",
  "ip_policy_updated.v0",
  "ip_policy_deleted.v0",
  "domain_created.v0",
];

const groups: [string, Row[]][] = [
  [
    "authentication (401)",
    [
      row("no Authorization header", 401, 201, () =>
        rawRequest({
          method: "GET",
          url: `${ctx.url}/event_subscriptions`,
          headers: { "service-version": "2" },
        }),
      ),
      row("a Basic Authorization header", 401, 201, () =>
        call("GET", "/event_subscriptions", undefined, { authorization: "Basic YTpi" }),
      ),
      row("Bearer without a token", 401, 201, () =>
        call("GET", "/event_subscriptions", undefined, { authorization: "Bearer " }),
      ),
      row("a token with a space in it", 401, 202, () =>
        call("GET", "/event_subscriptions", undefined, { authorization: "Bearer abc def" }),
      ),
      row("a token with non-ASCII characters", 401, 202, () =>
        call("GET", "/event_subscriptions", undefined, { authorization: "Bearer clé" }),
      ),
      row("a token longer than 512 characters", 401, 202, () =>
        call("GET", "/event_subscriptions", undefined, { authorization: `Bearer ${"k".repeat(513)}` }),
      ),
      row("an unknown key", 401, 203, () =>
        call("GET", "/event_subscriptions", undefined, {}, "no-such-key"),
      ),
      row("an unknown key on POST", 401, 203, () =>
        call("POST", "/event_destinations", destinationBody(), {}, "no-such-key"),
      ),
    ],
  ],
  [
    "Service-Version (400)",
    [
      ...serviceVersionRows("missing", "", 218),
      ...serviceVersionRows("1", "1", 217),
      ...serviceVersionRows("3", "3", 217),
      ...serviceVersionRows("empty", " ", 217),
    ],
  ],
  [
    "body and content type",
    [
      row("a body without Content-Type", 400, 216, () =>
        rawRequest({
          method: "POST",
          url: `${ctx.url}/event_destinations`,
          headers: auth(),
          body: JSON.stringify(destinationBody()),
        }),
      ),
      row("a chunked body without Content-Type", 400, 216, () =>
        rawRequest({
          method: "POST",
          url: `${ctx.url}/event_destinations`,
          headers: auth(),
          body: "{}",
          chunked: true,
        }),
      ),
      row("Content-Type text/plain", 415, 210, () =>
        call("POST", "/event_destinations", destinationBody(), { "content-type": "text/plain" }),
      ),
      row("Content-Type application/x-www-form-urlencoded on PATCH", 415, 210, () =>
        call("PATCH", `/event_subscriptions/${ctx.sA}`, "description=x", {
          "content-type": "application/x-www-form-urlencoded",
        }),
      ),
      row("a body on GET", 400, 211, () => call("GET", `/event_subscriptions/${ctx.sA}`, {})),
      row("a body on GET without Content-Type", 400, 211, () =>
        rawRequest({ method: "GET", url: `${ctx.url}/event_subscriptions`, headers: auth(), body: "x" }),
      ),
      row("a body on DELETE", 400, 211, () => call("DELETE", `/event_subscriptions/${ctx.sA}`, {})),
      row("malformed JSON", 400, 213, () => call("POST", "/event_destinations", '{"target": '), /JSON/),
      row("a JSON array", 400, 213, () => call("POST", "/event_subscriptions", "[]"), /object/),
      row("a JSON string", 400, 213, () => call("POST", "/abuse_reports", '"urls"')),
      row("JSON null", 400, 213, () => call("PATCH", `/event_subscriptions/${ctx.sA}`, "null")),
      row("an empty body on POST", 400, 213, () => call("POST", "/event_subscriptions", "")),
      row("a body over 1 MiB", 413, 413, () =>
        call("POST", "/event_destinations", JSON.stringify({ metadata: "a".repeat(1024 * 1024) })),
      ),
    ],
  ],
  [
    "unknown fields (214)",
    [
      row(
        "abuse report",
        400,
        214,
        () => call("POST", "/abuse_reports", { urls: ["https://x.com"], status: "PENDING" }),
        /"status".*urls, metadata/,
      ),
      row(
        "subscription",
        400,
        214,
        () => call("POST", "/event_subscriptions", { ...subscriptionBody([ctx.dA1]), destinations: [] }),
        /"destinations".*metadata, description, sources, destination_ids/,
      ),
      row(
        "subscription source",
        400,
        214,
        () =>
          call(
            "POST",
            "/event_subscriptions",
            subscriptionBody([ctx.dA1], { sources: [{ type: "ip_policy_created.v0", uri: "x" }] }),
          ),
        /sources\[0\]\.uri/,
      ),
      row(
        "subscription PATCH",
        400,
        214,
        () => call("PATCH", `/event_subscriptions/${ctx.sA}`, { created_at: "x" }),
        /created_at/,
      ),
      row(
        "destination",
        400,
        214,
        () => call("POST", "/event_destinations", destinationBody({ kind: "x" })),
        /"kind"/,
      ),
      row(
        "destination target",
        400,
        214,
        () =>
          call("POST", "/event_destinations", {
            target: { kinesis: { ...TARGETS["kinesis with creds"].kinesis, region: "x" } },
          }),
        /target\.kinesis\.region.*auth, stream_arn/,
      ),
      row(
        "destination auth",
        400,
        214,
        () =>
          call("POST", "/event_destinations", {
            target: {
              firehose: { auth: { role: { role_arn: "r", external_id: "e" } }, delivery_stream_arn: "a" },
            },
          }),
        /target\.firehose\.auth\.role\.external_id/,
      ),
      row(
        "destination PATCH",
        400,
        214,
        () => call("PATCH", `/event_destinations/${ctx.dA1}`, { uri: "x" }),
        /"uri"/,
      ),
    ],
  ],
  [
    "types, required fields and limits (215)",
    [
      ...badBodies(215, "POST", "/abuse_reports", [
        ["urls missing", { metadata: "m" }, /^urls: required/],
        ["urls not a list", { urls: "https://x.com" }, /^urls: must be a list/],
        ["urls with a number", { urls: [1] }, /^urls\[0\]: must be a string/],
        ["urls empty", { urls: [] }, /^urls: at least 1 item, got 0/],
        [
          "urls with 101 entries",
          { urls: Array.from({ length: 101 }, (_, i) => `https://h${i}.com/`) },
          /^urls: at most 100 items, got 101/,
        ],
        [
          "url without a scheme",
          { urls: ["example.com/x"] },
          /^urls\[0\]: must be an absolute http or https URL/,
        ],
        ["relative url", { urls: ["https://ok.com", "/x"] }, /^urls\[1\]/],
        ["ftp url", { urls: ["ftp://example.com/x"] }, /http or https/],
        ["mailto url", { urls: ["mailto:a@example.com"] }],
        ["file url without a host", { urls: ["file:///etc/passwd"] }],
        ["http url without a host", { urls: ["http://"] }],
        ["url without slashes after the scheme", { urls: ["http:example.com/x"] }],
        ["url with leading white space", { urls: [" https://example.com/x"] }],
        ["empty url", { urls: [""] }],
        [
          "abuse report metadata of 4097 bytes (2048 × é + a)",
          { urls: ["https://x.com"], metadata: e.repeat(2048) + "a" },
          /^metadata: at most 4096 bytes, got 4097/,
        ],
        [
          "abuse report metadata of 4100 bytes (1025 × 😀)",
          { urls: ["https://x.com"], metadata: smile.repeat(1025) },
          /^metadata: at most 4096 bytes, got 4100/,
        ],
        ["abuse report metadata not a string", { urls: ["https://x.com"], metadata: {} }],
      ]),
      ...badBodies(215, "POST", "/event_subscriptions", [
        ["sources missing", () => ({ destination_ids: [ctx.dA1] }), /^sources: required/],
        [
          "destination_ids missing",
          { sources: [{ type: "ip_policy_created.v0" }] },
          /^destination_ids: required/,
        ],
        [
          "sources empty",
          () => subscriptionBody([ctx.dA1], { sources: [] }),
          /^sources: at least 1 item, got 0/,
        ],
        [
          "sources with 11 entries",
          () => subscriptionBody([ctx.dA1], { sources: eleven((i) => ({ type: `t${i}` })) }),
          /^sources: at most 10 items, got 11/,
        ],
        [
          "a source without type",
          () => subscriptionBody([ctx.dA1], { sources: [{}] }),
          /^sources\[0\]\.type: required/,
        ],
        [
          "a source that is a string",
          () => subscriptionBody([ctx.dA1], { sources: ["ip_policy_created.v0"] }),
          /^sources\[0\]: must be an object/,
        ],
        [
          "duplicate source types",
          () =>
            subscriptionBody([ctx.dA1], {
              sources: [{ type: someTypes[0] }, { type: someTypes[1] }, { type: someTypes[0] }],
            }),
          /^sources\[2\]\.type: duplicate event type/,
        ],
        ["destination_ids empty", subscriptionBody([]), /^destination_ids: at least 1 item, got 0/],
        [
          "destination_ids with 11 entries",
          subscriptionBody(eleven((i) => absentId("ed_").slice(0, -1) + i.toString(36))),
          /^destination_ids: at most 10 items, got 11/,
        ],
        ["destination_ids with a number", subscriptionBody([7 as unknown as string])],
        ["duplicate destination_ids", () => subscriptionBody([ctx.dA1, ctx.dA1]), /duplicate destination ID/],
        [
          "subscription metadata of 4097 characters (😀)",
          () => subscriptionBody([ctx.dA1], { metadata: smile.repeat(4097) }),
          /^metadata: at most 4096 characters, got 4097/,
        ],
        [
          "subscription description of 256 characters (é)",
          () => subscriptionBody([ctx.dA1], { description: e.repeat(256) }),
          /^description: at most 255 characters, got 256/,
        ],
      ]),
      ...badBodies(215, "PATCH", () => `/event_subscriptions/${ctx.sA}`, [
        [
          "subscription description of 256 ASCII characters on PATCH",
          { description: "d".repeat(256) },
          /^description: at most 255 characters, got 256/,
        ],
        ["subscription description null on PATCH", { description: null }],
        ["sources empty on PATCH", { sources: [] }],
        ["destination_ids empty on PATCH", { destination_ids: [] }],
        ["an id in a PATCH body that differs from the path", { id: absentId("esb_") }, /^id:/],
      ]),
      ...badBodies(215, "POST", "/event_destinations", [
        ["destination target missing", { description: "x" }, /^target: required/],
        ["destination target with no kind", { target: {} }, /^target: exactly one of .* got none/],
        [
          "destination target with two kinds",
          { target: { ...TARGETS.datadog, ...TARGETS["kinesis with creds"] } },
          /^target: exactly one of .* got kinesis, datadog/,
        ],
        [
          "destination auth with role and creds",
          {
            target: {
              kinesis: {
                stream_arn: "s",
                auth: {
                  role: { role_arn: "r" },
                  creds: { aws_access_key_id: "a", aws_secret_access_key: "b" },
                },
              },
            },
          },
          /^target\.kinesis\.auth: exactly one of role, creds/,
        ],
        ["destination auth empty", { target: { kinesis: { stream_arn: "s", auth: {} } } }],
        [
          "destination kinesis without stream_arn",
          { target: { kinesis: { auth: { role: { role_arn: "r" } } } } },
          /^target\.kinesis\.stream_arn: required/,
        ],
        [
          "destination datadog without api_key",
          { target: { datadog: { ddsite: "x" } } },
          /api_key: required/,
        ],
        [
          "destination azure with an empty client_secret",
          {
            target: {
              azure_logs_ingestion: {
                ...TARGETS.azure_logs_ingestion.azure_logs_ingestion,
                client_secret: "",
              },
            },
          },
          /client_secret: must not be empty/,
        ],
        ["destination format xml", destinationBody({ format: "xml" }), /^format: must be one of "json"/],
        [
          "destination metadata of 4097 bytes (2048 × é + a)",
          destinationBody({ metadata: e.repeat(2048) + "a" }),
          /^metadata: at most 4096 bytes, got 4097/,
        ],
        [
          "destination description of 256 characters (😀)",
          destinationBody({ description: smile.repeat(256) }),
          /^description: at most 255 characters, got 256/,
        ],
      ]),
      ...badBodies(215, "PATCH", () => `/event_destinations/${ctx.dA1}`, [
        [
          "destination target with two kinds on PATCH",
          { target: { ...TARGETS.datadog, ...TARGETS["firehose with role"] } },
        ],
      ]),
      ...badBodies(215, "POST", "/event_destinations", [
        ["destination target not an object", { target: "kinesis" }, /^target: must be an object/],
      ]),
      ...badBodies(215, "GET", () => `/event_subscriptions?before_id=${ctx.dA1}`, [
        ["before_id of the wrong kind", undefined, /^before_id/],
      ]),
    ],
  ],
  [
    "event types (238)",
    [
      ...badBodies(238, "POST", "/event_subscriptions", [
        [
          "unknown type",
          () => subscriptionBody([ctx.dA1], { sources: [{ type: "ip_policy_created.v1" }] }),
          /^sources\[0\]\.type: unknown event type; known types include/,
        ],
        ["empty type", () => subscriptionBody([ctx.dA1], { sources: [{ type: "" }] })],
        [
          "unknown type after known ones",
          () => subscriptionBody([ctx.dA1], { sources: [{ type: someTypes[0] }, { type: "nope" }] }),
          /^sources\[1\]\.type/,
        ],
      ]),
      row("unknown type on PATCH", 400, 238, () =>
        call("PATCH", `/event_subscriptions/${ctx.sA}`, { sources: [{ type: "IP_POLICY_CREATED.V0" }] }),
      ),
    ],
  ],
  [
    "IDs in the path (227) and limit (233)",
    [
      row(
        "subscription GET with a destination ID",
        400,
        227,
        () => call("GET", `/event_subscriptions/${ctx.dA1}`),
        /esb_/,
      ),
      row("subscription PATCH with a destination ID", 400, 227, () =>
        call("PATCH", `/event_subscriptions/${ctx.dA1}`, { description: "x" }),
      ),
      row("subscription DELETE with an abuse report ID", 400, 227, () =>
        call("DELETE", `/event_subscriptions/${ctx.rA}`),
      ),
      row("destination GET with a subscription ID", 400, 227, () =>
        call("GET", `/event_destinations/${ctx.sA}`),
      ),
      row("destination DELETE with a subscription ID", 400, 227, () =>
        call("DELETE", `/event_destinations/${ctx.sA}`),
      ),
      row("abuse report GET with a subscription ID", 400, 227, () => call("GET", `/abuse_reports/${ctx.sA}`)),
      row("subscription GET with no prefix", 400, 227, () => call("GET", "/event_subscriptions/12345")),
      row("limit 0", 400, 233, () => call("GET", "/event_subscriptions?limit=0"), /between 1 and 100/),
      row("limit 101", 400, 233, () => call("GET", "/event_subscriptions?limit=101")),
      row("limit -1", 400, 233, () => call("GET", "/event_destinations?limit=-1")),
      row("limit 1.5", 400, 233, () => call("GET", "/event_destinations?limit=1.5")),
      row("limit abc", 400, 233, () => call("GET", "/event_subscriptions?limit=abc")),
      row("limit empty", 400, 233, () => call("GET", "/event_subscriptions?limit=")),
      row("limit given twice", 400, 233, () => call("GET", "/event_subscriptions?limit=1&limit=2")),
    ],
  ],
  [
    "existence and references (404, 223, 409)",
    [
      ...itemMethods("another account's subscription", () => `/event_subscriptions/${ctx.sB}`, 404, 404),
      ...itemMethods("another account's destination", () => `/event_destinations/${ctx.dB}`, 404, 404),
      row("GET of another account's abuse report", 404, 404, () => call("GET", `/abuse_reports/${ctx.rB}`)),
      row("GET of a subscription that never existed", 404, 404, () =>
        call("GET", `/event_subscriptions/${absentId("esb_")}`),
      ),
      row("GET of a malformed subscription ID", 404, 404, () =>
        call("GET", "/event_subscriptions/esb_short"),
      ),
      row("DELETE of a destination that never existed", 404, 404, () =>
        call("DELETE", `/event_destinations/${absentId("ed_")}`),
      ),
      row("GET of an abuse report that never existed", 404, 404, () =>
        call("GET", `/abuse_reports/${absentId("abrp_")}`),
      ),
      row(
        "a subscription with an unknown destination ID",
        400,
        223,
        () => call("POST", "/event_subscriptions", subscriptionBody([absentId("ed_")])),
        /destination_ids/,
      ),
      row("a subscription with another account's destination", 400, 223, () =>
        call("POST", "/event_subscriptions", subscriptionBody([ctx.dA1, ctx.dB])),
      ),
      row("a subscription with a subscription ID as destination", 400, 223, () =>
        call("POST", "/event_subscriptions", subscriptionBody([ctx.sA])),
      ),
      row("a subscription with a malformed destination ID", 400, 223, () =>
        call("POST", "/event_subscriptions", subscriptionBody(["ed_nope"])),
      ),
      row("a PATCH with another account's destination", 400, 223, () =>
        call("PATCH", `/event_subscriptions/${ctx.sA}`, { destination_ids: [ctx.dB] }),
      ),
      row(
        "deleting a destination still in use",
        409,
        409,
        () => call("DELETE", `/event_destinations/${ctx.dA1}`),
        /still used by event subscription\(s\) esb_/,
      ),
    ],
  ],
  [
    "authorization, methods and paths",
    [
      row("restricted account creating an abuse report", 403, 221, () =>
        call("POST", "/abuse_reports", { urls: ["https://x.com"] }, {}, R),
      ),
      row("restricted account reading an abuse report", 403, 221, () =>
        call("GET", `/abuse_reports/${ctx.rA}`, undefined, {}, R),
      ),
      row("PUT on the subscriptions collection", 405, 405, () => call("PUT", "/event_subscriptions", {})),
      row("POST on a subscription", 405, 405, () => call("POST", `/event_subscriptions/${ctx.sA}`, {})),
      row("DELETE on an abuse report", 405, 405, () => call("DELETE", `/abuse_reports/${ctx.rA}`)),
      row("PATCH on an abuse report", 405, 405, () =>
        call("PATCH", `/abuse_reports/${ctx.rA}`, { metadata: "x" }),
      ),
      row("listing abuse reports", 405, 405, () => call("GET", "/abuse_reports")),
      row("an unknown path", 404, 404, () => call("GET", "/event_things")),
      row("an unknown nested path", 404, 404, () =>
        call("GET", `/event_subscriptions/${ctx.sA}/destinations`),
      ),
      row("a path that cannot be decoded", 404, 404, () => call("GET", "/event_subscriptions/%E0%A4%A")),
      row("an over-long ID in the path", 404, 404, () =>
        call("GET", `/event_subscriptions/esb_${"a".repeat(3000)}`),
      ),
      row("a trailing slash", 404, 404, () => call("GET", "/event_subscriptions/")),
    ],
  ],
  [
    "order of the checks",
    [
      row("unknown key before missing version", 401, 203, () =>
        call("GET", "/nowhere", "[", { "service-version": "", "content-type": "text/plain" }, "nobody"),
      ),
      row("missing version before content type", 400, 218, () =>
        call("POST", "/event_subscriptions", "x", { "service-version": "", "content-type": "text/plain" }),
      ),
      row("wrong version before a body on GET", 400, 217, () =>
        call("GET", "/event_subscriptions", "x", { "service-version": "9" }),
      ),
      row("missing version before an unknown path", 400, 218, () =>
        call("GET", "/nowhere", undefined, { "service-version": "" }),
      ),
      row("405 before content type", 405, 405, () =>
        call("PUT", "/event_subscriptions", "x", { "content-type": "text/plain" }),
      ),
      row("authorization for abuse reports before malformed JSON", 403, 221, () =>
        call("POST", "/abuse_reports", "{", {}, R),
      ),
      row("content type before malformed JSON", 415, 210, () =>
        call("POST", "/event_subscriptions", "{", { "content-type": "text/plain" }),
      ),
      row("malformed JSON before the path prefix", 400, 213, () =>
        call("PATCH", `/event_subscriptions/${"ed_x"}`, "{"),
      ),
      row("unknown field before a wrong type", 400, 214, () =>
        call("POST", "/event_subscriptions", { sources: "x", extra: 1 }),
      ),
      row("nested unknown field before a top-level wrong type", 400, 214, () =>
        call("POST", "/event_subscriptions", {
          metadata: 5,
          sources: [{ type: "x", extra: 1 }],
          destination_ids: [],
        }),
      ),
      invalid("a wrong type before an unknown event type", () =>
        call("POST", "/event_subscriptions", { sources: [{ type: "nope" }], destination_ids: "x" }),
      ),
      row("unknown event type before the path prefix", 400, 238, () =>
        call("PATCH", `/event_subscriptions/${ctx.dA1}`, { sources: [{ type: "nope" }] }),
      ),
      row("path prefix before a foreign destination", 400, 227, () =>
        call("PATCH", `/event_subscriptions/${ctx.dA1}`, { destination_ids: [ctx.dB] }),
      ),
      row("404 of the path before a foreign destination", 404, 404, () =>
        call("PATCH", `/event_subscriptions/${ctx.sB}`, { destination_ids: [ctx.dB] }),
      ),
      row("limit before before_id", 400, 233, () => call("GET", `/event_subscriptions?limit=0&before_id=x`)),
    ],
  ],
];

describe("emulator error responses", () => {
  describe.each(groups)("%s", (_group, rows) => {
    it.each(rows)(
      "$name answers $status / $code and changes nothing",
      async ({ send, status, code, msg }) => {
        const before = em.store.snapshot();
        const res = await send();
        expectError(res, status, code, msg);
        expect(em.store.snapshot()).toEqual(before);
      },
    );
  });

  it("sends Allow with 405", async () => {
    const res = await call("PUT", "/event_subscriptions", {});
    expect(res.headers.allow).toBe("POST, GET");
  });

  it("keeps the data unchanged as seen through the API after a run of bad writes", async () => {
    const list = async () => (await call("GET", "/event_subscriptions")).json();
    const before = await list();
    await call("POST", "/event_subscriptions", subscriptionBody([ctx.dA1, ctx.dB]));
    await call("PATCH", `/event_subscriptions/${ctx.sA}`, {
      description: "x",
      destination_ids: [absentId("ed_")],
    });
    await call("DELETE", `/event_destinations/${ctx.dA1}`);
    expect(await list()).toEqual(before);
    expect((await call("GET", `/event_destinations/${ctx.dA1}`)).status).toBe(200);
  });
});

describe("error messages quote no value of the body or the headers", () => {
  const SECRET = "SECRET_7d1e0c9b";
  const datadog = (apiKey: string) => ({ target: { datadog: { api_key: apiKey } } });
  const leaks: Row[] = [
    row("a Content-Type with a parameter", 415, 210, () =>
      call("POST", "/event_destinations", datadog(SECRET), { "content-type": `text/plain; x=${SECRET}` }),
    ),
    row("a Service-Version", 400, 217, () =>
      call("GET", "/event_subscriptions", undefined, { "service-version": SECRET }),
    ),
    invalid("a format", () => call("POST", "/event_destinations", { ...datadog("k"), format: SECRET })),
    invalid("a URL", () => call("POST", "/abuse_reports", { urls: [SECRET] })),
    row("an event type", 400, 238, () =>
      call("POST", "/event_subscriptions", subscriptionBody([ctx.dA1], { sources: [{ type: SECRET }] })),
    ),
    row("a malformed destination ID", 400, 223, () =>
      call("POST", "/event_subscriptions", subscriptionBody([SECRET])),
    ),
    invalid("a repeated destination ID", () =>
      call("POST", "/event_subscriptions", subscriptionBody([SECRET, SECRET])),
    ),
    invalid("an id in a PATCH body", () => call("PATCH", `/event_destinations/${ctx.dA1}`, { id: SECRET })),
    row("a JSON body cut after a secret", 400, 213, () =>
      call("POST", "/event_destinations", `{"target":{"datadog":{"api_key":"${SECRET}"`),
    ),
  ];

  it.each(leaks)("$name: $status / $code without the value", async ({ send, status, code }) => {
    const before = em.store.snapshot();
    const res = await send();
    expectError(res, status, code);
    expect(res.text).not.toContain(SECRET);
    expect(JSON.stringify(res.headers)).not.toContain(SECRET);
    expect(em.store.snapshot()).toEqual(before);
  });

  it("a reused Idempotency-Key: 409 / 240 without the key", async () => {
    const idem = { "idempotency-key": SECRET };
    await call("POST", "/event_destinations", destinationBody({ description: "idem-leak" }), idem);
    const before = em.store.snapshot();
    const res = await call("POST", "/event_destinations", destinationBody({ description: "other" }), idem);
    expectError(res, 409, 240, /Idempotency-Key was already used/);
    expect(JSON.parse(res.text).msg).not.toContain(SECRET);
    expect(em.store.snapshot()).toEqual(before);
  });

  it("an operator review of a hostname the report lacks: 400 / 215 without the hostname", async () => {
    const res = await rawRequest({
      method: "POST",
      url: `${ctx.url}/_operator/abuse_reports/${ctx.rA}/review`,
      headers: { authorization: `Bearer ${em.adminKey}`, "content-type": "application/json" },
      body: JSON.stringify({ hostnames: [{ hostname: `${SECRET}.org`, status: "BANNED" }] }),
    });
    expectError(res, 400, 215, /^hostnames\[0\]\.hostname: not a hostname of abuse report/);
    expect(res.text).not.toContain(SECRET);
  });
});
