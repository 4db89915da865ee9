/**
 * How the drift report compares a resource's last deployment with what the service holds
 * (gitops/events.ts `diffProperties`): a property on one side only is drift too (a description set
 * outside Pulumi on a resource that had none, or one removed), secrets show only as `[secret]` (a
 * change inside a secret is the refresh's to tell: drift.test.ts), and the engine's own `__`
 * properties are never compared.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { SECRET_TEXT, analyzeRefreshEvents, diffProperties, nameOf, shortType } from "../../gitops/events";

const secret = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });

describe("diffProperties", () => {
  it("reports a property the service holds that the last deployment did not have, and one it no longer holds", () => {
    expect(diffProperties({ sources: ["a"] }, { sources: ["a"], description: "set by hand" })).toEqual([
      { property: "description", before: null, after: "set by hand", secret: false },
    ]);
    expect(diffProperties({ sources: ["a"], metadata: "m" }, { sources: ["a"] })).toEqual([
      { property: "metadata", before: "m", after: null, secret: false },
    ]);
  });

  it("shows a secret only as [secret], and leaves the engine's __ properties out", () => {
    const added = diffProperties(
      { __provider: "x" },
      { target: secret({ apiKey: "dd-live-key" }), __provider: "y" },
    );
    expect(added).toEqual([{ property: "target", before: null, after: SECRET_TEXT, secret: true }]);
    expect(JSON.stringify(added)).not.toContain("dd-live-key");
  });

  it("finds nothing when both sides hold the same values", () => {
    expect(
      diffProperties({ description: "d", sources: ["a", "b"] }, { sources: ["a", "b"], description: "d" }),
    ).toEqual([]);
  });
});

// Imports of the tests below, here rather than at the top so that the tests above keep their
// lines (Stryker's incremental run tells tests apart by their place).
import { MASKED_SECRET, outputsEvent } from "../helpers/gitops";

describe("the engine's secret form and the report's text for it", () => {
  // The module is loaded again inside the test: Stryker's per-test coverage then counts its
  // constants (the secret's signature, the text) as this test's, which it does not for a load at import.
  it("a masked secret reads as the text [secret] (the module loaded afresh, so its constants are this test's)", async () => {
    await jest.isolateModulesAsync(async () => {
      const events = await import("../../gitops/events");
      expect(events.SECRET_TEXT).toBe("[secret]");
      expect(
        events.diffProperties({ description: "d" }, { description: "d", target: secret("dd-key") }),
      ).toEqual([{ property: "target", before: null, after: "[secret]", secret: true }]);
    });
  });

  it("a value already shown as [secret] counts as a secret", () => {
    expect(diffProperties({ target: "[secret]" }, { target: "plain" })).toEqual([
      { property: "target", before: "[secret]", after: "plain", secret: true },
    ]);
  });
});

describe("diffProperties, more", () => {
  it("a property holding null on one side is a change like any other", () => {
    expect(diffProperties({ description: null }, { description: "set" })).toEqual([
      { property: "description", before: null, after: "set", secret: false },
    ]);
  });

  it("objects are compared whatever the order of their keys, a key holding undefined as absent", () => {
    expect(
      diffProperties(
        { target: { kinesis: { streamArn: "s", auth: { roleArn: "r", x: 1 } } } },
        { target: { kinesis: { auth: { x: 1, roleArn: "r" }, streamArn: "s", extra: undefined } } },
      ),
    ).toEqual([]);
  });

  it("the differing properties come in the order of their names", () => {
    expect(diffProperties({ zeta: 1, alpha: 1, mid: 1 }, { zeta: 2, mid: 1, alpha: 2 })).toEqual([
      { property: "alpha", before: 1, after: 2, secret: false },
      { property: "zeta", before: 1, after: 2, secret: false },
    ]);
  });
});

test("shortType and nameOf: the text after the last separator, even when it is the first character; the whole text without one", () => {
  expect(shortType(":EventSubscription")).toBe("EventSubscription");
  expect(shortType("EventSubscription")).toBe("EventSubscription");
  expect(shortType("pulumi-nodejs:dynamic/service:EventSubscription")).toBe("EventSubscription");
  expect(nameOf("::multi")).toBe("multi");
  expect(nameOf("multi")).toBe("multi");
  expect(nameOf("urn:pulumi:dev::proj::service:index:EventSubscription::multi")).toBe("multi");
});

describe("analyzeRefreshEvents, more", () => {
  const SUB = "service:index:EventSubscription";
  const DEST = "service:index:EventDestination";
  const urnOf = (type: string, name: string) => `urn:pulumi:dev::proj::${type}::${name}`;
  const old = { description: "d", metadata: "m", sources: [{ type: "t" }] };

  it("an update no value explains, without ignoreChanges and without a secret: the resource, no property known", () => {
    expect(analyzeRefreshEvents([outputsEvent("update", SUB, "opaque", old, { ...old })])).toEqual({
      checked: 1,
      resources: [
        {
          name: "opaque",
          type: "EventSubscription",
          typeToken: SUB,
          urn: urnOf(SUB, "opaque"),
          id: "id-opaque",
          status: "changed",
          properties: [],
        },
      ],
      ignored: [],
    });
  });

  it("an update no value explains: the secret properties in name order, the engine's __ ones left out", () => {
    const outputs = {
      zeta: MASKED_SECRET,
      alpha: MASKED_SECRET,
      __provider: MASKED_SECRET,
      description: "d",
    };
    const { resources } = analyzeRefreshEvents([
      outputsEvent("update", DEST, "dest", outputs, { ...outputs }),
    ]);
    expect(resources.map((r) => r.properties)).toEqual([
      [
        { property: "alpha", before: "[secret]", after: "[secret]", secret: true },
        { property: "zeta", before: "[secret]", after: "[secret]", secret: true },
      ],
    ]);
  });

  it('ignoreChanges ["*"] covers a change inside a secret too: not drift', () => {
    const dest = { description: "d", target: MASKED_SECRET };
    const event = outputsEvent("update", DEST, "dest", dest, { ...dest });
    expect(analyzeRefreshEvents([event], new Map([[urnOf(DEST, "dest"), ["*"]]]))).toEqual({
      checked: 1,
      resources: [],
      ignored: [],
    });
  });

  it("a resource read (neither update, same nor delete) is counted, never drift nor ignored", () => {
    const event = outputsEvent("read", SUB, "read", old, { ...old, metadata: "edited" });
    expect(analyzeRefreshEvents([event], new Map([[urnOf(SUB, "read"), ["metadata"]]]))).toEqual({
      checked: 1,
      resources: [],
      ignored: [],
    });
  });

  it("a deleted resource whose state holds no ID is reported with the ID empty", () => {
    const event = outputsEvent("delete", SUB, "gone", old, undefined);
    delete (event.resOutputsEvent?.metadata.old as { id?: string }).id;
    expect(analyzeRefreshEvents([event]).resources).toEqual([
      {
        name: "gone",
        type: "EventSubscription",
        typeToken: SUB,
        urn: urnOf(SUB, "gone"),
        id: "",
        status: "deleted",
        properties: [],
      },
    ]);
  });
});
