/**
 * `Invoke` of the native plugin (provider/native/invokes.ts), through its gRPC server in process
 * against the real emulator: each function of the schema answered, with the values a resource of
 * the same object holds (the implementation's `read`), secrets marked as the schema says, every
 * page of a list, and the errors a lookup fails with (the ID named unless it is a secret). The
 * same functions through the real engine and the generated SDK: test/e2e/functions.test.ts.
 */
import * as fs from "fs";
import * as path from "path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { ServiceClient } from "../../../client";
import * as abuseReport from "../../../provider/impl/abuseReport";
import * as eventDestination from "../../../provider/impl/eventDestination";
import * as eventSubscription from "../../../provider/impl/eventSubscription";
import { FUNCTION_IMPLEMENTATIONS, returnStruct } from "../../../provider/native/invokes";
import { startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { unary, useNativePlugin } from "../../helpers/native-plugin";
import { publicOutputs } from "../../helpers/public-outputs";

type Props = Record<string, unknown>;
const ROOT = path.resolve(__dirname, "../../..");
const DD_KEY = "dd-invoke-secret-key-6c1e0a";
const ARN_MARK = "invoke-stream-3f9b";
/** More destinations than one page holds (100), so that a list reads two pages. */
const MANY = 101;

const isSecret = (v: unknown) => (v as Props | null)?.[specialSigKey] === specialSecretSig;
const secret = (value: unknown) => ({ [specialSigKey]: specialSecretSig, value });
/** `v` without its secret wrapper (one level), as the engine unwraps it. */
const plain = (v: unknown) => (isSecret(v) ? (v as Props).value : v);

function invokeRequest(tok: string, args: Props = {}): proto.InvokeRequest {
  const req = new proto.InvokeRequest();
  req.setTok(tok);
  req.setArgs(Struct.fromJavaScript(args as never));
  return req;
}

describe("Invoke of pulumi-resource-service (in process, real emulator)", () => {
  const plugin = useNativePlugin();
  let emulator: RunningEmulator;
  let client: ServiceClient;
  const ids = { subscription: "", datadog: "", kinesis: "", report: "" };

  /** `Invoke` of `tok` with `args`: the returned Struct as JavaScript (secrets wrapped) and the failures. */
  async function call(tok: string, args: Props = {}) {
    const resp = await unary<proto.InvokeRequest, proto.InvokeResponse>(
      plugin(),
      "invoke",
      invokeRequest(`service:index:${tok}`, args),
    );
    return {
      returns: resp.getReturn()?.toJavaScript() as Props | undefined,
      failures: resp.getFailuresList().map((f) => ({ property: f.getProperty(), reason: f.getReason() })),
    };
  }

  /** The message `Invoke` of `tok` fails with. */
  async function failure(tok: string, args: Props): Promise<string> {
    try {
      await call(tok, args);
    } catch (err) {
      return (err as { details: string }).details;
    }
    throw new Error(`${tok} did not fail`);
  }

  beforeAll(async () => {
    emulator = await startEmulator({});
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    const configure = new proto.ConfigureRequest();
    configure.setArgs(Struct.fromJavaScript({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url }));
    await unary(plugin(), "configure", configure);
    const kinesis = await client.eventDestinations.create({
      description: "stream",
      target: {
        kinesis: {
          auth: { role: { roleArn: "arn:aws:iam::123456789012:role/events" } },
          streamArn: `arn:aws:kinesis:us-east-1:123456789012:stream/${ARN_MARK}`,
        },
      },
    });
    const datadog = await client.eventDestinations.create({
      target: { datadog: { apiKey: DD_KEY, ddsite: "datadoghq.eu" } },
    });
    const sub = await client.eventSubscriptions.create({
      description: "policies",
      metadata: '{"team":"edge"}',
      sources: [{ type: "ip_policy_created.v0" }, { type: "ip_policy_updated.v0" }],
      destinationIds: [datadog.id, kinesis.id],
    });
    const report = await client.abuseReports.create({ urls: ["https://phish.example.com/login"] });
    Object.assign(ids, { subscription: sub.id, datadog: datadog.id, kinesis: kinesis.id, report: report.id });
  });

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  it("answers exactly the functions of schema.json", () => {
    const schema = JSON.parse(
      fs.readFileSync(path.join(ROOT, "provider", "native", "schema.json"), "utf8"),
    ) as { functions: Props };
    expect(Object.keys(FUNCTION_IMPLEMENTATIONS).sort()).toEqual(Object.keys(schema.functions).sort());
    expect(Object.keys(schema.functions).sort()).toEqual([
      "service:index:getAbuseReport",
      "service:index:getEventDestination",
      "service:index:getEventDestinations",
      "service:index:getEventSubscription",
      "service:index:getEventSubscriptions",
    ]);
  });

  it("getEventSubscription returns id and the outputs the resource's read gives (none internal), none secret", async () => {
    const { returns, failures } = await call("getEventSubscription", { id: ids.subscription });
    expect(failures).toEqual([]);
    const read = await eventSubscription.read(ids.subscription, {} as never);
    expect(returns).toEqual({ id: ids.subscription, ...publicOutputs(read.props) });
    expect(returns?.destinationIds).toEqual([ids.datadog, ids.kinesis]);
    expect(Object.values(returns ?? {}).some(isSecret)).toBe(false);
  });

  it("getEventDestination returns target as a secret (its write-only key as the API does: empty)", async () => {
    const { returns } = await call("getEventDestination", { id: ids.datadog });
    expect(isSecret(returns?.target)).toBe(true);
    const others = Object.entries(returns ?? {}).filter(([k]) => k !== "target");
    expect(others.some(([, v]) => isSecret(v))).toBe(false);
    const read = await eventDestination.read(ids.datadog, {} as never);
    expect({ ...returns, target: plain(returns?.target) }).toEqual({
      id: ids.datadog,
      ...publicOutputs(read.props),
    });
    expect(plain(returns?.target)).toEqual({
      datadog: { apiKey: "", ddsite: "datadoghq.eu", ddtags: "", service: "" },
    });
    expect(JSON.stringify(returns)).not.toContain(DD_KEY);
  });

  it("getAbuseReport returns the report as its read gives it", async () => {
    const { returns } = await call("getAbuseReport", { id: ids.report });
    const read = await abuseReport.read(ids.report);
    expect(returns).toEqual({ id: ids.report, ...publicOutputs(read.props) });
    expect(returns?.status).toBe("PENDING");
  });

  it("getEventDestinations and getEventSubscriptions return every item of every page, newest first", async () => {
    for (let i = 0; i < MANY; i++)
      await client.eventDestinations.create({
        description: `d${i}`,
        target: { datadog: { apiKey: `k${i}` } },
      });
    const listed: string[] = [];
    for await (const d of client.eventDestinations.list()) listed.push(d.id);
    expect(listed.length).toBe(MANY + 2);

    const dests = (await call("getEventDestinations")).returns?.items as Props[];
    expect(dests.map((d) => d.id)).toEqual(listed);
    expect(dests.every((d) => isSecret(d.target))).toBe(true);
    const kinesis = dests.find((d) => d.id === ids.kinesis);
    const read = await eventDestination.read(ids.kinesis, {} as never);
    expect({ ...kinesis, target: plain(kinesis?.target) }).toEqual({
      id: ids.kinesis,
      ...publicOutputs(read.props),
    });

    const subs = (await call("getEventSubscriptions")).returns?.items as Props[];
    const sub = await eventSubscription.read(ids.subscription, {} as never);
    expect(subs).toEqual([{ id: ids.subscription, ...publicOutputs(sub.props) }]);
  });

  it("a get of an ID the account lacks fails naming the ID; another kind's ID is named as such", async () => {
    const made = await client.eventDestinations.create({ target: { datadog: { apiKey: "x" } } });
    await client.eventDestinations.delete(made.id);
    const gone = made.id;
    expect(await failure("getEventDestination", { id: gone })).toBe(
      `event destination "${gone}" does not exist in the account of this API key (deleted, mistyped, or owned by another account)`,
    );
    expect(await failure("getEventDestination", { id: ids.subscription })).toBe(
      `id: "${ids.subscription}" is not an event destination ID (ed_…)`,
    );
    expect(await failure("getAbuseReport", { id: `abrp_${"Z".repeat(27)}` })).toContain("does not exist");
  });

  it("a missing or non-string id is a check failure of property id, with nothing returned", async () => {
    const reason = (got: string) =>
      `id is required: the ID (esb_…) of the event subscription to read, a string; ${got}`;
    const cases: [Props, string][] = [
      [{}, "none was given"],
      [{ id: null }, "none was given"],
      [{ id: "" }, "none was given"],
      [{ id: 42 }, "got number"],
      [{ id: true }, "got boolean"],
      [{ id: ["esb_x"] }, "got object"],
    ];
    for (const [args, got] of cases) {
      const { returns, failures } = await call("getEventSubscription", args);
      expect(returns).toBeUndefined();
      expect(failures).toEqual([{ property: "id", reason: reason(got) }]);
    }
  });

  it("with a secret ID, every returned property is a secret and no error shows the ID", async () => {
    const { returns } = await call("getEventSubscription", { id: secret(ids.subscription) });
    expect(Object.values(returns ?? {}).every(isSecret)).toBe(true);
    expect(plain(returns?.id)).toBe(ids.subscription);
    const hidden = `esb_${"Q".repeat(27)}`;
    const message = await failure("getEventSubscription", { id: secret(hidden) });
    expect(message).toBe(
      "event subscription (whose ID is a secret) does not exist in the account of this API key (deleted, mistyped, or owned by another account)",
    );
    expect(message).not.toContain(hidden);
  });

  it("an unknown token fails naming it and the functions there are", async () => {
    const functions = Object.keys(FUNCTION_IMPLEMENTATIONS);
    expect(functions).toContain("service:index:getEventSubscription");
    expect(await failure("getNothing", {})).toBe(
      `unknown function service:index:getNothing (this provider has ${functions.join(", ")})`,
    );
  });
});

describe("returnStruct (the engine's form of a function's result)", () => {
  it("leaves a list item's undefined properties out, as a get's, and keeps the kind's secrets secret", () => {
    const list = FUNCTION_IMPLEMENTATIONS["service:index:getEventDestinations"];
    const item = { id: "ed_1", description: undefined, target: { datadog: { apiKey: "" } } };
    const struct = returnStruct(list, { items: [item] }, false).toJavaScript() as { items: Props[] };
    expect(Object.keys(struct.items[0]).sort()).toEqual(["id", "target"]);
    expect(isSecret(struct.items[0].target)).toBe(true);
    expect(struct.items[0].id).toBe("ed_1");
  });
});
