/**
 * The contract's request validation: `validateRequest` and `requestIssues` map the schema's own
 * `safeParse` onto the service's codes, messages and order, so a body is valid exactly when the
 * schema accepts it, and the first error is the service's.
 *
 * What the former oracle proved: until the schemas became the validation, this file compared
 * every answer with a frozen copy of the emulator's first, hand-written validator (the one its
 * error tables were written against). The mapping of zod's issues gave the same first error
 * (code and message, values quoted) as that validator on all of its corpus: the hand-picked
 * bodies below and 2,000 generated bodies per schema (seed 42), and on 15,000 more of another
 * seed. The oracle was then removed; the table of first errors below was taken from it.
 */
import fc from "fast-check";
import { z } from "zod";
import {
  AbuseReportCreate,
  ApiKeyRevoke,
  EventDestinationCreate,
  EventDestinationUpdate,
  EventSubscriptionCreate,
  EventSubscriptionUpdate,
  FaultConfig,
  Id,
  type IssueOptions,
  keysToCamel,
  list,
  requestIssues,
  Review,
  validateRequest,
} from "service-contract";

const TARGETS = [
  { firehose: { auth: { role: { role_arn: "arn:r" } }, delivery_stream_arn: "arn:s" } },
  {
    kinesis: {
      auth: { creds: { aws_access_key_id: "AKIA", aws_secret_access_key: "s" } },
      stream_arn: "arn:k",
    },
  },
  { cloudwatch_logs: { auth: { role: { role_arn: "arn:r" } }, log_group_arn: "arn:g" } },
  { datadog: { api_key: "k", ddtags: "a:b", service: "s", ddsite: "datadoghq.eu" } },
  {
    azure_logs_ingestion: {
      tenant_id: "t",
      client_id: "c",
      client_secret: "s",
      logs_ingestion_uri: "https://x",
      data_collection_rule_id: "d",
      data_collection_stream_name: "n",
    },
  },
];
const ED = "ed_" + "0".repeat(26) + "1";

/** [name, contract schema, camelCase on the wire, valid bodies]. */
const CASES: [string, z.ZodType, boolean, Record<string, unknown>[]][] = [
  ["abuse report", AbuseReportCreate, false, [{ urls: ["https://a.example.com/x"], metadata: "m" }]],
  [
    "subscription create",
    EventSubscriptionCreate,
    false,
    [{ sources: [{ type: "ip_policy_created.v0" }], destination_ids: [ED], description: "d", metadata: "m" }],
  ],
  [
    "subscription update",
    EventSubscriptionUpdate,
    false,
    [{ description: "d" }, { id: "x", sources: [{ type: "ip_policy_updated.v0" }] }],
  ],
  [
    "destination create",
    EventDestinationCreate,
    false,
    TARGETS.map((target) => ({ target, format: "json" })),
  ],
  ["destination update", EventDestinationUpdate, false, TARGETS.map((target) => ({ target, id: "x" }))],
  ["review", Review, false, [{ hostnames: [{ hostname: "a.org", status: "BANNED" }] }]],
  ["faults", FaultConfig, true, [{ status503: 0.1, latencyMs: 200, seed: 7 }, {}]],
];

/** The contract's first error with values quoted, as the former validator wrote them. */
function contractOutcome(body: Record<string, unknown>, schema: z.ZodType, camel: boolean): string {
  const issue = validateRequest(schema, body, camel, true);
  return issue === undefined ? "ok" : `${issue.code} ${issue.message}`;
}

/** Replaces the value at a random path of `value` (objects and lists), or adds a key. */
function mutate(value: unknown, path: number[], replacement: unknown, key: string): unknown {
  if (path.length === 0 || value === null || typeof value !== "object") return replacement;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : { ...(value as object) };
  const keys = Object.keys(copy);
  if (keys.length === 0 || path[0] % (keys.length + 1) === keys.length) {
    (copy as Record<string, unknown>)[key] = replacement;
    return copy;
  }
  const k = keys[path[0] % keys.length];
  (copy as Record<string, unknown>)[k] = mutate(
    (copy as Record<string, unknown>)[k],
    path.slice(1),
    replacement,
    key,
  );
  return copy;
}

const replacement = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "",
    "x".repeat(256),
    "é".repeat(4097),
    "🙂".repeat(256),
    "ftp://x",
    "https://",
    null,
    -1,
    1.5,
    2,
    600_001,
  ),
  fc.array(
    fc.constantFrom("a", "a", "A", { type: "ip_policy_created.v0" }, { hostname: "A.org", status: "BANNED" }),
    { maxLength: 12 },
  ),
);
const key = fc.constantFrom(
  "unknown",
  "destinationIds",
  "latency_ms",
  "id",
  "type",
  "role",
  "creds",
  "datadog",
  "kinesis",
  "__proto__x",
);

const ED2 = "ed_" + "0".repeat(26) + "2";
/** First errors of the former validator (values quoted): [schema, body, "code message"]. */
const FIRST_ERRORS: [z.ZodType, Record<string, unknown>, string][] = [
  [
    EventSubscriptionCreate,
    { sources: [{ type: "ip_policy_created.v0" }], destination_ids: [ED], destinationIds: [] },
    '214 unknown field "destinationIds"; supported fields of the request body: metadata, description, sources, destination_ids',
  ],
  [
    EventSubscriptionCreate,
    {
      sources: [{ type: "ip_policy_created.v0", x: 1 }, ...Array<unknown>(11).fill({ type: "a" })],
      destination_ids: [ED],
    },
    '214 unknown field "sources[0].x"; supported fields of sources[0]: type',
  ],
  [
    EventSubscriptionCreate,
    { sources: [{ type: "a" }, { type: "a" }], destination_ids: [ED, ED2] },
    '215 sources[1].type: duplicate event type "a" (also at sources[0])',
  ],
  [
    EventSubscriptionCreate,
    { sources: [{ type: "a" }], destination_ids: [ED], description: "🙂".repeat(256) },
    "215 description: at most 255 characters, got 256",
  ],
  [
    EventDestinationCreate,
    { target: { datadog: { api_key: "" } } },
    "215 target.datadog.api_key: must not be empty",
  ],
  [
    EventDestinationCreate,
    { target: { datadog: { api_key: "k" }, kinesis: { stream_arn: "s", q: 1 } } },
    '214 unknown field "target.kinesis.q"; supported fields of target.kinesis: auth, stream_arn',
  ],
  [
    EventDestinationCreate,
    { target: { kinesis: { auth: {}, stream_arn: "s" } } },
    "215 target.kinesis.auth: exactly one of role, creds is required, got none",
  ],
  [
    EventDestinationCreate,
    { target: { datadog: null }, format: "xml" },
    '215 format: must be one of "json", got "xml"',
  ],
  [
    EventDestinationCreate,
    { target: { datadog: { api_key: "k" } }, metadata: "é".repeat(2049) },
    "215 metadata: at most 4096 bytes, got 4098",
  ],
  [
    AbuseReportCreate,
    { urls: ["ftp://x"] },
    '215 urls[0]: must be an absolute http or https URL with a host, got "ftp://x"',
  ],
  [AbuseReportCreate, { urls: [] }, "215 urls: at least 1 item, got 0"],
  [
    Review,
    {
      hostnames: [
        { hostname: "A.org", status: "BANNED" },
        { hostname: "a.ORG", status: "IGNORE" },
      ],
    },
    '215 hostnames[1].hostname: duplicate hostname "a.org" (also at hostnames[0])',
  ],
];

it.each(FIRST_ERRORS.map(([schema, body, first]) => [first, schema, body] as const))(
  "gives the former validator's first error: %s",
  (first, schema, body) => {
    expect(contractOutcome(body, schema, false)).toBe(first);
  },
);

it("FaultConfig keeps camelCase names on the wire", () => {
  expect(contractOutcome({ status503: 2, seed: 1.5 }, FaultConfig, true)).toBe(
    "215 status503: at most 1, got 2",
  );
  expect(contractOutcome({ latency_ms: 1 }, FaultConfig, true)).toMatch(/^214 unknown field "latency_ms"/);
});

/**
 * Checks `check` on generated bodies: each one of `valid` with the value at a random path of
 * `minDepth` to 5 steps replaced by (or a key of {@link key} added with) a value of `values`.
 */
function forMutatedBodies(
  valid: Record<string, unknown>[],
  minDepth: number,
  values: fc.Arbitrary<unknown>,
  run: { numRuns: number; seed: number },
  check: (body: unknown) => void,
): void {
  fc.assert(
    fc.property(
      fc.constantFrom(...valid),
      fc.array(fc.nat(20), { minLength: minDepth, maxLength: 5 }),
      values,
      key,
      (base, path, value, k) => check(mutate(base, path, value, k)),
    ),
    run,
  );
}

describe.each(CASES)("%s", (_name, schema, camel, valid) => {
  it("accepts the valid bodies", () => {
    for (const body of valid) expect(contractOutcome(body, schema, camel)).toBe("ok");
  });

  it("finds a problem in exactly the bodies the schema's safeParse rejects (2,000 generated bodies)", () => {
    forMutatedBodies(valid, 0, replacement, { numRuns: 2000, seed: 42 }, (body) => {
      if (body === null || typeof body !== "object" || Array.isArray(body)) return;
      const input = (camel ? body : keysToCamel(body)) as Record<string, unknown>;
      const issues = requestIssues(schema, input, { camelCase: true, references: true });
      expect(issues.length === 0).toBe(schema.safeParse(input).success);
      const first = validateRequest(schema, body as Record<string, unknown>, camel, true);
      if (first) expect(issues.length).toBeGreaterThan(0);
    });
  });
});

describe("validateRequest without quoteValues", () => {
  const MARK = "MARK_0b6e1f";
  const marked = fc.oneof(
    fc.constant(MARK),
    fc.constant(`https://${MARK}`),
    fc.constant([MARK, MARK]),
    fc.constant([{ type: MARK }, { type: MARK }]),
    fc.constant([
      { hostname: MARK, status: "BANNED" },
      { hostname: MARK, status: MARK },
    ]),
  );
  it.each(CASES)(
    "%s: the same code and field as with quoted values, and no value of the body in the message",
    (_name, schema, camel, valid) => {
      forMutatedBodies(valid, 1, marked, { numRuns: 1000, seed: 7 }, (mutated) => {
        const body = mutated as Record<string, unknown>;
        const quoted = validateRequest(schema, body, camel, true);
        const bare = validateRequest(schema, body, camel);
        expect(bare?.code).toBe(quoted?.code);
        expect(bare?.field).toBe(quoted?.field);
        if (bare) expect(bare.message).not.toContain(MARK);
      });
    },
  );

  it("quotes a rejected value only when asked", () => {
    const body = { target: { datadog: { api_key: "k" } }, format: MARK };
    expect(validateRequest(EventDestinationCreate, body)?.message).toBe('format: must be one of "json"');
    expect(validateRequest(EventDestinationCreate, body, false, true)?.message).toBe(
      `format: must be one of "json", got "${MARK}"`,
    );
  });
});

it("answers a rule of the whole body (one the mapping does not name) as a 215 with its own message", () => {
  const schema = z.strictObject({ a: z.number() }).refine((b) => b.a < 1, {
    message: "a must stay below 1",
    params: { rule: "body-rule" },
  });
  expect(validateRequest(schema, { a: 2 })).toMatchObject({
    code: 215,
    field: "",
    message: "a must stay below 1",
  });
  expect(validateRequest(schema, { a: 0 })).toBeUndefined();
});

it("states a member's own problem before a rule of the whole body", () => {
  const schema = z.strictObject({ a: z.number().max(5) }).refine((b) => b.a < 1, {
    message: "a must stay below 1",
    params: { rule: "body-rule" },
  });
  expect(validateRequest(schema, { a: 7 })?.message).toBe("a: at most 5, got 7");
  expect(requestIssues(schema, { a: 7 }).map((i) => i.message)).toEqual([
    "a: at most 5, got 7",
    "a must stay below 1",
  ]);
});

/** Every problem `requestIssues` states of a body, in its order: [what, schema, body, options, "code message" each]. */
const EVERY_PROBLEM: [string, z.ZodType, Record<string, unknown>, IssueOptions, string[]][] = [
  [
    "unknown fields: an object's own before those inside it, the body's first",
    EventDestinationCreate,
    {
      zeta: 1,
      target: { kinesis: { auth: { role: { role_arn: "a", q: 1 } }, stream_arn: "s", p: 2 } },
      alpha: 3,
    },
    {},
    [
      '214 unknown field "zeta"; supported fields of the request body: metadata, description, format, target',
      '214 unknown field "alpha"; supported fields of the request body: metadata, description, format, target',
      '214 unknown field "target.kinesis.p"; supported fields of target.kinesis: auth, stream_arn',
      '214 unknown field "target.kinesis.auth.role.q"; supported fields of target.kinesis.auth.role: role_arn',
    ],
  ],
  [
    "unknown fields of sibling objects in the schema's order, each object's own first",
    z.strictObject({
      a: z.strictObject({ b: z.strictObject({ k: z.string().optional() }) }),
      c: z.strictObject({}),
    }),
    { c: { z: 1 }, a: { b: { x: 1 }, y: 1 }, w: 1 },
    {},
    [
      '214 unknown field "w"; supported fields of the request body: a, c',
      '214 unknown field "a.y"; supported fields of a: b',
      '214 unknown field "a.b.x"; supported fields of a.b: k',
      '214 unknown field "c.z"; supported fields of c: ',
    ],
  ],
  [
    "an unknown field of a list's items, by index",
    EventSubscriptionCreate,
    {
      sources: [
        { type: "a", y: 1 },
        { type: "b", x: 1 },
      ],
      destination_ids: [ED],
      z: 1,
    },
    {},
    [
      '214 unknown field "z"; supported fields of the request body: metadata, description, sources, destination_ids',
      '214 unknown field "sources[0].y"; supported fields of sources[0]: type',
      '214 unknown field "sources[1].x"; supported fields of sources[1]: type',
    ],
  ],
  [
    "an unknown field beside a target's kind, once",
    EventDestinationCreate,
    { target: { datadog: { api_key: "k" }, q: 1 } },
    {},
    [
      '214 unknown field "target.q"; supported fields of target: firehose, kinesis, cloudwatch_logs, datadog, azure_logs_ingestion',
    ],
  ],
  [
    "the problems inside the one kind given, unknown fields first",
    EventDestinationCreate,
    { target: { kinesis: { stream_arn: 5, auth: { role: { role_arn: "r", q: 1 } } } } },
    {},
    [
      '214 unknown field "target.kinesis.auth.role.q"; supported fields of target.kinesis.auth.role: role_arn',
      "215 target.kinesis.stream_arn: must be a string",
    ],
  ],
  [
    "two kinds given: the rule of the one kind, not the kinds' own problems",
    EventDestinationCreate,
    { target: { datadog: { api_key: "" }, kinesis: { stream_arn: 5 } } },
    {},
    [
      "215 target: exactly one of firehose, kinesis, cloudwatch_logs, datadog, azure_logs_ingestion is required, got kinesis, datadog",
    ],
  ],
  [
    "both kinds of credentials",
    EventDestinationCreate,
    {
      target: {
        kinesis: {
          stream_arn: "s",
          auth: { role: { role_arn: "r" }, creds: { aws_access_key_id: "a", aws_secret_access_key: "s" } },
        },
      },
    },
    {},
    ["215 target.kinesis.auth: exactly one of role, creds is required, got role, creds"],
  ],
  ["no target", EventDestinationCreate, {}, {}, ["215 target: required"]],
  [
    "a target that is not an object",
    EventDestinationCreate,
    { target: "x" },
    {},
    ["215 target: must be an object"],
  ],
  ["a null target", EventDestinationCreate, { target: null }, {}, ["215 target: must be an object"]],
  [
    "types, in the schema's order",
    EventSubscriptionCreate,
    { sources: "x", destination_ids: 5, description: 7, metadata: null },
    {},
    [
      "215 metadata: must be a string",
      "215 description: must be a string",
      "215 sources: must be a list",
      "215 destination_ids: must be a list",
    ],
  ],
  [
    "required fields",
    EventSubscriptionCreate,
    {},
    {},
    ["215 sources: required", "215 destination_ids: required"],
  ],
  [
    "a list item that is not an object, beside another item's unknown field",
    Review,
    { hostnames: ["x", { hostname: "a.org", status: "BANNED", x: 1 }] },
    {},
    [
      '214 unknown field "hostnames[1].x"; supported fields of hostnames[1]: hostname, status',
      "215 hostnames[0]: must be an object",
    ],
  ],
  [
    "numbers: a type, an integer, a least value, the integer rule (camelCase names)",
    FaultConfig,
    { status503: "y", latencyMs: 1.5, status500: -1, seed: 1.5 },
    { camelCase: true },
    [
      "215 status503: must be a number",
      "215 status500: at least 0, got -1",
      "215 latencyMs: must be an integer, got 1.5",
      "215 seed: must be an integer, got 1.5",
    ],
  ],
  [
    "a seed that is not a number",
    FaultConfig,
    { seed: "x" },
    { camelCase: true },
    ["215 seed: must be a number"],
  ],
  [
    "a value of a list of choices that is not a string",
    EventDestinationCreate,
    { target: { datadog: { api_key: "k" } }, format: 5 },
    {},
    ["215 format: must be a string"],
  ],
  [
    "a list longer than its limit, not looked into",
    EventSubscriptionCreate,
    { sources: Array.from({ length: 13 }, (_, i) => ({ type: i < 2 ? 5 : "a" })), destination_ids: [ED] },
    {},
    ["215 sources: at most 10 items, got 13"],
  ],
  [
    "duplicates beside a problem of another field, and in two lists",
    EventSubscriptionCreate,
    { sources: [{ type: "a" }, { type: "a" }], destination_ids: [ED, ED], description: "x".repeat(256) },
    {},
    [
      "215 description: at most 255 characters, got 256",
      '215 sources[1].type: duplicate event type "a" (also at sources[0])',
      `215 destination_ids[1]: duplicate destination ID "${ED}" (also at destination_ids[0])`,
    ],
  ],
  [
    "no duplicates counted while an item of the list is wrong",
    EventSubscriptionCreate,
    { sources: [{ type: "a" }, { type: "a" }, { type: 5 }], destination_ids: [ED] },
    {},
    ["215 sources[2].type: must be a string"],
  ],
  [
    "no duplicates counted while an item's field is wrong (by key, case-insensitive)",
    Review,
    {
      hostnames: [
        { hostname: "A.org", status: "BANNED" },
        { hostname: "a.org", status: "X" },
        { hostname: "a.org", status: "BANNED" },
      ],
    },
    {},
    ['215 hostnames[1].status: must be one of "PENDING", "BANNED", "UNBANNED", "IGNORE", got "X"'],
  ],
  [
    "a field's first problem only (characters and bytes both over)",
    EventDestinationCreate,
    { target: { datadog: { api_key: "k" } }, metadata: "é".repeat(4097) },
    {},
    ["215 metadata: at most 4096 bytes, got 8194"],
  ],
  [
    "URLs: another scheme, no host",
    AbuseReportCreate,
    { urls: ["ftp://x", "https://", "http://a.example.com"], metadata: 5 },
    {},
    [
      '215 urls[0]: must be an absolute http or https URL with a host, got "ftp://x"',
      '215 urls[1]: must be an absolute http or https URL with a host, got "https://"',
      "215 metadata: must be a string",
    ],
  ],
  [
    "references: unknown event types (which still count as duplicates) and IDs of another kind",
    EventSubscriptionCreate,
    { sources: [{ type: "nope.v0" }, { type: "nope.v0" }], destination_ids: ["esb_x", "ed_1"] },
    { references: true },
    [
      '238 sources[0].type: unknown event type "nope.v0"',
      '238 sources[1].type: unknown event type "nope.v0"',
      '215 sources[1].type: duplicate event type "nope.v0" (also at sources[0])',
      '215 destination_ids[0]: must be an event destination ID (ed_…), got "esb_x"',
      '215 destination_ids[1]: must be an event destination ID (ed_…), got "ed_1"',
    ],
  ],
  [
    "references not asked for",
    EventSubscriptionCreate,
    { sources: [{ type: "nope.v0" }], destination_ids: ["esb_x"] },
    {},
    [],
  ],
  [
    "an ID of a kind the service does not name",
    z.strictObject({ id: Id("zz_") }),
    { id: "bad" },
    { references: true },
    ['215 id: must be an ID (zz_…), got "bad"'],
  ],
  [
    "an empty key, quoted",
    EventSubscriptionCreate,
    { "": 1, sources: [{ type: "a" }], destination_ids: [ED] },
    {},
    [
      '214 unknown field """"; supported fields of the request body: metadata, description, sources, destination_ids',
    ],
  ],
  [
    "an unknown key that holds undefined is left out",
    EventSubscriptionCreate,
    { q: undefined, sources: [{ type: "a" }], destination_ids: [ED] },
    {},
    [],
  ],
  [
    "camelCase names: a wire name is unknown",
    EventSubscriptionCreate,
    { sources: [{ type: "a" }], destinationIds: [ED], destination_ids: 1 },
    { camelCase: true },
    [
      '214 unknown field "destination_ids"; supported fields of the request body: metadata, description, sources, destinationIds',
    ],
  ],
  [
    "the rules of the whole body (the fault shares), of a field (slowMs, latencyJitterMs)",
    FaultConfig,
    { status503: 0.7, status500: 0.6, slow: 0.1, latencyJitterMs: 5, latencyMs: 2 },
    { camelCase: true },
    [
      "215 the shares of the faults add up to 1.4, more than 1",
      "215 slowMs: required when slow or slowAfter is set (how long a held request is held, in ms)",
      "215 latencyJitterMs: must be at most latencyMs (2), the round trip it varies",
    ],
  ],
  [
    "an API key's rule, never quoting it",
    ApiKeyRevoke,
    { apiKey: "bad key" },
    { camelCase: true },
    ["215 apiKey: must be 1 to 512 characters of A-Z a-z 0-9 . _ ~ + / = -"],
  ],
  [
    "a field's first problem only (a latency neither whole nor in range)",
    FaultConfig,
    { latencyMs: 700000.5 },
    { camelCase: true },
    ["215 latencyMs: must be an integer, got 700000.5"],
  ],
  [
    "an unknown field beside a kind with a problem of its own, each once",
    EventDestinationCreate,
    { target: { datadog: { api_key: "" }, q: 1 } },
    {},
    [
      '214 unknown field "target.q"; supported fields of target: firehose, kinesis, cloudwatch_logs, datadog, azure_logs_ingestion',
      "215 target.datadog.api_key: must not be empty",
    ],
  ],
  [
    "an unknown field inside an optional field (an update's target)",
    EventDestinationUpdate,
    { target: { datadog: { api_key: "k", q: 1 } } },
    {},
    [
      '214 unknown field "target.datadog.q"; supported fields of target.datadog: api_key, ddtags, service, ddsite',
    ],
  ],
  [
    "a list shorter than its least size, not looked into",
    z.strictObject({ tags: list(z.string(), { min: 3 }) }),
    { tags: [1] },
    {},
    ["215 tags: at least 3 items, got 1"],
  ],
  [
    "an unknown field beside two kinds, once",
    EventDestinationCreate,
    {
      target: {
        datadog: { api_key: "k" },
        kinesis: { stream_arn: "s", auth: { role: { role_arn: "r" } } },
        q: 1,
      },
    },
    {},
    [
      '214 unknown field "target.q"; supported fields of target: firehose, kinesis, cloudwatch_logs, datadog, azure_logs_ingestion',
      "215 target: exactly one of firehose, kinesis, cloudwatch_logs, datadog, azure_logs_ingestion is required, got kinesis, datadog",
    ],
  ],
  [
    "no duplicates counted while an item breaks a rule of its own (URLs)",
    AbuseReportCreate,
    { urls: ["ftp://x", "ftp://x"] },
    {},
    [
      '215 urls[0]: must be an absolute http or https URL with a host, got "ftp://x"',
      '215 urls[1]: must be an absolute http or https URL with a host, got "ftp://x"',
    ],
  ],
  [
    "no duplicates counted while an ID is of another kind",
    EventSubscriptionCreate,
    { sources: [{ type: "ip_policy_created.v0" }], destination_ids: ["bad", "bad"] },
    { references: true },
    [
      '215 destination_ids[0]: must be an event destination ID (ed_…), got "bad"',
      '215 destination_ids[1]: must be an event destination ID (ed_…), got "bad"',
    ],
  ],
  [
    "a member sent as null is not given",
    EventDestinationCreate,
    { target: { kinesis: { stream_arn: "s", auth: { role: null } } } },
    {},
    ["215 target.kinesis.auth: exactly one of role, creds is required, got none"],
  ],
  [
    "a duplicate in a list inside an object, the first named by its whole path",
    z.strictObject({ a: z.strictObject({ ids: list(z.string(), { unique: { what: "name" } }) }) }),
    { a: { ids: ["x", "x"] } },
    {},
    ['215 a.ids[1]: duplicate name "x" (also at a.ids[0])'],
  ],
  [
    "zod's own integers: a fraction, a string",
    z.strictObject({ n: z.number().int(), m: z.number().int() }),
    { n: 1.5, m: "x" },
    {},
    ["215 n: must be an integer, got 1.5", "215 m: must be a number"],
  ],
];

it.each(EVERY_PROBLEM)("requestIssues: %s", (_what, schema, body, options, expected) => {
  expect(requestIssues(schema, body, options).map((i) => `${i.code} ${i.message}`)).toEqual(expected);
});

it("requestIssues gives each issue's field, problem and an unknown field's supported fields apart", () => {
  const body = { target: { datadog: { api_key: "k" }, q: 1 }, format: "xml" };
  expect(requestIssues(EventDestinationCreate, body)).toEqual([
    {
      code: 214,
      field: "target.q",
      problem: "unknown field",
      supported: ["firehose", "kinesis", "cloudwatch_logs", "datadog", "azure_logs_ingestion"],
      message:
        'unknown field "target.q"; supported fields of target: firehose, kinesis, cloudwatch_logs, datadog, azure_logs_ingestion',
    },
    {
      code: 215,
      field: "format",
      problem: 'must be one of "json", got "xml"',
      message: 'format: must be one of "json", got "xml"',
    },
  ]);
});

it("validateRequest gives the first problem, quoting no value unless asked, an empty key unquoted", () => {
  const dup = { sources: [{ type: "a" }, { type: "a" }], destination_ids: [ED] };
  expect(validateRequest(EventSubscriptionCreate, dup)?.message).toBe(
    "sources[1].type: duplicate event type (also at sources[0])",
  );
  expect(validateRequest(EventSubscriptionCreate, dup, false, true)?.message).toBe(
    'sources[1].type: duplicate event type "a" (also at sources[0])',
  );
  expect(validateRequest(AbuseReportCreate, { urls: ["ftp://x"] })?.message).toBe(
    "urls[0]: must be an absolute http or https URL with a host",
  );
  expect(validateRequest(EventSubscriptionCreate, { ...dup, "": 1 })).toMatchObject({
    code: 214,
    field: "",
    message:
      'unknown field ""; supported fields of the request body: metadata, description, sources, destination_ids',
  });
  // The service checks neither event types nor IDs' kinds in the body (codes 238 and 223 come after).
  expect(
    validateRequest(EventSubscriptionCreate, { sources: [{ type: "nope.v0" }], destination_ids: ["x"] }),
  ).toBe(undefined);
});
