import * as pulumi from "@pulumi/pulumi";
import {
  SERVICE_KINDS,
  doorOf,
  dynamicType,
  nativeType,
  serviceKindOf,
} from "../../packages/policy/resources";

describe("telling the service's resources apart on both doors", () => {
  it("knows the contract's three kinds, under the native and the dynamic type tokens", () => {
    expect([...SERVICE_KINDS].sort()).toEqual(["AbuseReport", "EventDestination", "EventSubscription"]);
    for (const k of SERVICE_KINDS) {
      expect(serviceKindOf(nativeType(k))).toBe(k);
      expect(serviceKindOf(dynamicType(k))).toBe(k);
    }
    expect(doorOf(dynamicType("EventSubscription"))).toBe("dynamic");
    expect(serviceKindOf("pulumi-nodejs:dynamic:Resource")).toBeUndefined();
    expect(serviceKindOf("pulumi-nodejs:dynamic/other:EventSubscription")).toBeUndefined();
  });

  it("recognises what the dynamic door's resource classes register (their type token is the marker)", async () => {
    const types: string[] = [];
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          types.push(args.type);
          return { id: `${args.name}-id`, state: args.inputs };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      true,
    );
    // Loaded after the mocks, as Pulumi's unit-testing guide says.
    const dyn = await import("../../provider/dynamic/eventSubscription");
    const dest = await import("../../provider/dynamic/eventDestination");
    const abuse = await import("../../provider/dynamic/abuseReport");
    new dest.EventDestination("d", { target: { datadog: { apiKey: "k" } } });
    new dyn.EventSubscription("s", { sources: [{ type: "ip_policy_created.v0" }], destinationIds: ["ed_1"] });
    new abuse.AbuseReport("a", { urls: ["https://x.example/"] });
    await new Promise((r) => setImmediate(r));
    expect(types.map(serviceKindOf).sort()).toEqual(["AbuseReport", "EventDestination", "EventSubscription"]);
  });
});
