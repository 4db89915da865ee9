/**
 * gitops/managed.ts: which subscriptions and destinations an exported state manages (both doors,
 * pending creates, not `get` reads nor other types), and the account each belongs to (base URL
 * from `uri` or the provider's `baseUrl`, key stamp).
 */
import { heldInAccount, managedResources, type ManagedResource } from "../../gitops/managed";
import { keyStamp, legacyKeyStamp } from "../../provider/impl/keyStamp";

const URL_A = "http://127.0.0.1:8787";
const KEY_A = "sk_managed_unit_a_0123456789";
const KEY_B = "sk_managed_unit_b_0123456789";
const ID = (prefix: string, n: number) => `${prefix}${String(n).padStart(27, "0")}`;
const SUB = ID("esb_", 1);
const DEST = ID("ed_", 2);

describe("managedResources", () => {
  it("takes both doors' subscriptions and destinations, with base URL and stamp; leaves the rest out", () => {
    const stamp = keyStamp(KEY_A);
    const deployment = {
      resources: [
        { urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", type: "pulumi:pulumi:Stack", custom: false },
        {
          urn: "urn:pulumi:dev::p::pulumi:providers:service::prov",
          type: "pulumi:providers:service",
          custom: true,
          id: "prov-id",
          inputs: { baseUrl: `${URL_A}/` },
        },
        {
          urn: "urn:pulumi:dev::p::service:index:EventSubscription::s",
          type: "service:index:EventSubscription",
          custom: true,
          id: SUB,
          provider: "urn:pulumi:dev::p::pulumi:providers:service::prov::prov-id",
          outputs: { __keyStamp: stamp },
        },
        {
          urn: "urn:pulumi:dev::p::pulumi-nodejs:dynamic/service:EventDestination::d",
          type: "pulumi-nodejs:dynamic/service:EventDestination",
          custom: true,
          id: DEST,
          outputs: { uri: `${URL_A}/event_destinations/${DEST}` },
        },
        // a dynamic resource of no module, told by its ID
        { urn: "u3", type: "pulumi-nodejs:dynamic:Resource", custom: true, id: ID("ed_", 3) },
        // read with `get`: someone else manages it
        { urn: "u4", type: "service:index:EventDestination", custom: true, id: ID("ed_", 4), external: true },
        // an abuse report, and another provider's resource
        { urn: "u5", type: "service:index:AbuseReport", custom: true, id: ID("abrp_", 5) },
        { urn: "u6", type: "aws:s3:Bucket", custom: true, id: ID("ed_", 6) },
      ],
      pending_operations: [
        {
          type: "creating",
          resource: { urn: "u7", type: "service:index:EventSubscription", id: ID("esb_", 7) },
        },
        { type: "creating", resource: { urn: "u8", type: "service:index:EventSubscription" } },
      ],
    };
    expect(managedResources("dev", deployment)).toEqual([
      { id: SUB, kind: "eventSubscription", stack: "dev", baseUrl: URL_A, stamp },
      { id: DEST, kind: "eventDestination", stack: "dev", baseUrl: URL_A },
      { id: ID("ed_", 3), kind: "eventDestination", stack: "dev" },
      { id: ID("esb_", 7), kind: "eventSubscription", stack: "dev" },
    ]);
  });
});

describe("heldInAccount", () => {
  const account = { baseUrl: `${URL_A}/`, apiKey: KEY_A };
  const r = (extra: Partial<ManagedResource>): ManagedResource => ({
    id: SUB,
    kind: "eventSubscription",
    stack: "dev",
    ...extra,
  });

  it("is the account of the same base URL and key stamp (salted or of an earlier version)", () => {
    expect(heldInAccount(r({ baseUrl: URL_A, stamp: keyStamp(KEY_A) }), account)).toBe(true);
    expect(heldInAccount(r({ stamp: legacyKeyStamp(KEY_A) }), account)).toBe(true);
  });

  it("is not when the stamp is another key's, or the base URL another service's", () => {
    expect(heldInAccount(r({ baseUrl: URL_A, stamp: keyStamp(KEY_B) }), account)).toBe(false);
    expect(heldInAccount(r({ baseUrl: "https://api.example.com", stamp: keyStamp(KEY_A) }), account)).toBe(
      false,
    );
  });

  it("counts a resource whose state records neither for every account", () => {
    expect(heldInAccount(r({}), account)).toBe(true);
  });
});

describe("managedResources, dynamic resources of no module and IDs not yet known", () => {
  it("tells a bare dynamic resource's kind by its ID's prefix, leaves out one of another ID, and a pending create whose ID is empty", () => {
    const deployment = {
      resources: [
        { urn: "u1", type: "pulumi-nodejs:dynamic:Resource", custom: true, id: ID("esb_", 1) },
        { urn: "u2", type: "pulumi-nodejs:dynamic:Resource", custom: true, id: ID("ed_", 2) },
        // another dynamic provider's resource: not the service's
        { urn: "u3", type: "pulumi-nodejs:dynamic:Resource", custom: true, id: "bucket-1234" },
        { urn: "u4", type: "pulumi-nodejs:dynamic:Resource", custom: true, id: `x${ID("esb_", 4)}` },
      ],
      pending_operations: [
        { type: "creating", resource: { urn: "u5", type: "service:index:EventDestination", id: "" } },
      ],
    };
    expect(managedResources("dev", deployment)).toEqual([
      { id: ID("esb_", 1), kind: "eventSubscription", stack: "dev" },
      { id: ID("ed_", 2), kind: "eventDestination", stack: "dev" },
    ]);
  });

  it("compares base URLs without any of their trailing slashes", () => {
    const r: ManagedResource = { id: SUB, kind: "eventSubscription", stack: "dev", baseUrl: URL_A };
    expect(heldInAccount(r, { baseUrl: `${URL_A}//`, apiKey: KEY_A })).toBe(true);
    const deployment = {
      resources: [
        {
          urn: "urn:pulumi:dev::p::service:index:EventDestination::d",
          type: "service:index:EventDestination",
          custom: true,
          id: DEST,
          outputs: { uri: `${URL_A}///event_destinations/${DEST}` },
        },
      ],
    };
    expect(managedResources("dev", deployment)).toEqual([
      { id: DEST, kind: "eventDestination", stack: "dev", baseUrl: URL_A },
    ]);
  });
});
