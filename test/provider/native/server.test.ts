/**
 * The plugin's gRPC server as the engine talks to it: the port on stdout, plugin info, schema,
 * provider configuration (the API key made a secret, a bad URL named), and resource checks that
 * run the same validation as the dynamic providers, secrets kept. The whole lifecycle through the
 * engine is test/e2e/native.test.ts.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { status as grpcStatus, type ServiceError } from "@grpc/grpc-js";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { unary, useNativePlugin } from "../../helpers/native-plugin";
import { ServiceClient } from "../../../client";
import { startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { startHoldingProxy, type HoldingProxy } from "../../helpers/held-answers";
import { UNKNOWN } from "../../../provider/impl/inputChecks";
import { IMPLEMENTATIONS, implementationOf } from "../../../provider/native/implementations";

const ROOT = path.resolve(__dirname, "../../..");
const SUB = "urn:pulumi:dev::p::service:index:EventSubscription::s";
const DEST = "urn:pulumi:dev::p::service:index:EventDestination::d";
const isSecret = (v: unknown) => (v as Record<string, unknown>)?.[specialSigKey] === specialSecretSig;

function checkRequest(urn: string, news: Record<string, unknown>): proto.CheckRequest {
  const req = new proto.CheckRequest();
  req.setUrn(urn);
  req.setOlds(Struct.fromJavaScript({}));
  req.setNews(Struct.fromJavaScript(news as never));
  return req;
}

describe("pulumi-resource-service's gRPC server", () => {
  const plugin = useNativePlugin();

  it("the bin prints only its port on stdout, as the engine reads it", async () => {
    const child = spawn(path.join(ROOT, "bin", "pulumi-resource-service"), ["127.0.0.1:1"]);
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out);
      });
      child.on("exit", (code) => reject(new Error(`exited with ${code}`)));
    });
    child.kill();
    expect(line).toMatch(/^\d+\n$/);
  });

  it("GetPluginInfo answers the package's version; GetSchema the schema file", async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    const info = await unary<Empty, { getVersion(): string }>(plugin(), "getPluginInfo", new Empty());
    expect(info.getVersion()).toBe(version);
    const schema = await unary<proto.GetSchemaRequest, proto.GetSchemaResponse>(
      plugin(),
      "getSchema",
      new proto.GetSchemaRequest(),
    );
    expect(schema.getSchema()).toBe(
      fs.readFileSync(path.join(ROOT, "provider", "native", "schema.json"), "utf8"),
    );
  });

  it("CheckConfig keeps an explicit provider's API key as a secret even when given in plain text", async () => {
    const resp = await unary<proto.CheckRequest, proto.CheckResponse>(
      plugin(),
      "checkConfig",
      checkRequest("urn:pulumi:dev::p::pulumi:providers:service::prod", { apiKey: "k", baseUrl: "http://x" }),
    );
    const inputs = resp.getInputs()!.toJavaScript();
    expect(isSecret(inputs.apiKey)).toBe(true);
    expect(inputs.baseUrl).toBe("http://x");
    expect(resp.getFailuresList()).toEqual([]);
  });

  it("CheckConfig names baseUrl when it is not an http(s) URL", async () => {
    const resp = await unary<proto.CheckRequest, proto.CheckResponse>(
      plugin(),
      "checkConfig",
      checkRequest("urn:pulumi:dev::p::pulumi:providers:service::prod", { baseUrl: "ftp://x" }),
    );
    expect(resp.getFailuresList().map((f) => f.getProperty())).toEqual(["baseUrl"]);
    expect(resp.getFailuresList()[0].getReason()).toBe(
      'baseUrl must be an absolute http:// or https:// URL, got "ftp://x"',
    );
    // The scheme must start the URL; a value not known until `up` (a preview) is no failure.
    const check = (baseUrl: string) =>
      unary<proto.CheckRequest, proto.CheckResponse>(
        plugin(),
        "checkConfig",
        checkRequest("urn:pulumi:dev::p::pulumi:providers:service::prod", { baseUrl }),
      ).then((r) => r.getFailuresList().map((f) => f.getProperty()));
    expect(await check("see http://x")).toEqual(["baseUrl"]);
    expect(await check(UNKNOWN)).toEqual([]);
  });

  it("DiffConfig: a setting of how to talk updates in place; another service or account replaces; the same settings are no change", async () => {
    const diff = (olds: Record<string, unknown>, news: Record<string, unknown>) => {
      const req = new proto.DiffRequest();
      req.setOlds(Struct.fromJavaScript(olds as never));
      req.setNews(Struct.fromJavaScript(news as never));
      return unary<proto.DiffRequest, proto.DiffResponse>(plugin(), "diffConfig", req);
    };
    const secret = (value: string) => ({ [specialSigKey]: specialSecretSig, value });
    const before = { apiKey: secret("a"), baseUrl: "http://x", requestTimeoutMs: "1000" };

    const tuned = await diff(before, { ...before, requestTimeoutMs: "2000" });
    expect(tuned.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_SOME);
    expect(tuned.getDiffsList()).toEqual(["requestTimeoutMs"]);
    expect(tuned.getReplacesList()).toEqual([]);

    const moved = await diff(before, { ...before, baseUrl: "http://y" });
    expect(moved.getDiffsList()).toEqual(["baseUrl"]);
    expect(moved.getReplacesList()).toEqual(["baseUrl"]);

    // An apiKey change the service is not asked about (SERVICE_KEY_CHANGE decides, as a user may).
    for (const [decided, replaces] of [
      ["rotation", []],
      ["move", ["apiKey"]],
    ] as const) {
      process.env.SERVICE_KEY_CHANGE = decided;
      try {
        const rekeyed = await diff(before, { ...before, apiKey: secret("b") });
        expect(rekeyed.getDiffsList()).toEqual(["apiKey"]);
        expect(rekeyed.getReplacesList()).toEqual(replaces);
      } finally {
        delete process.env.SERVICE_KEY_CHANGE;
      }
    }

    const same = await diff({ apiKey: secret("a"), version: "0.1.0" }, { apiKey: "a" });
    expect(same.getChanges()).toBe(proto.DiffResponse.DiffChanges.DIFF_NONE);
  });

  it("Check runs the dynamic providers' validation: the failure names the field", async () => {
    const resp = await unary<proto.CheckRequest, proto.CheckResponse>(
      plugin(),
      "check",
      checkRequest(SUB, { sources: [], destinationIds: ["ed_x"] }),
    );
    const props = resp.getFailuresList().map((f) => f.getProperty());
    expect(props).toContain("sources");
  });

  it("Check marks a destination's target secret even when the program gave it in plain text", async () => {
    const resp = await unary<proto.CheckRequest, proto.CheckResponse>(
      plugin(),
      "check",
      checkRequest(DEST, { target: { datadog: { apiKey: "dd-plain-key" } } }),
    );
    expect(resp.getFailuresList()).toEqual([]);
    expect(isSecret(resp.getInputs()!.toJavaScript().target)).toBe(true);
  });

  it("a type the schema does not have is an error naming it", async () => {
    await expect(
      unary(plugin(), "check", checkRequest("urn:pulumi:dev::p::service:index:Nope::n", {})),
    ).rejects.toThrow(
      `unknown resource type service:index:Nope (this provider has ${Object.keys(IMPLEMENTATIONS).join(", ")})`,
    );
    expect(Object.keys(IMPLEMENTATIONS)).toEqual([
      "service:index:EventSubscription",
      "service:index:EventDestination",
      "service:index:AbuseReport",
    ]);
    // A URN without a type (not one the engine sends) names none.
    expect(() => implementationOf("not-a-urn")).toThrow(/^unknown resource type {2}\(this provider has/);
  });
});

describe("a create that timed out after it was sent (the plugin in process, the emulator behind a proxy holding the answer)", () => {
  const plugin = useNativePlugin();
  let emulator: RunningEmulator;
  let proxy: HoldingProxy;

  beforeAll(async () => {
    emulator = await startEmulator({});
    proxy = await startHoldingProxy(emulator.url);
  });

  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  it("is answered as Pulumi's initialization failure: the placeholder ID, the inputs with the secret kept secret and the marker, the reason", async () => {
    const configure = new proto.ConfigureRequest();
    configure.setArgs(Struct.fromJavaScript({ baseUrl: proxy.url, apiKey: emulator.apiKeys[0] }));
    await unary(plugin(), "configure", configure);
    const target = { datadog: { apiKey: "dd-init-failed-key" } };
    const create = new proto.CreateRequest();
    create.setUrn("urn:pulumi:dev::p::service:index:EventDestination::dd");
    create.setProperties(
      Struct.fromJavaScript({ target: { [specialSigKey]: specialSecretSig, value: target } }),
    );
    create.setTimeout(1);
    proxy.hold({ path: "/event_destinations", ms: 2_500 });
    const error = (await unary(plugin(), "create", create).then(
      () => new Error("the create succeeded"),
      (e: unknown) => e,
    )) as ServiceError;
    proxy.hold(undefined);
    expect(error.code).toBe(grpcStatus.UNKNOWN);
    const [bytes] = error.metadata.get("grpc-status-details-bin") as Buffer[];
    const [detail] = Status.deserializeBinary(new Uint8Array(bytes)).getDetailsList();
    expect(detail.getTypeName()).toBe("pulumirpc.ErrorResourceInitFailed");
    const failed = proto.ErrorResourceInitFailed.deserializeBinary(detail.getValue_asU8());
    expect(failed.getId()).toMatch(/^pending-create-[0-9a-f-]{36}$/);
    expect(failed.getProperties()?.toJavaScript()).toEqual({
      target: { [specialSigKey]: specialSecretSig, value: target },
      // The send, its Idempotency-Key, the key's stamp and the window: no secret among them.
      __pendingCreate: {
        sentAtMs: expect.any(Number),
        windowMs: expect.any(Number),
        idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
        keyStamp: expect.any(String),
      },
    });
    expect(failed.getReasonsList()).toEqual([error.details]);
    expect(error.details).toMatch(
      new RegExp(
        `^create of event destination did not finish within the create timeout of 1 s \\(customTimeouts.create\\) after its request was sent\\. The service may still make it: the stack keeps it as ${failed.getId()} \\(a placeholder\\)`,
      ),
    );
  });
});

describe("Read with only an ID (pulumi import, get): the schema's secrets are secret in what it answers", () => {
  const plugin = useNativePlugin();
  let emulator: RunningEmulator;

  beforeAll(async () => {
    emulator = await startEmulator({});
  });

  afterAll(async () => {
    await emulator?.close();
  });

  it("a destination's target is a secret in the properties and the inputs, though the request held no secret", async () => {
    const apiKey = emulator.apiKeys[0];
    const made = await new ServiceClient({ apiKey, baseUrl: emulator.url }).eventDestinations.create({
      target: { datadog: { apiKey: "dd-read-secret-key" } },
      description: "imported",
    });
    const configure = new proto.ConfigureRequest();
    configure.setArgs(Struct.fromJavaScript({ baseUrl: emulator.url, apiKey }));
    await unary(plugin(), "configure", configure);
    const read = new proto.ReadRequest();
    read.setUrn(DEST);
    read.setId(made.id);
    read.setProperties(Struct.fromJavaScript({}));
    read.setInputs(Struct.fromJavaScript({}));
    const resp = await unary<proto.ReadRequest, proto.ReadResponse>(plugin(), "read", read);
    expect(resp.getId()).toBe(made.id);
    const props = resp.getProperties()!.toJavaScript();
    const inputs = resp.getInputs()!.toJavaScript();
    expect(isSecret(props.target)).toBe(true);
    expect(isSecret(inputs.target)).toBe(true);
    expect(props.description).toBe("imported");
    expect(isSecret(props.description)).toBe(false);
  });
});
