/**
 * How the drift report compares a resource's last deployment with what the service holds
 * (gitops/events.ts `diffProperties`): a property on one side only is drift too (a description set
 * outside Pulumi on a resource that had none, or one removed), secrets show only as `[secret]` (a
 * change inside a secret is the refresh's to tell: drift.test.ts), and the engine's own `__`
 * properties are never compared.
 */
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { SECRET_TEXT, diffProperties } from "../../gitops/events";

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
