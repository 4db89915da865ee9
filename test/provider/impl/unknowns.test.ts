/**
 * During a preview, an input that comes from another resource's output is not known yet: the
 * engine sends Pulumi's unknown sentinel in its place, for a whole value or for a part of it.
 * `check` must not report it as invalid and `diff` must not throw; `diff` reports the property
 * as changing (the new value is not known, so it cannot be shown equal).
 */
import { UNKNOWN } from "../../../provider/validation";
import * as subscriptions from "../../../provider/impl/eventSubscription";
import * as destinations from "../../../provider/impl/eventDestination";
import * as reports from "../../../provider/impl/abuseReport";

const ED = "ed_" + "0".repeat(26) + "1";
const ED2 = "ed_" + "0".repeat(26) + "2";

const SUB_INPUTS: subscriptions.SubscriptionInputs = {
  sources: [{ type: "ip_policy_created.v0" }],
  destinationIds: [ED],
  description: "d",
  metadata: "m",
};
const SUB_OUTPUTS: subscriptions.SubscriptionOutputs = {
  sources: [{ type: "ip_policy_created.v0", uri: "u" }],
  destinationIds: [ED],
  destinations: [{ id: ED, uri: "u" }],
  description: "d",
  metadata: "m",
  uri: "u",
  createdAt: "2026-11-21T05:00:00Z",
};

const KINESIS = {
  kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/r" } }, streamArn: "arn:aws:kinesis:s" },
};
const DEST_INPUTS = {
  format: "json",
  target: KINESIS,
  description: "d",
  metadata: "m",
} as destinations.DestinationInputs;
const DEST_OUTPUTS = {
  format: "json",
  target: KINESIS,
  description: "d",
  metadata: "m",
  uri: "u",
  createdAt: "2026-11-21T05:00:00Z",
} as destinations.DestinationOutputs;

const REPORT_INPUTS: reports.ReportInputs = { urls: ["https://a.example.com/x"], metadata: "m" };
const REPORT_OUTPUTS: reports.ReportOutputs = {
  urls: ["https://a.example.com/x"],
  metadata: "m",
  status: "PENDING",
  hostnames: [{ hostname: "a.example.com", status: "PENDING" }],
  uri: "u",
  createdAt: "2026-11-21T05:00:00Z",
};

type Case = [label: string, property: string, value: unknown];

const SUB_CASES: Case[] = [
  ["sources, wholly unknown", "sources", UNKNOWN],
  ["sources, one element unknown", "sources", [{ type: "ip_policy_created.v0" }, UNKNOWN]],
  ["sources, a type unknown", "sources", [{ type: UNKNOWN }]],
  ["destinationIds, wholly unknown", "destinationIds", UNKNOWN],
  ["destinationIds, one element unknown", "destinationIds", [ED, UNKNOWN]],
  ["description, unknown", "description", UNKNOWN],
  ["metadata, unknown", "metadata", UNKNOWN],
];

const DEST_CASES: Case[] = [
  ["target, wholly unknown", "target", UNKNOWN],
  ["target, the kind's settings unknown", "target", { kinesis: UNKNOWN }],
  ["target, auth unknown", "target", { kinesis: { auth: UNKNOWN, streamArn: "arn:aws:kinesis:s" } }],
  [
    "target, a role ARN unknown",
    "target",
    { kinesis: { auth: { role: { roleArn: UNKNOWN } }, streamArn: "arn:aws:kinesis:s" } },
  ],
  ["target, a secret unknown", "target", { datadog: { apiKey: UNKNOWN, ddsite: "datadoghq.eu" } }],
  ["format, unknown", "format", UNKNOWN],
  ["description, unknown", "description", UNKNOWN],
  ["metadata, unknown", "metadata", UNKNOWN],
];

const REPORT_CASES: Case[] = [
  ["urls, wholly unknown", "urls", UNKNOWN],
  ["urls, one element unknown", "urls", ["https://a.example.com/x", UNKNOWN]],
  ["metadata, unknown", "metadata", UNKNOWN],
];

describe.each([
  ["EventSubscription", subscriptions, SUB_INPUTS, SUB_OUTPUTS, SUB_CASES, "changes"],
  ["EventDestination", destinations, DEST_INPUTS, DEST_OUTPUTS, DEST_CASES, "changes"],
  ["AbuseReport", reports, REPORT_INPUTS, REPORT_OUTPUTS, REPORT_CASES, "replaces"],
] as const)("%s with an input not known yet", (_name, impl, inputs, outputs, cases, effect) => {
  const withValue = (property: string, value: unknown) => ({ ...inputs, [property]: value });

  it.each(cases)("%s: check reports no failure", async (_label, property, value) => {
    const result = await impl.check({}, withValue(property, value) as never);
    expect(result.failures).toEqual([]);
  });

  it.each(cases)("%s: diff does not throw and reports a change", async (_label, property, value) => {
    const result = await impl.diff("id", outputs as never, withValue(property, value) as never);
    expect(result.changes).toBe(true);
    if (effect === "replaces") expect(result.replaces).toContain(property);
  });

  it("the same inputs, all known: diff reports no change", async () => {
    const result = await impl.diff("id", outputs as never, inputs as never);
    expect(result.changes).toBe(false);
  });

  it("every input of the resource is covered by a case", () => {
    const covered = new Set(cases.map(([, property]) => property));
    expect(Object.keys(inputs).filter((k) => !covered.has(k))).toEqual([]);
  });
});

describe("a subscription's destinationIds partly unknown next to a known change", () => {
  it("diff reports the change", async () => {
    const result = await subscriptions.diff("id", SUB_OUTPUTS, {
      ...SUB_INPUTS,
      destinationIds: [ED2, UNKNOWN],
    });
    expect(result.changes).toBe(true);
  });
});
