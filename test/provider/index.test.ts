/**
 * What a Pulumi program pays for importing the package: the resource classes, not the client's
 * validation (the contract and zod) nor its HTTP stack (undici), which only the provider process
 * uses (docs/performance.md § Fixed cost).
 */
import { loadedWith } from "../helpers/loaded-modules";

describe("importing pulumi-service (provider/index.ts) in a Pulumi program", () => {
  it("loads neither zod nor undici", async () => {
    const { loaded, value } = await loadedWith(["zod", "undici"], () => import("../../provider"));
    expect(Object.keys(value as object)).toEqual(
      expect.arrayContaining(["EventSubscription", "EventDestination", "AbuseReport"]),
    );
    expect(loaded).toEqual([]);
  });

  it("loads zod on the first check, which still reports the field and its limit", async () => {
    const { loaded, value } = await loadedWith(["zod", "undici"], async () => {
      const provider = await import("../../provider");
      return provider.checkEventSubscriptionInputs({
        sources: [{ type: "ip_policy_created.v0" }],
        destinationIds: ["ed_2Ab3Cd4Ef5Gh6Ij7Kl8Mn9Op0Qr"],
        description: "x".repeat(256),
      });
    });
    expect(loaded).toEqual(["zod"]);
    expect(value).toEqual([
      { property: "description", reason: expect.stringContaining("at most 255 characters, got 256") },
    ]);
  });
});
