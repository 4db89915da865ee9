/**
 * The providers' input checks (provider/impl/inputChecks.ts): client issues as Pulumi check failures
 * on the top-level property, values not known yet during a preview never a failure, Pulumi's own
 * keys ignored, `adoptId` checked, and nothing thrown whatever the input.
 */
import { unknownValue } from "@pulumi/pulumi/runtime";
import {
  UNKNOWN,
  checkAbuseReportInputs,
  checkEventDestinationInputs,
  checkEventSubscriptionInputs,
  toCheckFailures,
  unknownPaths,
} from "../../../provider/impl/inputChecks";

const ED = `ed_${"A".repeat(27)}`;
const sub = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED] };

/** An array nested `depth` levels deep, built without recursion. */
function nested(depth: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** `target` with an enumerable own key `key` whose getter throws (a hostile input). */
function throwingKey<T extends object>(target: T, key: string): T {
  return Object.defineProperty(target, key, {
    enumerable: true,
    get() {
      throw new Error("boom");
    },
  });
}

describe("check failures", () => {
  it.each([
    ["valid subscription", checkEventSubscriptionInputs, sub, []],
    [
      "a limit names the top-level property and quotes the field",
      checkEventSubscriptionInputs,
      { ...sub, destinationIds: [ED, ED] },
      [
        {
          property: "destinationIds",
          reason: expect.stringMatching(/^destinationIds\[1\]: duplicate destination ID/),
        },
      ],
    ],
    [
      "a nested field's property is the top-level input",
      checkEventDestinationInputs,
      { target: { datadog: { apiKey: "" } } },
      [{ property: "target", reason: "target.datadog.apiKey: must not be empty" }],
    ],
    [
      "metadata in bytes",
      checkAbuseReportInputs,
      { urls: ["https://a.test"], metadata: "€".repeat(1366) },
      [{ property: "metadata", reason: "metadata: at most 4096 bytes, got 4098" }],
    ],
    [
      "adoptId of the wrong kind",
      checkEventDestinationInputs,
      { target: { datadog: { apiKey: "k" } }, adoptId: "esb_x" },
      [
        {
          property: "adoptId",
          reason: expect.stringMatching(/^adoptId: must be the ID of an existing event destination/),
        },
      ],
    ],
    [
      "adoptId nested deeper than the stack can print: described by its type",
      checkEventDestinationInputs,
      { target: { datadog: { apiKey: "k" } }, adoptId: nested(200_000) },
      [
        {
          property: "adoptId",
          reason: "adoptId: must be the ID of an existing event destination (ed_…), got array",
        },
      ],
    ],
    [
      "adoptId of 10,000 characters: quoted and cut at 60",
      checkEventSubscriptionInputs,
      { ...sub, adoptId: "x".repeat(10_000) },
      [
        {
          property: "adoptId",
          reason: `adoptId: must be the ID of an existing event subscription (esb_…), got "${"x".repeat(60)}…"`,
        },
      ],
    ],
    [
      "a key with no name holding a value too deep to walk: named as the walk names it",
      checkAbuseReportInputs,
      { "": nested(200_000) },
      [{ property: '""', reason: '"": could not be read (RangeError)' }],
    ],
    ["Pulumi's own keys are ignored", checkEventSubscriptionInputs, { ...sub, __defaults: [] }, []],
    [
      "null and undefined are absent values",
      checkEventSubscriptionInputs,
      { ...sub, description: null, metadata: undefined, extra: undefined },
      [],
    ],
    [
      "an unknown field inside an object is reported",
      checkEventDestinationInputs,
      { target: { datadog: { apiKey: "k" }, extra: 1 } },
      [
        {
          property: "target",
          reason: expect.stringMatching(/^target\.extra: unknown field \(expected one of /),
        },
      ],
    ],
    [
      "a key with a dot of its own is its own property",
      checkEventSubscriptionInputs,
      { ...sub, "a.b": 1 },
      [{ property: "a.b", reason: expect.stringMatching(/^a\.b: unknown field/) }],
    ],
    [
      "adoptId of the right kind",
      checkEventSubscriptionInputs,
      { ...sub, adoptId: `esb_${"A".repeat(27)}` },
      [],
    ],
    ["adoptId not known yet (preview)", checkEventSubscriptionInputs, { ...sub, adoptId: UNKNOWN }, []],
    [
      "adoptId that only ends with the prefix",
      checkEventSubscriptionInputs,
      { ...sub, adoptId: "x_esb_" },
      [
        {
          property: "adoptId",
          reason: expect.stringMatching(
            /^adoptId: must be the ID of an existing event subscription \(esb_…\), got "x_esb_"$/,
          ),
        },
      ],
    ],
    [
      "an abuse report cannot be adopted: adoptId is an unknown field",
      checkAbuseReportInputs,
      { urls: ["https://a.test"], adoptId: "ar_x" },
      [{ property: "adoptId", reason: "adoptId: unknown field (expected one of urls, metadata)" }],
    ],
  ] as const)("%s", (_what, check, inputs, expected) => {
    expect(check(inputs as Record<string, unknown>)).toEqual(expected);
  });
});

describe("values not known yet (preview)", () => {
  it("are marked with the value Pulumi's engine sends", () => {
    expect(UNKNOWN).toBe(unknownValue);
  });

  it("are not failures, nor are the issues of the list that holds one", () => {
    expect(checkEventSubscriptionInputs({ ...sub, destinationIds: [UNKNOWN, UNKNOWN] })).toEqual([]);
    expect(checkEventDestinationInputs({ target: { kinesis: UNKNOWN } })).toEqual([]);
    expect(checkEventDestinationInputs({ target: UNKNOWN, description: "x".repeat(256) })).toEqual([
      { property: "description", reason: "description: at most 255 characters, got 256" },
    ]);
  });

  it("are found at any depth, in the client's field notation", () => {
    expect(unknownPaths({ a: [1, UNKNOWN], b: { c: UNKNOWN } })).toEqual(["a[1]", "b.c"]);
    expect(unknownPaths({ at: new Date(0), b: [UNKNOWN] })).toEqual(["b[0]"]);
  });

  it("are looked for 64 levels deep, and no deeper", () => {
    /** UNKNOWN as the value of the innermost of `levels` nested objects (`a.a.…`). */
    const deep = (levels: number) => {
      let v: unknown = UNKNOWN;
      for (let i = 0; i < levels; i++) v = { a: v };
      return v;
    };
    expect(unknownPaths(deep(64))).toEqual([Array(64).fill("a").join(".")]);
    expect(unknownPaths(deep(65))).toEqual([]);
  });

  it("leave out the issues of a field inside them or around them, not of a field that only starts alike", () => {
    const issue = (field: string) => ({ field, message: `${field}: bad` });
    const inputs = { destinationIds: [UNKNOWN], target: { datadog: UNKNOWN } };
    expect(
      toCheckFailures(
        [
          issue("destinationIds[0]"),
          issue("destinationIds"),
          issue("target"),
          issue("target.datadog.apiKey"),
          issue("destinationIdsExtra"),
          issue("targets.x"),
        ],
        inputs,
      ),
    ).toEqual([
      { property: "destinationIdsExtra", reason: "destinationIdsExtra: bad" },
      { property: "targets", reason: "targets.x: bad" },
    ]);
  });
});

describe("the property a failure names", () => {
  const issue = (field: string) => ({ field, message: `${field}: bad` });
  const property = (field: string, inputs: unknown) => toCheckFailures([issue(field)], inputs)[0]?.property;

  it.each<[string, unknown, string]>([
    ["sources[0].type", { sources: [] }, "sources"],
    ["target.datadog.apiKey", { target: {} }, "target"],
    ["a.b.c", { a: 1, "a.b": 2 }, "a.b"],
    ["a.b.c", { "a.b": 2, a: 1 }, "a.b"],
    ["a.b[0]", { "a.b": [] }, "a.b"],
    ["a[0]", { a: [], "a[0]x": 1 }, "a"],
    ["description", { descriptionX: 1, description: "x" }, "description"],
    ["missing.x", {}, "missing"],
    ["missing[1]", null, "missing"],
    ["[0]", {}, "[0]"],
    ["x", { "": 1 }, "x"],
  ])("%s with inputs %j: %s", (field, inputs, expected) => {
    expect(property(field, inputs)).toBe(expected);
  });
});

describe("hostile input", () => {
  it("a property that throws when read is one failure of that property", () => {
    const inputs = throwingKey({ ...sub }, "description");
    expect(checkEventSubscriptionInputs(inputs)).toEqual([
      { property: "description", reason: "description: could not be read" },
    ]);
  });
});

describe("inputs read once, as plain data", () => {
  /** An object whose key `x` throws when read, as the value of the innermost of `depth` nested objects. */
  function throwingAt(depth: number): unknown {
    let v: unknown = throwingKey({}, "x");
    for (let i = 0; i < depth; i++) v = { a: v };
    return v;
  }
  const report = (metadata: unknown) => checkAbuseReportInputs({ urls: ["https://a.test"], metadata });

  it("are copied 64 levels deep: a value that throws within them is the provider's failure, deeper the client's", () => {
    expect(report(throwingAt(63))).toEqual([{ property: "metadata", reason: "metadata: could not be read" }]);
    expect(report(throwingAt(64))).toEqual([
      { property: "metadata", reason: "metadata: could not be read (Error)" },
    ]);
  });

  it("objects without a prototype are copied; instances of a class are passed as they are", () => {
    const bare = throwingKey(Object.create(null) as object, "datadog");
    expect(checkEventDestinationInputs({ target: bare })).toEqual([
      { property: "target", reason: "target: could not be read" },
      { property: "target", reason: "target: required" },
    ]);
    expect(
      checkEventDestinationInputs({
        target: Object.assign(Object.create(null) as object, { datadog: { apiKey: "k" } }),
      }),
    ).toEqual([]);
    class Holder {}
    expect(report(Object.defineProperty(new Holder(), "x", { enumerable: true, get: () => "x" }))).toEqual([
      { property: "metadata", reason: "metadata: must be a string" },
    ]);
    expect(report(throwingAt(0))).toEqual([{ property: "metadata", reason: "metadata: could not be read" }]);
    expect(report([1, throwingAt(0)])).toEqual([
      { property: "metadata", reason: "metadata: could not be read" },
    ]);
    const instance = throwingKey(new Holder(), "x");
    expect(report(instance)).toEqual([
      { property: "metadata", reason: "metadata: could not be read (Error)" },
    ]);
  });

  it("inputs whose keys cannot be listed count as none, and nothing is thrown", () => {
    const unlisted = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("boom");
        },
      },
    );
    expect(checkEventSubscriptionInputs(unlisted)).toEqual([
      { property: "sources", reason: "sources: required" },
      { property: "destinationIds", reason: "destinationIds: required" },
    ]);
  });
});
