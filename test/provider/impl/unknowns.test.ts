/**
 * During a preview, an input that comes from another resource's output is not known yet: the
 * engine sends Pulumi's unknown sentinel in its place, for a whole value or for a part of it.
 * `check` must not report it as invalid and `diff` must not throw; `diff` reports the property
 * as changing (the new value is not known, so it cannot be shown equal), except `adoptId`, which
 * is read on create only. Every input the resources' `XArgs` interfaces declare has a case.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { UNKNOWN } from "../../../provider/impl/inputChecks";
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

/**
 * The inputs a resource declares: the members of its `XArgs` interface in provider/<file>.ts,
 * the interface users write programs against, read from the source (interfaces do not exist at
 * run time). A new input there must get a case below.
 *
 * @throws Error when the interface is missing or extends another (its inherited members would be missed).
 */
function declaredInputs(file: string, interfaceName: string): string[] {
  const source = path.join(__dirname, "../../../provider/dynamic", file);
  const sf = ts.createSourceFile(source, readFileSync(source, "utf8"), ts.ScriptTarget.ES2022, true);
  const decl = sf.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === interfaceName,
  );
  if (!decl) throw new Error(`${interfaceName} is not declared in provider/${file}`);
  if (decl.heritageClauses?.length)
    throw new Error(`${interfaceName} extends another interface: read its members too`);
  return decl.members.map((m) => {
    if (!ts.isPropertySignature(m)) throw new Error(`${interfaceName} has a member that is not a property`);
    return m.name.getText(sf);
  });
}

/**
 * One input not known yet: a label, the top-level property, the value, and whether `diff`
 * reports a change (`adoptId` is read on create only, so an unknown one changes nothing).
 */
type Case = [label: string, property: string, value: unknown, diffChanges?: boolean];

const SUB_CASES: Case[] = [
  ["sources, wholly unknown", "sources", UNKNOWN],
  ["sources, one element unknown", "sources", [{ type: "ip_policy_created.v0" }, UNKNOWN]],
  ["sources, a type unknown", "sources", [{ type: UNKNOWN }]],
  ["destinationIds, wholly unknown", "destinationIds", UNKNOWN],
  ["destinationIds, one element unknown", "destinationIds", [ED, UNKNOWN]],
  ["description, unknown", "description", UNKNOWN],
  ["metadata, unknown", "metadata", UNKNOWN],
  ["adoptId, unknown", "adoptId", UNKNOWN, false],
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
  ["adoptId, unknown", "adoptId", UNKNOWN, false],
];

const REPORT_CASES: Case[] = [
  ["urls, wholly unknown", "urls", UNKNOWN],
  ["urls, one element unknown", "urls", ["https://a.example.com/x", UNKNOWN]],
  ["metadata, unknown", "metadata", UNKNOWN],
];

describe.each([
  ["EventSubscription", subscriptions, SUB_INPUTS, SUB_OUTPUTS, SUB_CASES, "changes", "eventSubscription.ts"],
  ["EventDestination", destinations, DEST_INPUTS, DEST_OUTPUTS, DEST_CASES, "changes", "eventDestination.ts"],
  ["AbuseReport", reports, REPORT_INPUTS, REPORT_OUTPUTS, REPORT_CASES, "replaces", "abuseReport.ts"],
] as const)("%s with an input not known yet", (name, impl, inputs, outputs, cases, effect, file) => {
  const withValue = (property: string, value: unknown) => ({ ...inputs, [property]: value });

  it.each(cases)("%s: check reports no failure", async (_label, property, value) => {
    const result = await impl.check({}, withValue(property, value) as never);
    expect(result.failures).toEqual([]);
  });

  it.each(cases)(
    "%s: diff does not throw and reports a change unless the input is read on create only",
    async (_label, property, value, diffChanges = true) => {
      const result = await impl.diff("id", outputs as never, withValue(property, value) as never);
      expect(result.changes).toBe(diffChanges);
      if (effect === "replaces" && diffChanges) expect(result.replaces).toContain(property);
    },
  );

  it("the same inputs, all known: diff reports no change", async () => {
    const result = await impl.diff("id", outputs as never, inputs as never);
    expect(result.changes).toBe(false);
  });

  it(`every input ${name}Args declares is covered by a case`, () => {
    const declared = declaredInputs(file, `${name}Args`);
    expect(declared.length).toBeGreaterThan(0);
    const covered = new Set(cases.map(([, property]) => property));
    expect(declared.filter((k) => !covered.has(k))).toEqual([]);
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
