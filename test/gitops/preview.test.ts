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

// The tests below compute inside their bodies: the mutation run (Stryker) turns a mutant on only
// there, not while the blocks above compute their events. Imported here to leave the tests above
// in their places (Stryker's incremental run knows a test by its place).
import { analyzePreviewEvents } from "../../gitops/preview";

describe("the resources of a preview, read inside the test", () => {
  it("steps that change nothing (same, read, refresh) and provider resources are left out; a create has no ID yet", () => {
    expect(
      analyzePreviewChanges([
        preEvent("same", SUB, "unchanged", { description: "a" }, { description: "a" }),
        preEvent("read", SUB, "looked-up", undefined, { description: "r" }),
        preEvent("refresh", SUB, "refreshed", { description: "a" }, { description: "b" }),
        preEvent("update", "pulumi:providers:service", "default", { apiKey: "x" }, { apiKey: "y" }),
        preEvent("create", DEST, "new-dest", undefined, { description: "d" }),
      ]),
    ).toEqual<PreviewResource[]>([
      {
        name: "new-dest",
        type: "EventDestination",
        typeToken: DEST,
        urn: `urn:pulumi:dev::proj::${DEST}::new-dest`,
        id: "",
        op: "create",
        replaceReasons: [],
        properties: [{ property: "description", before: null, after: "d", secret: false }],
      },
    ]);
  });

  it("a replacement created before the delete: one replace, the properties forcing it sorted, unknowns (nested too) [unknown], an input the program keeps not listed", () => {
    const before = { description: "first", metadata: "m", destinationIds: ["ed_1"], filter: { kind: "a" } };
    const after = {
      description: "second",
      metadata: "m",
      destinationIds: [UNKNOWN],
      filter: { kind: "a", source: UNKNOWN },
    };
    const keys = { keys: ["filter", "description"] };
    expect(
      analyzePreviewChanges([
        preEvent("create-replacement", SUB, "moved", before, after, keys),
        preEvent("replace", SUB, "moved", before, after, keys),
        preEvent("delete-replaced", SUB, "moved", before),
      ]),
    ).toEqual<PreviewResource[]>([
      {
        name: "moved",
        type: "EventSubscription",
        typeToken: SUB,
        urn: `urn:pulumi:dev::proj::${SUB}::moved`,
        id: "id-moved",
        op: "replace",
        replaceReasons: ["description", "filter"],
        properties: [
          { property: "description", before: "first", after: "second", secret: false },
          { property: "destinationIds", before: ["ed_1"], after: ["[unknown]"], secret: false },
          {
            property: "filter",
            before: { kind: "a" },
            after: { kind: "a", source: "[unknown]" },
            secret: false,
          },
        ],
      },
    ]);
  });

  it("a replacement deleted first (deleteBeforeReplace): one replace with the later steps' reasons and properties, sorted, a secret the provider reports changed among them", () => {
    const before = { name: "a", description: "same", auth: MASKED_SECRET };
    const after = { name: "b", description: "same", auth: MASKED_SECRET };
    const extra = { keys: ["name", "description"], diffs: ["name", "auth"] };
    const [moved] = analyzePreviewChanges([
      preEvent("delete-replaced", SUB, "moved", before),
      preEvent("replace", SUB, "moved", before, after, extra),
      preEvent("create-replacement", SUB, "moved", before, after, extra),
    ]);
    expect([moved.op, moved.id, moved.replaceReasons]).toEqual([
      "replace",
      "id-moved",
      ["description", "name"],
    ]);
    expect(moved.properties).toEqual([
      { property: "auth", before: "[secret]", after: "[secret]", secret: true },
      { property: "name", before: "a", after: "b", secret: false },
    ]);
  });

  it("the ID of a replaced resource from whichever step carries its state", () => {
    const first = preEvent("create-replacement", SUB, "moved", undefined, { description: "b" });
    const [moved] = analyzePreviewChanges([
      first,
      preEvent("replace", SUB, "moved", { description: "a" }, { description: "b" }),
    ]);
    expect([moved.op, moved.id]).toEqual(["replace", "id-moved"]);
  });

  it("a secret input the provider reports changed is listed in its place among the others", () => {
    const [rotated] = analyzePreviewChanges([
      preEvent(
        "update",
        DEST,
        "rotated",
        { auth: MASKED_SECRET, description: "a" },
        { auth: MASKED_SECRET, description: "b" },
        { diffs: ["auth", "description"] },
      ),
    ]);
    expect(rotated.properties).toEqual([
      { property: "auth", before: "[secret]", after: "[secret]", secret: true },
      { property: "description", before: "a", after: "b", secret: false },
    ]);
  });

  it("a state without inputs (the engine leaves the key out when empty) and a change the provider reports on a plain input", () => {
    const event = preEvent(
      "update",
      SUB,
      "bare",
      {},
      { description: "d" },
      { diffs: ["description", "extra"] },
    );
    delete (event.resourcePreEvent!.metadata.old as { inputs?: unknown }).inputs;
    expect(analyzePreviewChanges([event])[0].properties).toEqual([
      { property: "description", before: null, after: "d", secret: false },
    ]);
  });

  it("the drift report's pending changes: the names of the changed inputs of an update or a replace that are not secret; none for a create or a delete", () => {
    expect(
      analyzePreviewEvents([
        preEvent(
          "update",
          DEST,
          "edited",
          { description: "a", target: MASKED_SECRET },
          { description: "b", target: MASKED_SECRET },
          { diffs: ["description", "target"] },
        ),
        preEvent("create", DEST, "added", undefined, { description: "d" }),
        preEvent("delete", DEST, "gone", { description: "g" }),
      ]),
    ).toEqual([
      {
        name: "edited",
        type: "EventDestination",
        urn: `urn:pulumi:dev::proj::${DEST}::edited`,
        op: "update",
        properties: ["description"],
      },
      {
        name: "added",
        type: "EventDestination",
        urn: `urn:pulumi:dev::proj::${DEST}::added`,
        op: "create",
        properties: [],
      },
      {
        name: "gone",
        type: "EventDestination",
        urn: `urn:pulumi:dev::proj::${DEST}::gone`,
        op: "delete",
        properties: [],
      },
    ]);
  });
});

describe("the guard, its rule checked", () => {
  it("the verdict names the types and names it was narrowed to", () => {
    const resources = analyzePreviewChanges([preEvent("delete", DEST, "audit", { description: "d" })]);
    expect(
      applyGuard(resources, { failOn: ["delete"], types: ["EventDestination", DEST], names: ["audit"] }),
    ).toEqual({
      failOn: ["delete"],
      types: ["EventDestination", DEST],
      names: ["audit"],
      refused: [{ name: "audit", type: "EventDestination", urn: resources[0].urn, op: "delete" }],
    });
  });

  it("several unknown operations named in one message; types or names without operations refused; with operations or with nothing at all, accepted", () => {
    expect(() => checkGuardRule({ failOn: ["destroy" as GuardOp, "purge" as GuardOp] })).toThrow(
      new PreviewError(
        '--fail-on: "destroy", "purge" is not an operation; use one or more of create, update, replace, delete (e.g. --fail-on replace,delete).',
      ),
    );
    const narrowOnly = new PreviewError(
      "--fail-on-type and --fail-on-name narrow --fail-on: give the operations to refuse too (e.g. --fail-on replace,delete).",
    );
    expect(() => checkGuardRule({ failOn: [], names: ["audit"] })).toThrow(narrowOnly);
    expect(() => checkGuardRule({ failOn: [], types: ["EventDestination"], names: [] })).toThrow(narrowOnly);
    const narrowed = { failOn: ["delete" as GuardOp], types: ["EventDestination"], names: ["audit"] };
    expect(checkGuardRule(narrowed)).toEqual(narrowed);
    expect(checkGuardRule({ failOn: [], types: [], names: [] })).toEqual({
      failOn: [],
      types: [],
      names: [],
    });
  });
});

describe("the policy violations' messages", () => {
  const violation = (message: string): EngineEvent =>
    ({
      sequence: 1,
      timestamp: 0,
      policyEvent: {
        message,
        color: "never",
        policyName: "rule",
        policyPackName: "pack",
        policyPackVersion: "1.0.0",
        policyPackVersionTag: "1.0.0",
        enforcementLevel: "warning",
      },
    }) as EngineEvent;

  it("the violation's lines after the rule's description, trimmed; a message of one line kept whole", () => {
    expect(
      analyzePolicyEvents([
        violation("\n  The rule's description.\n    first line of the violation\nsecond line\n"),
        violation("a violation without a description\n"),
      ]).map((v) => v.message),
    ).toEqual(["first line of the violation\nsecond line", "a violation without a description"]);
  });
});

describe("a replacement's steps, each on its own and after an import", () => {
  it("each step of a replacement alone already reads as a replace: the reasons sorted, the delete step without properties", () => {
    const alone = (op: string, extra: Record<string, unknown> = {}) =>
      analyzePreviewChanges([preEvent(op, SUB, "moved", { name: "a" }, { name: "b" }, extra)]).map((r) => [
        r.op,
        r.replaceReasons,
        r.properties.map((p) => p.property),
      ]);
    expect(alone("replace", { keys: ["name", "description"] })).toEqual([
      ["replace", ["description", "name"], ["name"]],
    ]);
    expect(alone("create-replacement", { keys: ["name"] })).toEqual([["replace", ["name"], ["name"]]]);
    expect(alone("delete-replaced")).toEqual([["replace", [], []]]);
  });

  it("an import that replaces a resource (import-replacement, replace, delete-replaced): one replace", () => {
    const before = { name: "a" };
    const after = { name: "b" };
    const [moved] = analyzePreviewChanges([
      preEvent("import-replacement", SUB, "moved", before, after),
      preEvent("replace", SUB, "moved", before, after, { keys: ["name"] }),
      preEvent("delete-replaced", SUB, "moved", before),
    ]);
    expect([moved.op, moved.replaceReasons]).toEqual(["replace", ["name"]]);
  });
});

describe("the module's tables, the module loaded inside the test", () => {
  /**
   * gitops/preview.ts loaded afresh: its tables (the steps left out, a replacement's steps, the
   * unknown value's sentinel and text) are built while the test runs, as the mutation run needs
   * to see them (it turns a mutant on only inside a test).
   */
  const freshPreview = (): typeof import("../../gitops/preview") => {
    let loaded: typeof import("../../gitops/preview") | undefined;
    jest.isolateModules(() => {
      loaded = jest.requireActual<typeof import("../../gitops/preview")>("../../gitops/preview");
    });
    return loaded!;
  };

  it("steps that change nothing left out, a replacement's steps each a replace, unknown values [unknown]", () => {
    const { analyzePreviewChanges: changesOf, UNKNOWN_TEXT } = freshPreview();
    expect(UNKNOWN_TEXT).toBe("[unknown]");
    const rows = changesOf([
      preEvent("same", SUB, "same", { description: "a" }, { description: "a" }),
      preEvent("read", SUB, "read", undefined, { description: "r" }),
      preEvent("refresh", SUB, "refresh", { description: "a" }, { description: "b" }),
      preEvent("create-replacement", SUB, "created-first", { description: "a" }, { description: UNKNOWN }),
      preEvent("delete-replaced", SUB, "deleted-first", { description: "a" }),
      preEvent("replace", SUB, "replaced", { description: "a" }, { description: "b" }),
    ]).map((r) => [r.name, r.op, ...r.properties.map((p) => `${p.property}: ${String(p.after)}`)]);
    expect(rows).toEqual([
      ["created-first", "replace", "description: [unknown]"],
      ["deleted-first", "replace"],
      ["replaced", "replace", "description: b"],
    ]);
  });
});

describe("the inputs the provider reports changed (diffs), at their edges", () => {
  it("an input already listed is listed once, secret or not; the engine's own inputs (`__…`) never, even holding a secret", () => {
    const [changed] = analyzePreviewChanges([
      preEvent(
        "update",
        DEST,
        "keyed",
        { description: "a" },
        { description: "a", target: MASKED_SECRET, __meta: MASKED_SECRET },
        { diffs: ["target", "__meta"] },
      ),
    ]);
    expect(changed.properties).toEqual([
      { property: "target", before: null, after: "[secret]", secret: true },
    ]);
  });

  it("a program state without inputs (the engine leaves the key out when empty), with a change the provider reports that the states do not show", () => {
    const event = preEvent(
      "update",
      SUB,
      "emptied",
      { description: "d" },
      {},
      { diffs: ["description", "extra"] },
    );
    delete (event.resourcePreEvent!.metadata.new as { inputs?: unknown }).inputs;
    expect(analyzePreviewChanges([event])[0].properties).toEqual([
      { property: "description", before: "d", after: null, secret: false },
    ]);
  });
});
