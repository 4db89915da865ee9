/**
 * One behaviour table, run through both doors: the dynamic providers' functions as the engine's
 * dynamic-provider host calls them (provider/impl), and the native plugin's gRPC methods in process
 * (provider/native), with the protocol's property serialization and secrets. Each case must give
 * the same outcome through both: the same check failures (property and reason), the same diff
 * (changes, replacements). Secrets are sent to the native door wrapped, as the engine sends them.
 * The resource operations against a service through both doors are test/e2e/native.test.ts.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import * as abuseReport from "../../provider/impl/abuseReport";
import * as eventDestination from "../../provider/impl/eventDestination";
import * as eventSubscription from "../../provider/impl/eventSubscription";
import { unary, useNativePlugin } from "../helpers/native-plugin";

type Props = Record<string, unknown>;
type Kind = "EventSubscription" | "EventDestination" | "AbuseReport";

const DYNAMIC = {
  EventSubscription: eventSubscription,
  EventDestination: eventDestination,
  AbuseReport: abuseReport,
};
const urn = (kind: Kind) => `urn:pulumi:dev::p::service:index:${kind}::r`;
const secret = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });
const ED = "ed_" + "A".repeat(27);
const ED2 = "ed_" + "B".repeat(27);
const DD = { datadog: { apiKey: "dd-key" } };
const SUB = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED] };
const REPORT = { urls: ["https://phish.example.com/login"] };

/** The native door's inputs: each `secrets` property wrapped as the engine wraps a secret. */
function wire(props: Props, secrets: string[]): Props {
  return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, secrets.includes(k) ? secret(v) : v]));
}

interface CheckCase {
  name: string;
  kind: Kind;
  news: Props;
  secrets?: string[];
  /** Properties the failures name (the same list through both doors is asserted too). */
  failing: string[];
}

const CHECKS: CheckCase[] = [
  { name: "a valid subscription", kind: "EventSubscription", news: SUB, failing: [] },
  { name: "no sources", kind: "EventSubscription", news: { ...SUB, sources: [] }, failing: ["sources"] },
  {
    name: "a description of 256 characters",
    kind: "EventSubscription",
    news: { ...SUB, description: "é".repeat(256) },
    failing: ["description"],
  },
  {
    name: "an unknown event type and a malformed destination ID",
    kind: "EventSubscription",
    news: { sources: [{ type: "nope.v0" }], destinationIds: ["ed_x"] },
    failing: ["sources", "destinationIds"],
  },
  {
    name: "an adoptId of the wrong kind",
    kind: "EventSubscription",
    news: { ...SUB, adoptId: ED },
    failing: ["adoptId"],
  },
  {
    name: "a valid destination, secret target",
    kind: "EventDestination",
    news: { target: DD },
    secrets: ["target"],
    failing: [],
  },
  {
    name: "a target of two kinds",
    kind: "EventDestination",
    news: { target: { ...DD, kinesis: { auth: { role: { roleArn: "r" } }, streamArn: "s" } } },
    secrets: ["target"],
    failing: ["target"],
  },
  {
    name: "an empty write-only key",
    kind: "EventDestination",
    news: { target: { datadog: { apiKey: "" } } },
    secrets: ["target"],
    failing: ["target"],
  },
  {
    name: "metadata of 4,097 bytes",
    kind: "EventDestination",
    news: { target: DD, metadata: "x".repeat(4097) },
    secrets: ["target"],
    failing: ["metadata"],
  },
  { name: "a valid abuse report", kind: "AbuseReport", news: REPORT, failing: [] },
  {
    name: "a URL that is not http(s)",
    kind: "AbuseReport",
    news: { urls: ["ftp://x.example"] },
    failing: ["urls"],
  },
  { name: "an unknown field", kind: "AbuseReport", news: { ...REPORT, colour: "red" }, failing: ["colour"] },
];

interface DiffCase {
  name: string;
  kind: Kind;
  olds: Props;
  news: Props;
  secrets?: string[];
  changes: boolean;
  replaces: string[];
  /** The inputs of the state, sent to the native door as the old inputs (default: none given). */
  oldInputs?: Props;
  /** The changed keys and each one's kind in the native door's detailed diff (default: none). */
  detailed?: Record<string, keyof typeof proto.PropertyDiff.Kind>;
}

const LIVE = { uri: "https://service.example/x", createdAt: "2026-11-23T00:00:00Z" };
const SUB_OUT = { ...LIVE, ...SUB, metadata: "", description: "", sources: SUB.sources };
const DEST_OUT = { ...LIVE, metadata: "", description: "", format: "json", target: DD };
const REPORT_OUT = { ...LIVE, ...REPORT, metadata: "", status: "PENDING", hostnames: [] };

const DIFFS: DiffCase[] = [
  {
    name: "subscription, nothing changed",
    kind: "EventSubscription",
    olds: SUB_OUT,
    news: SUB,
    changes: false,
    replaces: [],
  },
  {
    name: "subscription, the same lists in another order",
    kind: "EventSubscription",
    olds: { ...SUB_OUT, destinationIds: [ED, ED2] },
    news: { ...SUB, destinationIds: [ED2, ED] },
    changes: false,
    replaces: [],
  },
  {
    name: "subscription, a new description: an update",
    kind: "EventSubscription",
    olds: SUB_OUT,
    news: { ...SUB, description: "new" },
    oldInputs: SUB,
    changes: true,
    replaces: [],
    detailed: { description: "ADD" },
  },
  {
    name: "subscription, description changed and metadata removed: updates",
    kind: "EventSubscription",
    olds: { ...SUB_OUT, description: "old", metadata: "m" },
    news: { ...SUB, description: "new" },
    oldInputs: { ...SUB, description: "old", metadata: "m" },
    changes: true,
    replaces: [],
    detailed: { description: "UPDATE", metadata: "DELETE" },
  },
  {
    name: "subscription, replaceOnChanges forwarded by the dynamic door's class: a replacement",
    kind: "EventSubscription",
    olds: { ...SUB_OUT, description: "old", metadata: "m" },
    news: {
      ...SUB,
      description: "new",
      metadata: "n",
      __resourceOptions: { replaceOnChanges: ["description"] },
    },
    oldInputs: { ...SUB, description: "old", metadata: "m" },
    changes: true,
    replaces: ["description"],
    detailed: { description: "UPDATE_REPLACE", metadata: "UPDATE" },
  },
  {
    name: "subscription, replaceOnChanges `*` and a path below a property",
    kind: "EventSubscription",
    olds: SUB_OUT,
    news: {
      ...SUB,
      sources: [{ type: "ip_policy_updated.v0" }],
      description: "d",
      __resourceOptions: { replaceOnChanges: ["sources[*].type", "*"] },
    },
    oldInputs: SUB,
    changes: true,
    replaces: ["sources", "description"],
    detailed: { sources: "UPDATE_REPLACE", description: "ADD_REPLACE" },
  },
  {
    name: "destination, the same secret target",
    kind: "EventDestination",
    olds: DEST_OUT,
    news: { target: DD },
    secrets: ["target"],
    changes: false,
    replaces: [],
  },
  {
    name: "destination, a new write-only key: an update",
    kind: "EventDestination",
    olds: DEST_OUT,
    news: { target: { datadog: { apiKey: "rotated" } } },
    oldInputs: { target: DD },
    secrets: ["target"],
    changes: true,
    replaces: [],
    detailed: { target: "UPDATE" },
  },
  {
    name: "abuse report, nothing changed",
    kind: "AbuseReport",
    olds: REPORT_OUT,
    news: REPORT,
    changes: false,
    replaces: [],
  },
  {
    name: "abuse report, new urls: a replacement",
    kind: "AbuseReport",
    olds: REPORT_OUT,
    news: { urls: ["https://other.example/"] },
    changes: true,
    replaces: ["urls"],
    oldInputs: REPORT,
    detailed: { urls: "UPDATE_REPLACE" },
  },
];

/** The name of a detailed diff kind (`ADD`, `UPDATE_REPLACE`…). */
const kindName = (kind: proto.PropertyDiff.Kind) =>
  Object.entries(proto.PropertyDiff.Kind).find(([, v]) => v === kind)?.[0];

describe("one behaviour table through both doors (dynamic providers and the native plugin)", () => {
  const plugin = useNativePlugin();

  it.each(CHECKS)("check: $kind, $name", async ({ kind, news, secrets = [], failing }) => {
    const dynamic = await DYNAMIC[kind].check({}, news as never);
    const dynamicFailures = (dynamic.failures ?? []).map((f) => [f.property, f.reason]);

    const req = new proto.CheckRequest();
    req.setUrn(urn(kind));
    req.setOlds(Struct.fromJavaScript({}));
    req.setNews(Struct.fromJavaScript(wire(news, secrets) as never));
    const resp = await unary<proto.CheckRequest, proto.CheckResponse>(plugin(), "check", req);
    const nativeFailures = resp.getFailuresList().map((f) => [f.getProperty(), f.getReason()]);

    expect(nativeFailures).toEqual(dynamicFailures);
    expect([...new Set(dynamicFailures.map(([p]) => p))].sort()).toEqual([...failing].sort());
  });

  it.each(DIFFS)("diff: $kind, $name", async (c) => {
    const { kind, olds, news, secrets = [], changes, replaces, oldInputs = {}, detailed = {} } = c;
    const id = `${kind}-${Math.random().toString(36).slice(2)}`;
    const dynamic = await DYNAMIC[kind].diff(id, olds as never, news as never);

    const req = new proto.DiffRequest();
    req.setUrn(urn(kind));
    req.setId(id);
    req.setOlds(Struct.fromJavaScript(wire(olds, secrets) as never));
    req.setNews(Struct.fromJavaScript(wire(news, secrets) as never));
    req.setOldInputs(Struct.fromJavaScript(wire(oldInputs, secrets) as never));
    const resp = await unary<proto.DiffRequest, proto.DiffResponse>(plugin(), "diff", req);
    const { DiffChanges } = proto.DiffResponse;

    expect({ changes: dynamic.changes, replaces: dynamic.replaces ?? [] }).toEqual({ changes, replaces });
    expect(dynamic.diffs.sort()).toEqual(Object.keys(detailed).sort());
    expect(resp.getDiffsList().sort()).toEqual(Object.keys(detailed).sort());
    expect(resp.getHasdetaileddiff()).toBe(true);
    const kinds: Record<string, unknown> = {};
    resp.getDetaileddiffMap().forEach((d, k) => (kinds[k] = [kindName(d.getKind()), d.getInputdiff()]));
    expect(kinds).toEqual(Object.fromEntries(Object.entries(detailed).map(([k, v]) => [k, [v, true]])));
    expect({
      changes: resp.getChanges() === DiffChanges.DIFF_SOME,
      none: resp.getChanges() === DiffChanges.DIFF_NONE,
      replaces: resp.getReplacesList(),
    }).toEqual({ changes, none: !changes, replaces });
  });
});
