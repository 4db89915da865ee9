/**
 * Drift analysis of engine events, secret masking and redaction, and the report table (gitops/drift.ts, gitops/format.ts), without an engine.
 */
import {
  analyzePreviewEvents,
  analyzeRefreshEvents,
  diffProperties,
  expectedReads,
  maskSecrets,
  redact,
  type DriftReport,
} from "../../gitops/drift";
import { formatReport } from "../../gitops/format";
import { MASKED_SECRET as SECRET, outputsEvent, preEvent } from "../helpers/gitops";

const SUB = "pulumi-nodejs:dynamic/service:EventSubscription";
const DEST = "pulumi-nodejs:dynamic/service:EventDestination";

describe("drift analysis of refresh events", () => {
  it("reports changed properties (lists in any order), deletions, and ignores same results and providers", () => {
    const old = { description: "a", destinationIds: ["ed_1", "ed_2"], __provider: "x", uri: "u" };
    const events = [
      outputsEvent("update", SUB, "multi", old, {
        ...old,
        description: "b",
        destinationIds: ["ed_2", "ed_1"],
      }),
      outputsEvent("delete", SUB, "gone", old, undefined),
      outputsEvent("same", SUB, "fine", old, { ...old, destinationIds: ["ed_2", "ed_1"] }),
      outputsEvent("update", "pulumi:providers:pulumi-nodejs", "default", { k: 1 }, { k: 2 }),
    ];
    const { checked, resources } = analyzeRefreshEvents(events);
    expect(checked).toBe(3);
    expect(resources).toEqual([
      {
        name: "multi",
        type: "EventSubscription",
        typeToken: SUB,
        urn: `urn:pulumi:dev::proj::${SUB}::multi`,
        id: "id-multi",
        status: "changed",
        properties: [{ property: "description", before: "a", after: "b", secret: false }],
      },
      expect.objectContaining({ name: "gone", status: "deleted", properties: [] }),
    ]);
  });

  it("a change the provider sees but no visible value explains is reported on the secret properties", () => {
    const old = { description: "d", target: SECRET };
    const { resources } = analyzeRefreshEvents([outputsEvent("update", DEST, "dest", old, { ...old })]);
    expect(resources[0].properties).toEqual([
      { property: "target", before: "[secret]", after: "[secret]", secret: true },
    ]);
  });

  it("masks nested secrets and never returns their ciphertext", () => {
    expect(maskSecrets({ a: [SECRET, 1] })).toEqual({ value: { a: ["[secret]", 1] }, secret: true });
    const diff = diffProperties({ x: { inner: SECRET, n: 1 } }, { x: { inner: SECRET, n: 2 } });
    expect(diff).toEqual([
      {
        property: "x",
        before: { inner: "[secret]", n: 1 },
        after: { inner: "[secret]", n: 2 },
        secret: true,
      },
    ]);
  });

  it("pending changes merge the steps of a replacement and leave out unchanged resources", () => {
    const pre = (
      op: string,
      name: string,
      oldIn?: Record<string, unknown>,
      newIn?: Record<string, unknown>,
    ) => preEvent(op, SUB, name, oldIn, newIn);
    const changes = analyzePreviewEvents([
      pre("same", "a"),
      pre("update", "b", { description: "x", target: SECRET }, { description: "y", target: SECRET }),
      pre("create-replacement", "c", { urls: ["1"] }, { urls: ["2"] }),
      pre("replace", "c", { urls: ["1"] }, { urls: ["2"] }),
      pre("delete-replaced", "c"),
      pre("create", "d"),
    ]);
    expect(changes.map((c) => [c.name, c.op, c.properties])).toEqual([
      ["b", "update", ["description"]],
      ["c", "replace", ["urls"]],
      ["d", "create", []],
    ]);
  });

  it("redact removes known secrets and bearer tokens", () => {
    expect(redact("key sk_abc123 and Bearer tok_zz9 here", ["sk_abc123"])).toBe(
      "key [redacted] and Bearer [redacted] here",
    );
  });

  it("the table shows drift and pending changes apart", () => {
    const report: DriftReport = {
      stack: "dev",
      workDir: "/p",
      drift: true,
      checkedResources: 2,
      resources: [
        {
          name: "multi",
          type: "EventSubscription",
          typeToken: SUB,
          urn: "u",
          id: "esb_1",
          status: "changed",
          properties: [{ property: "description", before: "a", after: "b", secret: false }],
        },
        {
          name: "gone",
          type: "EventSubscription",
          typeToken: SUB,
          urn: "u2",
          id: "esb_2",
          status: "deleted",
          properties: [],
        },
      ],
      ignored: [],
      pendingChanges: {
        present: true,
        summary: { update: 1 },
        resources: [
          { name: "dest", type: "EventDestination", urn: "u3", op: "update", properties: ["metadata"] },
        ],
      },
      exitCode: 2,
    };
    const text = formatReport(report);
    expect(text).toMatch(/multi\s+EventSubscription\s+esb_1\s+changed\s+description\s+"a"\s+"b"/);
    expect(text).toMatch(/gone\s+EventSubscription\s+esb_2\s+deleted/);
    expect(text).toMatch(
      /PROGRAM CHANGES NOT YET DEPLOYED[^\n]*\n[^\n]*\n\s+update\s+dest\s+EventDestination\s+metadata/,
    );
    expect(text).toMatch(/exit code 2/);
  });
});

describe("the reads announced to the providers before the refresh", () => {
  it("counts the event subscriptions and destinations of the state by ID prefix, through either door", () => {
    const deployment = {
      resources: [
        { type: "pulumi:pulumi:Stack", custom: false, urn: "s" },
        { type: "pulumi:providers:service", custom: true, id: "5f1c0d8e-provider" },
        { type: "pulumi:providers:pulumi-nodejs", custom: true, id: "esb_looks_like_one" },
        { type: "service:index:EventDestination", custom: true, id: `ed_${"A".repeat(27)}` },
        { type: SUB, custom: true, id: `esb_${"A".repeat(27)}` },
        { type: "service:index:EventSubscription", custom: true, id: `esb_${"B".repeat(27)}` },
        { type: SUB, custom: true, id: "pending-create-0f1e2d3c" },
        { type: "service:index:AbuseReport", custom: true, id: `abrp_${"C".repeat(27)}` },
      ],
    };
    expect(expectedReads(deployment)).toEqual({ esb_: 2, ed_: 1 });
    expect(expectedReads({})).toEqual({});
    expect(expectedReads(undefined)).toEqual({});
  });
});
