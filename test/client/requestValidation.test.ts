/** Client-side validation: the service's rules, exact messages, never a throw. */
import fc from "fast-check";
import {
  AbuseReportCreate,
  EVENT_TYPES,
  EventDestinationCreate,
  EventDestinationUpdate,
  EventSubscriptionCreate,
  EventSubscriptionUpdate,
  validateAbuseReportCreate,
  validateEventDestinationCreate,
  validateEventDestinationUpdate,
  validateEventSubscriptionCreate,
  validateEventSubscriptionUpdate,
  validateId,
  validateListParams,
} from "../../client";
import { fakeId } from "../helpers/scripted-server";

const ED = fakeId("ed_", 1);
const ESB = fakeId("esb_", 1);
const messages = (issues: { message: string }[]) => issues.map((i) => i.message);

// 4096 bytes of UTF-8 but only 1024 characters; 4096 characters but 8192 bytes.
const EURO = "€"; // 3 bytes, 1 character
const EMOJI = "😀"; // 4 bytes, 1 character (2 UTF-16 units)

type Row = [string, unknown, string[]];

describe("validateAbuseReportCreate", () => {
  const rows: Row[] = [
    ["minimal", { urls: ["https://example.com/a"] }, []],
    ["metadata of exactly 4096 bytes", { urls: ["http://x.test"], metadata: "a".repeat(4096) }, []],
    ["100 URLs", { urls: Array.from({ length: 100 }, (_, i) => `https://h${i}.test/`) }, []],
    ["metadata undefined is absent", { urls: ["http://x.test"], metadata: undefined }, []],
    [
      "metadata of 4097 bytes",
      { urls: ["http://x.test"], metadata: "a".repeat(4097) },
      ["metadata: at most 4096 bytes, got 4097"],
    ],
    [
      "metadata counted in bytes, not characters",
      { urls: ["http://x.test"], metadata: EURO.repeat(1366) },
      ["metadata: at most 4096 bytes, got 4098"],
    ],
    ["no URL", { urls: [] }, ["urls: at least 1 item, got 0"]],
    [
      "101 URLs",
      { urls: Array.from({ length: 101 }, () => "https://x.test/") },
      ["urls: at most 100 items, got 101"],
    ],
    [
      "bad URLs",
      { urls: ["https://ok.test", "ftp://x.test/", "foo", "http://", "mailto:a@b.c", " http://x.test", 7] },
      [
        'urls[1]: must be an absolute http or https URL with a host, got "ftp://x.test/"',
        'urls[2]: must be an absolute http or https URL with a host, got "foo"',
        'urls[3]: must be an absolute http or https URL with a host, got "http://"',
        'urls[4]: must be an absolute http or https URL with a host, got "mailto:a@b.c"',
        'urls[5]: must be an absolute http or https URL with a host, got " http://x.test"',
        "urls[6]: must be a string",
      ],
    ],
    ["urls missing", {}, ["urls: required"]],
    ["urls not an array", { urls: "http://x.test" }, ["urls: must be a list"]],
    ["metadata not a string", { urls: ["http://x.test"], metadata: null }, ["metadata: must be a string"]],
    [
      "unknown field",
      { urls: ["http://x.test"], url: "x" },
      ["url: unknown field (expected one of urls, metadata)"],
    ],
    ["not an object", "urls", ['input: must be an object, got "urls"']],
    ["null", null, ["input: must be an object, got null"]],
    ["array", [], ["input: must be an object, got array"]],
  ];
  test.each(rows)("%s", (_name, input, expected) => {
    expect(messages(validateAbuseReportCreate(input))).toEqual(expected);
  });
});

const sub = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED] };

describe("validateEventSubscriptionCreate", () => {
  const rows: Row[] = [
    ["minimal", sub, []],
    [
      "full, at the limits",
      {
        sources: EVENT_TYPES.slice(0, 10).map((type) => ({ type })),
        destinationIds: Array.from({ length: 10 }, (_, i) => fakeId("ed_", i)),
        description: "d".repeat(255),
        metadata: "m".repeat(4096),
      },
      [],
    ],
    ["description of 255 emoji (510 UTF-16 units)", { ...sub, description: EMOJI.repeat(255) }, []],
    ["metadata counted in characters: 4096 × € is 12288 bytes", { ...sub, metadata: EURO.repeat(4096) }, []],
    [
      "description of 256",
      { ...sub, description: "d".repeat(256) },
      ["description: at most 255 characters, got 256"],
    ],
    [
      "metadata of 4097 characters",
      { ...sub, metadata: EMOJI.repeat(4097) },
      ["metadata: at most 4096 characters, got 4097"],
    ],
    ["no source", { ...sub, sources: [] }, ["sources: at least 1 item, got 0"]],
    [
      "11 sources",
      { ...sub, sources: EVENT_TYPES.slice(0, 11).map((type) => ({ type })) },
      ["sources: at most 10 items, got 11"],
    ],
    [
      "unknown and duplicate types",
      {
        ...sub,
        sources: [{ type: "ip_policy_created.v0" }, { type: "nope.v0" }, { type: "ip_policy_created.v0" }],
      },
      [
        'sources[1].type: unknown event type "nope.v0"',
        'sources[2].type: duplicate event type "ip_policy_created.v0" (also at sources[0])',
      ],
    ],
    [
      "duplicate unknown type",
      { ...sub, sources: [{ type: "x" }, { type: "x" }] },
      [
        'sources[0].type: unknown event type "x"',
        'sources[1].type: unknown event type "x"',
        'sources[1].type: duplicate event type "x" (also at sources[0])',
      ],
    ],
    [
      "source shapes",
      {
        ...sub,
        sources: [
          "ip_policy_created.v0",
          {},
          { type: 1 },
          { type: "tunnel_credential_deleted.v0", uri: "u" },
        ],
      },
      [
        "sources[3].uri: unknown field (expected one of type)",
        "sources[0]: must be an object",
        "sources[1].type: required",
        "sources[2].type: must be a string",
      ],
    ],
    ["no destination", { ...sub, destinationIds: [] }, ["destinationIds: at least 1 item, got 0"]],
    [
      "11 destinations",
      { ...sub, destinationIds: Array.from({ length: 11 }, (_, i) => fakeId("ed_", i)) },
      ["destinationIds: at most 10 items, got 11"],
    ],
    [
      "destination IDs of the wrong kind or form",
      { ...sub, destinationIds: [ESB, "ed_short", `${ED}x`, 5] },
      [
        `destinationIds[0]: must be an event destination ID (ed_…), got "${ESB}"`,
        'destinationIds[1]: must be an event destination ID (ed_…), got "ed_short"',
        `destinationIds[2]: must be an event destination ID (ed_…), got "${ED}x"`,
        "destinationIds[3]: must be a string",
      ],
    ],
    [
      "duplicate destination",
      { ...sub, destinationIds: [ED, ED] },
      [`destinationIds[1]: duplicate destination ID "${ED}" (also at destinationIds[0])`],
    ],
    ["both lists missing", {}, ["sources: required", "destinationIds: required"]],
    [
      "unknown fields, snake_case included",
      { ...sub, destination_ids: [ED], id: ESB },
      [
        "destination_ids: unknown field (expected one of metadata, description, sources, destinationIds)",
        "id: unknown field (expected one of metadata, description, sources, destinationIds)",
      ],
    ],
  ];
  test.each(rows)("%s", (_name, input, expected) => {
    expect(messages(validateEventSubscriptionCreate(input))).toEqual(expected);
  });
});

describe("validateEventSubscriptionUpdate", () => {
  const rows: Row[] = [
    ["empty update", {}, []],
    ["clear strings", { description: "", metadata: "" }, []],
    ["only sources", { sources: [{ type: "tunnel_credential_deleted.v0" }] }, []],
    ["empty sources list", { sources: [] }, ["sources: at least 1 item, got 0"]],
    [
      "bad destination",
      { destinationIds: ["nope"] },
      ['destinationIds[0]: must be an event destination ID (ed_…), got "nope"'],
    ],
    ["long description", { description: "é".repeat(256) }, ["description: at most 255 characters, got 256"]],
    ["null description", { description: null }, ["description: must be a string"]],
  ];
  test.each(rows)("%s", (_name, input, expected) => {
    expect(messages(validateEventSubscriptionUpdate(input))).toEqual(expected);
  });
});

const role = { role: { roleArn: "arn:aws:iam::1:role/r" } };
const creds = { creds: { awsAccessKeyId: "AK", awsSecretAccessKey: "SK" } };
const targets = {
  firehose: { firehose: { auth: role, deliveryStreamArn: "arn:f" } },
  kinesis: { kinesis: { auth: creds, streamArn: "arn:k" } },
  cloudwatchLogs: { cloudwatchLogs: { auth: role, logGroupArn: "arn:c" } },
  datadog: { datadog: { apiKey: "dd" } },
  datadogFull: { datadog: { apiKey: "dd", ddtags: "a:b", service: "s", ddsite: "datadoghq.eu" } },
  azureLogsIngestion: {
    azureLogsIngestion: {
      tenantId: "t",
      clientId: "c",
      clientSecret: "s",
      logsIngestionUri: "https://x.ingest.monitor.azure.com",
      dataCollectionRuleId: "dcr-1",
      dataCollectionStreamName: "Custom-x",
    },
  },
};
const KINDS = "firehose, kinesis, cloudwatchLogs, datadog, azureLogsIngestion";

describe("validateEventDestinationCreate", () => {
  const rows: Row[] = [
    ...Object.entries(targets).map(([name, target]): Row => [`target ${name}`, { target }, []]),
    [
      "format json, metadata of 4096 bytes",
      { format: "json", target: targets.datadog, metadata: "x".repeat(4096) },
      [],
    ],
    ["description of 255 characters", { target: targets.datadog, description: EURO.repeat(255) }, []],
    [
      "metadata in bytes",
      { target: targets.datadog, metadata: EURO.repeat(1366) },
      ["metadata: at most 4096 bytes, got 4098"],
    ],
    [
      "description of 256 characters",
      { target: targets.datadog, description: "x".repeat(256) },
      ["description: at most 255 characters, got 256"],
    ],
    ["format xml", { format: "xml", target: targets.datadog }, ['format: must be one of "json", got "xml"']],
    ["no target", {}, ["target: required"]],
    ["empty target", { target: {} }, [`target: exactly one of ${KINDS} is required, got none`]],
    [
      "two kinds",
      { target: { ...targets.firehose, ...targets.kinesis } },
      [`target: exactly one of ${KINDS} is required, got firehose, kinesis`],
    ],
    [
      "unknown kind",
      { target: { s3: {} } },
      [
        `target.s3: unknown field (expected one of ${KINDS})`,
        `target: exactly one of ${KINDS} is required, got none`,
      ],
    ],
    [
      "snake_case kind",
      { target: { cloudwatch_logs: {} } },
      [
        `target.cloudwatch_logs: unknown field (expected one of ${KINDS})`,
        `target: exactly one of ${KINDS} is required, got none`,
      ],
    ],
    ["target not an object", { target: "firehose" }, ["target: must be an object"]],
    [
      "firehose without auth and ARN",
      { target: { firehose: {} } },
      ["target.firehose.auth: required", "target.firehose.deliveryStreamArn: required"],
    ],
    [
      "both auth kinds",
      { target: { kinesis: { auth: { ...role, ...creds }, streamArn: "a" } } },
      ["target.kinesis.auth: exactly one of role, creds is required, got role, creds"],
    ],
    [
      "creds incomplete",
      { target: { cloudwatchLogs: { auth: { creds: { awsAccessKeyId: "AK" } }, logGroupArn: "a" } } },
      ["target.cloudwatchLogs.auth.creds.awsSecretAccessKey: required"],
    ],
    [
      "datadog without key, with unknown field",
      { target: { datadog: { site: "x" } } },
      [
        "target.datadog.site: unknown field (expected one of apiKey, ddtags, service, ddsite)",
        "target.datadog.apiKey: required",
      ],
    ],
    ["a null kind counts as absent", { target: { ...targets.datadog, firehose: null } }, []],
    [
      "empty required strings",
      { target: { firehose: { auth: { role: { roleArn: "" } }, deliveryStreamArn: "" } } },
      [
        "target.firehose.auth.role.roleArn: must not be empty",
        "target.firehose.deliveryStreamArn: must not be empty",
      ],
    ],
    [
      "empty optional Datadog strings",
      { target: { datadog: { apiKey: "k", ddtags: "", service: "", ddsite: "" } } },
      [],
    ],
    [
      "azure with a number",
      { target: { azureLogsIngestion: { ...targets.azureLogsIngestion.azureLogsIngestion, tenantId: 1 } } },
      ["target.azureLogsIngestion.tenantId: must be a string"],
    ],
  ];
  test.each(rows)("%s", (_name, input, expected) => {
    expect(messages(validateEventDestinationCreate(input))).toEqual(expected);
  });
});

describe("validateEventDestinationUpdate", () => {
  const rows: Row[] = [
    ["empty", {}, []],
    ["description only", { description: "" }, []],
    ["new target", { target: targets.kinesis }, []],
    ["bad target", { target: {} }, [`target: exactly one of ${KINDS} is required, got none`]],
    ["metadata too long", { metadata: "x".repeat(4097) }, ["metadata: at most 4096 bytes, got 4097"]],
  ];
  test.each(rows)("%s", (_name, input, expected) => {
    expect(messages(validateEventDestinationUpdate(input))).toEqual(expected);
  });
});

describe("validateId and validateListParams", () => {
  test.each([
    [ESB, "esb_", []],
    ["esb_x", "esb_", []],
    [ED, "esb_", [`id: must be an event subscription ID (esb_…), got "${ED}"`]],
    ["esb_", "esb_", ['id: must be an event subscription ID (esb_…), got "esb_"']],
    [42, "ed_", ["id: must be a string, got 42"]],
  ])("id %p with prefix %s", (id, prefix, expected) => {
    expect(messages(validateId(id, prefix))).toEqual(expected);
  });
  test.each([
    [undefined, []],
    [{}, []],
    [{ limit: 1 }, []],
    [{ limit: 100 }, []],
    [{ limit: 0 }, ["limit: must be an integer from 1 to 100, got 0"]],
    [{ limit: 101 }, ["limit: must be an integer from 1 to 100, got 101"]],
    [{ limit: 2.5 }, ["limit: must be an integer from 1 to 100, got 2.5"]],
    [{ limit: "10" }, ['limit: must be an integer from 1 to 100, got "10"']],
  ])("list params %p", (params, expected) => {
    expect(messages(validateListParams(params))).toEqual(expected);
  });
});

describe("properties", () => {
  const validators = {
    validateAbuseReportCreate,
    validateEventSubscriptionCreate,
    validateEventSubscriptionUpdate,
    validateEventDestinationCreate,
    validateEventDestinationUpdate,
  };

  test.each(Object.entries(validators))(
    "%s never throws and every message starts with its field",
    (_n, validate) => {
      fc.assert(
        fc.property(
          fc.anything({ withBigInt: true, withMap: true, withSet: true, withNullPrototype: true }),
          (input) => {
            for (const issue of validate(input))
              expect(issue.message.startsWith(`${issue.field}: `)).toBe(true);
          },
        ),
        { numRuns: 500 },
      );
    },
  );

  test("hostile objects (throwing getters, proxies) do not make a validator throw", () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error("boom");
        },
      },
    );
    const getter = Object.defineProperty({}, "urls", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    for (const validate of Object.values(validators)) {
      expect(() => validate(hostile)).not.toThrow();
      expect(() => validate(getter)).not.toThrow();
      expect(validate(hostile).length).toBeGreaterThan(0);
    }
  });

  // Inputs built from valid parts with random mutations: whatever passes validation also
  // matches the zod request schema (validation is never looser than the types).
  const eventType = fc.constantFrom(...EVENT_TYPES, "nope.v0", "");
  const str = fc.oneof(fc.string({ maxLength: 300 }), fc.constant(""), fc.integer());
  const edId = fc.oneof(
    fc.nat(1000).map((n) => fakeId("ed_", n)),
    fc.constant(ESB),
    str,
  );
  const subInput = fc.record(
    {
      sources: fc.array(fc.record({ type: eventType }), { maxLength: 12 }),
      destinationIds: fc.array(edId, { maxLength: 12 }),
      description: str,
      metadata: str,
    },
    { requiredKeys: [] },
  );
  // Valid by construction, so that every run checks some valid subscriptions: the mutated
  // inputs above alone are valid too rarely (each required list must be wholly valid).
  const validSubInput = fc.record({
    sources: fc
      .uniqueArray(fc.constantFrom(...EVENT_TYPES), { minLength: 1, maxLength: 10 })
      .map((types) => types.map((type) => ({ type }))),
    destinationIds: fc.uniqueArray(
      fc.nat(1000).map((n) => fakeId("ed_", n)),
      { minLength: 1, maxLength: 10 },
    ),
    description: fc.string({ maxLength: 255 }),
  });
  const someSubInput = fc.oneof(subInput, validSubInput);
  const targetInput = fc.oneof(
    fc.constantFrom(...Object.values(targets)),
    fc.record({
      firehose: fc.record(
        { auth: fc.constantFrom(role, creds, {}), deliveryStreamArn: str },
        { requiredKeys: [] },
      ),
    }),
    fc.dictionary(
      fc.constantFrom("firehose", "kinesis", "datadog"),
      fc.constantFrom(...Object.values(targets)),
    ),
  );
  const edInput = fc.record(
    { format: fc.constantFrom("json", "xml"), target: targetInput, description: str, metadata: str },
    { requiredKeys: [] },
  );
  const urlsInput = fc.record(
    { urls: fc.array(fc.oneof(fc.webUrl(), str), { maxLength: 5 }), metadata: str },
    { requiredKeys: [] },
  );

  test.each([
    ["abuse report create", urlsInput, validateAbuseReportCreate, AbuseReportCreate],
    ["subscription create", someSubInput, validateEventSubscriptionCreate, EventSubscriptionCreate],
    ["subscription update", someSubInput, validateEventSubscriptionUpdate, EventSubscriptionUpdate],
    ["destination create", edInput, validateEventDestinationCreate, EventDestinationCreate],
    ["destination update", edInput, validateEventDestinationUpdate, EventDestinationUpdate],
  ] as const)("%s: valid ⇒ matches the zod schema", (_n, arb, validate, schema) => {
    let valid = 0;
    fc.assert(
      fc.property(arb as fc.Arbitrary<unknown>, (input) => {
        if (validate(input).length === 0) {
          valid++;
          expect(schema.safeParse(input).success).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
    expect(valid).toBeGreaterThan(0);
  });
});

test("an input that is not an object is described: a long string cut at 60 characters, numbers and booleans as written", () => {
  const long = "🙂".repeat(59) + "ab"; // 61 characters (code points), 120 UTF-16 units
  expect(messages(validateAbuseReportCreate(long))).toEqual([
    `input: must be an object, got "${"🙂".repeat(59)}a…"`,
  ]);
  expect(messages(validateAbuseReportCreate("🙂".repeat(60)))).toEqual([
    `input: must be an object, got "${"🙂".repeat(60)}"`,
  ]);
  expect(messages(validateAbuseReportCreate(4.5))).toEqual(["input: must be an object, got 4.5"]);
  expect(messages(validateAbuseReportCreate(false))).toEqual(["input: must be an object, got false"]);
  expect(messages(validateAbuseReportCreate(undefined))).toEqual(["input: must be an object, got undefined"]);
  expect(messages(validateId(true, "ed_"))).toEqual(["id: must be a string, got true"]);
});

/** An object with `fields`, and `hostile` a getter that throws `thrown` on its first `failures` reads. */
function withHostile(
  fields: Record<string, unknown>,
  hostile: string,
  failures: number,
  thrown: unknown = new RangeError("deep"),
) {
  let reads = 0;
  return Object.defineProperty({ ...fields }, hostile, {
    enumerable: true,
    get() {
      if (reads++ < failures) throw thrown;
      return [];
    },
  });
}

describe("a body the walk cannot read", () => {
  test("names the field whose value cannot be read, and only it", () => {
    const body = withHostile({ description: "fine" }, "sources", Infinity);
    expect(validateEventSubscriptionCreate(body)).toEqual([
      { field: "sources", message: "sources: could not be read (RangeError)" },
    ]);
  });

  test('a value that fails only once (or only beside the others): every field named, a nameless one as ""', () => {
    const body = withHostile({ "": 1, description: "fine" }, "sources", 1, "thrown as a string");
    expect(messages(validateEventSubscriptionCreate(body))).toEqual([
      '"": could not be read (string)',
      "description: could not be read (string)",
      "sources: could not be read (string)",
    ]);
  });

  test("an object whose fields vanish once the walk has failed: no field to name, one issue of the input", () => {
    let listings = 0;
    const vanishing = new Proxy(
      {},
      {
        ownKeys: () => (listings++ === 0 ? ["sources"] : []),
        getOwnPropertyDescriptor: () => ({ configurable: true, enumerable: true, value: undefined }),
        get: () => {
          throw new TypeError("no");
        },
      },
    );
    expect(validateEventSubscriptionCreate(vanishing)).toEqual([
      { field: "input", message: "input: could not be read (TypeError)" },
    ]);
  });

  test("a revoked Proxy as the input, the ID or the list's parameters: one issue of each, by its name", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    expect(messages(validateEventDestinationCreate(proxy))).toEqual(["input: could not be read (TypeError)"]);
    expect(messages(validateId(proxy, "ed_"))).toEqual(["id: could not be read (TypeError)"]);
    expect(messages(validateListParams(proxy))).toEqual(["params: could not be read (TypeError)"]);
  });
});

test("validateId: a missing ID is required; a prefix of no known resource asks for an ID of it", () => {
  expect(messages(validateId(undefined, "ed_"))).toEqual(["id: required"]);
  expect(messages(validateId(null, "ed_"))).toEqual(["id: must be a string, got null"]);
  expect(messages(validateId("x", "zz_"))).toEqual(['id: must be an ID (zz_…), got "x"']);
});

test("validateListParams: parameters that are no object, and fields other than limit (undefined ones left out)", () => {
  expect(messages(validateListParams(null))).toEqual(["params: must be an object, got null"]);
  expect(messages(validateListParams([1]))).toEqual(["params: must be an object, got array"]);
  expect(messages(validateListParams(5))).toEqual(["params: must be an object, got 5"]);
  expect(messages(validateListParams({ limit: 5, beforeId: "x", after: undefined }))).toEqual([
    "beforeId: unknown field (expected one of limit)",
  ]);
  expect(validateListParams({ limit: 5, beforeId: "x" })).toEqual([
    { field: "beforeId", message: "beforeId: unknown field (expected one of limit)" },
  ]);
});
