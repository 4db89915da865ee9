/**
 * What consumers derive from the contract instead of naming fields (contract/fields.ts): the
 * create fields with their defaults, and the walks that complete a value to its response form,
 * blank its write-only secrets and restore them from a known value.
 */
import { z } from "zod";
import {
  AbuseReportCreate,
  DestinationTarget,
  EventDestinationCreate,
  EventSubscriptionCreate,
  blankWriteOnly,
  complete,
  keepWriteOnly,
  writableFields,
} from "service-contract";

const kinesis = (secret: string) => ({
  kinesis: { auth: { creds: { awsAccessKeyId: "AK", awsSecretAccessKey: secret } }, streamArn: "arn:k" },
});

describe("writableFields", () => {
  it.each([
    [
      "event destination",
      EventDestinationCreate,
      [
        ["metadata", "metadata", "", false],
        ["description", "description", "", false],
        ["format", "format", "json", false],
        ["target", "target", undefined, true],
      ],
    ],
    [
      "event subscription",
      EventSubscriptionCreate,
      [
        ["metadata", "metadata", "", false],
        ["description", "description", "", false],
        ["sources", "sources", undefined, true],
        ["destinationIds", "destination_ids", undefined, true],
      ],
    ],
    [
      "abuse report",
      AbuseReportCreate,
      [
        ["urls", "urls", undefined, true],
        ["metadata", "metadata", "", false],
      ],
    ],
  ])("lists the %s create fields: name, wire name, default, structured", (_what, schema, expected) => {
    expect(writableFields(schema).map((f) => [f.name, f.wire, f.default, f.structured])).toEqual(expected);
  });
});

describe("complete", () => {
  it.each([
    [
      "fills a Datadog target's optional strings",
      { datadog: { apiKey: "k" } },
      { datadog: { apiKey: "k", ddtags: "", service: "", ddsite: "" } },
    ],
    [
      "keeps given optional strings",
      { datadog: { apiKey: "k", ddtags: "t" } },
      { datadog: { apiKey: "k", ddtags: "t", service: "", ddsite: "" } },
    ],
    ["drops kinds sent as null", { firehose: null, kinesis: kinesis("s").kinesis }, kinesis("s")],
    [
      "drops an auth member sent as null",
      {
        kinesis: {
          auth: { role: null, creds: { awsAccessKeyId: "AK", awsSecretAccessKey: "s" } },
          streamArn: "arn:k",
        },
      },
      kinesis("s"),
    ],
    [
      "drops unknown keys",
      { datadog: { apiKey: "k", extra: 1 } },
      { datadog: { apiKey: "k", ddtags: "", service: "", ddsite: "" } },
    ],
  ])("%s", (_what, value, expected) => {
    expect(complete(DestinationTarget, value)).toEqual(expected);
  });

  it("reads and writes wire names with { wire: true }", () => {
    expect(
      complete(DestinationTarget, { azure_logs_ingestion: null, datadog: { api_key: "k" } }, { wire: true }),
    ).toEqual({ datadog: { api_key: "k", ddtags: "", service: "", ddsite: "" } });
  });

  it("does not change its argument", () => {
    const value = { datadog: { apiKey: "k" } };
    complete(DestinationTarget, value);
    expect(value).toEqual({ datadog: { apiKey: "k" } });
  });
});

describe("blankWriteOnly and keepWriteOnly", () => {
  it.each([
    ["the AWS secret access key", kinesis("s3cr3t"), kinesis("")],
    [
      "the Datadog API key",
      { datadog: { apiKey: "k", ddtags: "t" } },
      { datadog: { apiKey: "", ddtags: "t" } },
    ],
    [
      "no secret in a role",
      { kinesis: { auth: { role: { roleArn: "r" } }, streamArn: "a" } },
      { kinesis: { auth: { role: { roleArn: "r" } }, streamArn: "a" } },
    ],
  ])("blank %s, and keepWriteOnly restores it", (_what, value, expected) => {
    expect(blankWriteOnly(DestinationTarget, value)).toEqual(expected);
    expect(keepWriteOnly(DestinationTarget, expected, value)).toEqual(value);
  });

  it("blank wire names with { wire: true }", () => {
    const wire = { azure_logs_ingestion: { tenant_id: "t", client_secret: "cs" } };
    expect(blankWriteOnly(DestinationTarget, wire, { wire: true })).toEqual({
      azure_logs_ingestion: { tenant_id: "t", client_secret: "" },
    });
  });

  it("restore nothing from a known value of another kind, and never overwrite a live secret", () => {
    expect(keepWriteOnly(DestinationTarget, kinesis(""), { firehose: kinesis("s").kinesis })).toEqual(
      kinesis(""),
    );
    expect(keepWriteOnly(DestinationTarget, kinesis("live"), kinesis("known"))).toEqual(kinesis("live"));
    expect(keepWriteOnly(DestinationTarget, kinesis(""), undefined)).toEqual(kinesis(""));
  });
});

describe("on schemas beyond the service's resources", () => {
  const Note = z.strictObject({
    name: z.string(),
    note: z.string().optional(),
    count: z.number().optional(),
    items: z.array(
      z.strictObject({ label: z.string().optional(), secret: z.string().meta({ writeOnly: true }) }),
    ),
  });

  it('writableFields: a required string has no default, an optional string without one defaults to ""', () => {
    expect(writableFields(Note).map((f) => [f.name, f.default, f.structured])).toEqual([
      ["name", undefined, false],
      ["note", "", false],
      ["count", undefined, false],
      ["items", undefined, true],
    ]);
  });

  it("complete fills only optional strings, walks lists, and leaves a value that is not an object as it is", () => {
    expect(complete(Note, { name: "n", count: null, items: [{ secret: "s", extra: 1 }] })).toStrictEqual({
      name: "n",
      note: "",
      items: [{ label: "", secret: "s" }],
    });
    expect(complete(Note, {})).toStrictEqual({ note: "" });
    expect(complete(Note, "not an object")).toBe("not an object");
    expect(complete(Note, ["a list"])).toEqual(["a list"]);
  });

  it("complete takes an optional string sent as null for left out", () => {
    expect(complete(DestinationTarget, { datadog: { apiKey: "k", ddtags: null } })).toStrictEqual({
      datadog: { apiKey: "k", ddtags: "", service: "", ddsite: "" },
    });
  });

  it("complete keeps the member given of a union whose options are not all objects", () => {
    const Either = z.union([z.string(), z.strictObject({ a: z.strictObject({ b: z.string().optional() }) })]);
    expect(complete(Either, { a: {} })).toStrictEqual({ a: { b: "" } });
    expect(complete(Either, "text")).toBe("text");
  });

  it("blankWriteOnly and keepWriteOnly walk lists item by item and keep what the schema does not name", () => {
    const value = { name: "n", extra: 1, items: [{ secret: "s1" }, { secret: "s2", label: "l" }] };
    const blanked = { name: "n", extra: 1, items: [{ secret: "" }, { secret: "", label: "l" }] };
    expect(blankWriteOnly(Note, value)).toStrictEqual(blanked);
    expect(keepWriteOnly(Note, blanked, value)).toStrictEqual(value);
    expect(keepWriteOnly(Note, blanked, { items: "not a list" })).toStrictEqual(blanked);
  });

  it("blankWriteOnly adds no key the value leaves out, and leaves a secret that is not a string as it is", () => {
    expect(blankWriteOnly(DestinationTarget, { datadog: { apiKey: "k" } })).toStrictEqual({
      datadog: { apiKey: "" },
    });
    expect(blankWriteOnly(DestinationTarget, { datadog: { apiKey: null } })).toStrictEqual({
      datadog: { apiKey: null },
    });
  });
});

test("complete, blankWriteOnly and keepWriteOnly take null for a value that is not an object", () => {
  expect(complete(EventDestinationCreate, null)).toBe(null);
  expect(keepWriteOnly(DestinationTarget, kinesis(""), null)).toEqual(kinesis(""));
  expect(blankWriteOnly(DestinationTarget, null)).toBe(null);
});
