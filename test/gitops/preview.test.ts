/**
 * The preview summary and its guard (gitops/preview.ts), from engine events built by hand: what a
 * reviewer and a merge check see of a preview, without an engine (test/e2e/resource-options.test.ts
 * runs them on a real preview through both doors).
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import {
  analyzePolicyEvents,
  analyzePreviewChanges,
  applyGuard,
  checkGuardRule,
  PreviewError,
  type GuardOp,
  type PreviewResource,
} from "../../gitops/preview";
import { MASKED_SECRET, preEvent } from "../helpers/gitops";

const SUB = "service:index:EventSubscription";
const DEST = "pulumi-nodejs:dynamic/service:EventDestination";
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

describe("the resources of a preview", () => {
  const events = [
    preEvent("same", SUB, "unchanged", { description: "a" }, { description: "a" }),
    preEvent("update", "pulumi:providers:service", "default", { apiKey: "x" }, { apiKey: "y" }),
    preEvent(
      "update",
      SUB,
      "edited",
      { description: "old", metadata: "m", __defaults: [] },
      { description: "new", metadata: "m", __defaults: ["x"] },
    ),
    preEvent(
      "create-replacement",
      SUB,
      "moved",
      { description: "first", destinationIds: ["ed_1"] },
      { description: "second", destinationIds: [UNKNOWN] },
      { keys: ["description"] },
    ),
    preEvent(
      "replace",
      SUB,
      "moved",
      { description: "first", destinationIds: ["ed_1"] },
      { description: "second", destinationIds: [UNKNOWN] },
      { keys: ["description"] },
    ),
    preEvent("delete-replaced", SUB, "moved", { description: "first", destinationIds: ["ed_1"] }),
    preEvent("create", DEST, "new-dest", undefined, { description: "d", target: MASKED_SECRET }),
    preEvent(
      "update",
      DEST,
      "rotated",
      { description: "d", target: MASKED_SECRET },
      { description: "d", target: MASKED_SECRET },
      { diffs: ["target"] },
    ),
    preEvent("delete", SUB, "dropped", { description: "gone", metadata: "m" }),
  ];
  const changes = analyzePreviewChanges(events);

  it("one entry per changed resource, in the engine's order; a replacement's steps merged; unchanged ones and providers left out", () => {
    expect(changes.map((c) => [c.name, c.type, c.op, c.id])).toEqual([
      ["edited", "EventSubscription", "update", "id-edited"],
      ["moved", "EventSubscription", "replace", "id-moved"],
      ["new-dest", "EventDestination", "create", ""],
      ["rotated", "EventDestination", "update", "id-rotated"],
      ["dropped", "EventSubscription", "delete", "id-dropped"],
    ]);
  });

  it("each changed input with the state's value before and the program's after; Pulumi's own inputs left out", () => {
    expect(changes[0].properties).toEqual([
      { property: "description", before: "old", after: "new", secret: false },
    ]);
  });

  it("a replace names the properties that force it; values known only after up are [unknown]", () => {
    expect(changes[1]).toEqual<PreviewResource>({
      name: "moved",
      type: "EventSubscription",
      typeToken: SUB,
      urn: `urn:pulumi:dev::proj::${SUB}::moved`,
      id: "id-moved",
      op: "replace",
      replaceReasons: ["description"],
      properties: [
        { property: "description", before: "first", after: "second", secret: false },
        { property: "destinationIds", before: ["ed_1"], after: ["[unknown]"], secret: false },
      ],
    });
  });

  it("secrets are [secret], also when only the provider knows a secret input changed; a create lists its inputs, a delete the state's", () => {
    expect(changes[2].properties).toEqual([
      { property: "description", before: null, after: "d", secret: false },
      { property: "target", before: null, after: "[secret]", secret: true },
    ]);
    expect(changes[3].properties).toEqual([
      { property: "target", before: "[secret]", after: "[secret]", secret: true },
    ]);
    expect(changes[4].properties.map((p) => [p.property, p.before, p.after])).toEqual([
      ["description", "gone", null],
      ["metadata", "m", null],
    ]);
    expect(JSON.stringify(changes)).not.toContain("ciphertext");
  });
});

describe("the guard", () => {
  const resources = analyzePreviewChanges([
    preEvent("replace", SUB, "moved", { description: "a" }, { description: "b" }, { keys: ["description"] }),
    preEvent("delete", DEST, "audit", { description: "d" }),
    preEvent("create", DEST, "logs", undefined, { description: "l" }),
  ]);

  it("refuses the listed operations, on every resource when no type or name narrows it", () => {
    expect(applyGuard(resources, { failOn: ["replace", "delete"] })).toEqual({
      failOn: ["replace", "delete"],
      types: [],
      names: [],
      refused: [
        { name: "moved", type: "EventSubscription", urn: resources[0].urn, op: "replace" },
        { name: "audit", type: "EventDestination", urn: resources[1].urn, op: "delete" },
      ],
    });
  });

  it("narrowed to types (short or full token) and names; passes when nothing matches", () => {
    const refusedOf = (rule: Parameters<typeof applyGuard>[1]) =>
      applyGuard(resources, rule).refused.map((r) => r.name);
    expect(refusedOf({ failOn: ["replace", "delete"], types: ["EventDestination"] })).toEqual(["audit"]);
    expect(refusedOf({ failOn: ["replace", "delete"], types: [SUB] })).toEqual(["moved"]);
    expect(refusedOf({ failOn: ["replace", "delete", "create"], names: ["logs"] })).toEqual(["logs"]);
    expect(refusedOf({ failOn: ["update"] })).toEqual([]);
    expect(refusedOf({ failOn: [] })).toEqual([]);
  });

  it("a bad rule is refused before anything runs, naming the flag and the accepted operations", () => {
    expect(() => checkGuardRule({ failOn: ["replace", "destroy" as GuardOp] })).toThrow(
      new PreviewError(
        '--fail-on: "destroy" is not an operation; use one or more of create, update, replace, delete (e.g. --fail-on replace,delete).',
      ),
    );
    expect(() => checkGuardRule({ failOn: [], types: ["EventDestination"] })).toThrow(
      /--fail-on-type and --fail-on-name narrow --fail-on/,
    );
    expect(checkGuardRule({ failOn: ["delete"] })).toEqual({ failOn: ["delete"] });
  });
});

describe("the policy violations of a preview (--policy-pack)", () => {
  /** A `policyEvent` as the engine sends it (Pulumi 3.274, a violation of service-policy). */
  const policyEvent = (level: "mandatory" | "warning", urn?: string): EngineEvent =>
    ({
      sequence: 1,
      timestamp: 0,
      policyEvent: {
        ...(urn ? { resourceUrn: urn } : {}),
        message:
          'Abuse reports are filed only from stacks whose policy configuration sets allowAbuseReports.\nabuse report "phish" is not allowed in this stack\n',
        color: "never",
        policyName: "service-abuse-reports-allowed",
        policyPackName: "service-policy",
        policyPackVersion: "0.2.0",
        policyPackVersionTag: "0.2.0",
        enforcementLevel: level,
      },
    }) as EngineEvent;

  it("one per policy event, in order: the rule, its level (warning is advisory), the resource, the violation's text without the rule's description", () => {
    const urn = "urn:pulumi:dev::infra::service:index:AbuseReport::phish";
    expect(
      analyzePolicyEvents([
        preEvent("create", SUB, "a", undefined, { description: "a" }),
        policyEvent("mandatory", urn),
        policyEvent("warning"),
      ]),
    ).toEqual([
      {
        policyPack: "service-policy",
        policy: "service-abuse-reports-allowed",
        enforcementLevel: "mandatory",
        name: "phish",
        urn,
        message: 'abuse report "phish" is not allowed in this stack',
      },
      {
        policyPack: "service-policy",
        policy: "service-abuse-reports-allowed",
        enforcementLevel: "advisory",
        name: "",
        urn: "",
        message: 'abuse report "phish" is not allowed in this stack',
      },
    ]);
  });
});
