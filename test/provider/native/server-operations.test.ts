/**
 * The native plugin's resource operations as the engine calls them, against the emulator: the
 * capabilities `Configure` answers, `Create` with its outputs' secrets (a subscription's), `Diff` with its detailed
 * diff (the kind of each changed property, in its replace form when the property replaces),
 * `Update`, `Read` of a resource deleted outside Pulumi (an empty ID: gone from the stack),
 * `Delete`, and the methods answered with nothing (`GetMapping(s)`, `Cancel`, `Attach`). One
 * emulator and one plugin for all of them. The checks and the configuration's diff are in
 * server.test.ts; the same operations through the engine in test/e2e/native.test.ts.
 */
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { unary, useNativePlugin } from "../../helpers/native-plugin";
import { ServiceClient } from "../../../client";
import { startEmulator, type RunningEmulator } from "../../helpers/emulator";

const SUB = "urn:pulumi:dev::p::service:index:EventSubscription::s";
const REPORT = "urn:pulumi:dev::p::service:index:AbuseReport::r";
const { Kind } = proto.PropertyDiff;
const { DiffChanges } = proto.DiffResponse;
const isSecret = (v: unknown) => (v as Record<string, unknown>)?.[specialSigKey] === specialSecretSig;
const struct = (props: Record<string, unknown>) => Struct.fromJavaScript(props as never);
const target = { datadog: { apiKey: "dd-operations-key" } };

describe("the native plugin's resource operations, against the emulator", () => {
  const plugin = useNativePlugin();
  let emulator: RunningEmulator;
  let client: ServiceClient;
  const call = <Req, Res>(method: string, req: Req) => unary<Req, Res>(plugin(), method, req);

  beforeAll(async () => {
    emulator = await startEmulator({});
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
  });

  afterAll(async () => {
    await emulator?.close();
  });

  it("Configure accepts secrets, and neither previews, resource references nor output values", async () => {
    const req = new proto.ConfigureRequest();
    req.setArgs(struct({ baseUrl: emulator.url, apiKey: emulator.apiKeys[0] }));
    const resp = await call<proto.ConfigureRequest, proto.ConfigureResponse>("configure", req);
    expect(resp.getAcceptsecrets()).toBe(true);
    expect(resp.getSupportspreview()).toBe(false);
    expect(resp.getAcceptresources()).toBe(false);
    expect(resp.getAcceptoutputs()).toBe(false);
  });

  it("a subscription's create, diff, update, read after a delete outside Pulumi, and delete", async () => {
    // A subscription: server.test.ts leaves a destination's create pending in its process.
    const dest = await client.eventDestinations.create({ target, description: "for the subscription" });
    const sources = [{ type: "ip_policy_created.v0" }];
    const first = { sources, destinationIds: [dest.id], description: "first" };
    const create = new proto.CreateRequest();
    create.setUrn(SUB);
    create.setProperties(struct({ ...first, metadata: { [specialSigKey]: specialSecretSig, value: "m" } }));
    const made = await call<proto.CreateRequest, proto.CreateResponse>("create", create);
    expect(made.getId()).toMatch(/^esb_/);
    const outs = made.getProperties()!.toJavaScript();
    expect(outs.description).toBe("first");
    expect(isSecret(outs.metadata)).toBe(true); // secret on the way in, secret in the outputs
    expect(isSecret(outs.description)).toBe(false);
    expect((await client.eventSubscriptions.get(made.getId())).description).toBe("first");

    // The description changed, the metadata set where the old inputs had none: UPDATE, ADD, in place.
    const second = { ...first, description: "second", metadata: "m2" };
    const diff = new proto.DiffRequest();
    diff.setUrn(SUB);
    diff.setId(made.getId());
    diff.setOlds(made.getProperties()!);
    diff.setOldInputs(struct(first));
    diff.setNews(struct(second));
    const diffed = await call<proto.DiffRequest, proto.DiffResponse>("diff", diff);
    expect(diffed.getChanges()).toBe(DiffChanges.DIFF_SOME);
    expect([...diffed.getDiffsList()].sort()).toEqual(["description", "metadata"]);
    expect(diffed.getReplacesList()).toEqual([]);
    expect(diffed.getDeletebeforereplace()).toBe(false);
    expect(diffed.getHasdetaileddiff()).toBe(true);
    const kind = (key: string) => {
      const d = diffed.getDetaileddiffMap().get(key)!;
      return [d.getKind(), d.getInputdiff()];
    };
    expect([kind("description"), kind("metadata")]).toEqual([
      [Kind.UPDATE, true],
      [Kind.ADD, true],
    ]);

    // The same values again: no change.
    diff.setNews(struct({ ...first, metadata: "m" }));
    const same = await call<proto.DiffRequest, proto.DiffResponse>("diff", diff);
    expect([same.getChanges(), same.getDiffsList()]).toEqual([DiffChanges.DIFF_NONE, []]);

    const update = new proto.UpdateRequest();
    update.setUrn(SUB);
    update.setId(made.getId());
    update.setOlds(made.getProperties()!);
    update.setNews(struct({ ...second, metadata: { [specialSigKey]: specialSecretSig, value: "m2" } }));
    const updated = await call<proto.UpdateRequest, proto.UpdateResponse>("update", update);
    const after = updated.getProperties()!.toJavaScript();
    expect(after.description).toBe("second");
    expect(isSecret(after.metadata)).toBe(true);
    expect((await client.eventSubscriptions.get(made.getId())).description).toBe("second");

    const remove = new proto.DeleteRequest();
    remove.setUrn(SUB);
    remove.setId(made.getId());
    remove.setProperties(updated.getProperties()!);
    await call("delete", remove);
    await expect(client.eventSubscriptions.get(made.getId())).rejects.toMatchObject({ status: 404 });

    // Refresh after the delete: an empty ID, so that the engine drops it from the stack.
    const read = new proto.ReadRequest();
    read.setUrn(SUB);
    read.setId(made.getId());
    read.setProperties(updated.getProperties()!);
    read.setInputs(struct(second));
    const gone = await call<proto.ReadRequest, proto.ReadResponse>("read", read);
    expect(gone.getId()).toBe("");
    expect(gone.getProperties()).toBeUndefined();
  });

  it("an abuse report: each change replaces (UPDATE_REPLACE, DELETE_REPLACE, ADD_REPLACE) and it has no update", async () => {
    const diff = new proto.DiffRequest();
    diff.setUrn(REPORT);
    diff.setId("ar_x");
    diff.setOlds(struct({ urls: ["https://a.example"], metadata: "m", status: "PENDING" }));
    diff.setOldInputs(struct({ urls: ["https://a.example"], metadata: "m" }));
    diff.setNews(struct({ urls: ["https://b.example"] }));
    const diffed = await call<proto.DiffRequest, proto.DiffResponse>("diff", diff);
    expect([...diffed.getReplacesList()].sort()).toEqual(["metadata", "urls"]);
    const kinds = Object.fromEntries(
      ["urls", "metadata"].map((k) => [k, diffed.getDetaileddiffMap().get(k)!.getKind()]),
    );
    expect(kinds).toEqual({ urls: Kind.UPDATE_REPLACE, metadata: Kind.DELETE_REPLACE });

    diff.setOldInputs(struct({ urls: ["https://a.example"] }));
    diff.setOlds(struct({ urls: ["https://a.example"], status: "PENDING" }));
    diff.setNews(struct({ urls: ["https://a.example"], metadata: "new" }));
    const added = await call<proto.DiffRequest, proto.DiffResponse>("diff", diff);
    expect(added.getDetaileddiffMap().get("metadata")!.getKind()).toBe(Kind.ADD_REPLACE);

    const update = new proto.UpdateRequest();
    update.setUrn(REPORT);
    update.setId("ar_x");
    update.setOlds(struct({}));
    update.setNews(struct({ urls: ["https://a.example"] }));
    await expect(call("update", update)).rejects.toThrow(`${REPORT} has no update: a change replaces it`);
  });

  it("GetSchema refuses a schema version but 0; the mappings are empty; Cancel and Attach answer nothing", async () => {
    await expect(call("getSchema", new proto.GetSchemaRequest().setVersion(1))).rejects.toThrow(
      "unsupported schema version 1",
    );
    const mapping = await call<proto.GetMappingRequest, proto.GetMappingResponse>(
      "getMapping",
      new proto.GetMappingRequest().setKey("terraform"),
    );
    expect([mapping.getProvider(), mapping.getData_asU8().length]).toEqual(["", 0]);
    const mappings = await call<proto.GetMappingsRequest, proto.GetMappingsResponse>(
      "getMappings",
      new proto.GetMappingsRequest().setKey("terraform"),
    );
    expect(mappings.getProvidersList()).toEqual([]);
    expect(await call("cancel", new Empty())).toBeInstanceOf(Empty);

    const saved = process.env.PULUMI_NODEJS_ENGINE;
    try {
      delete process.env.PULUMI_NODEJS_ENGINE;
      await call("attach", new plugproto.PluginAttach().setAddress("127.0.0.1:4242"));
      expect(process.env.PULUMI_NODEJS_ENGINE).toBe("127.0.0.1:4242");
      await call("attach", new plugproto.PluginAttach().setAddress("127.0.0.1:1"));
      expect(process.env.PULUMI_NODEJS_ENGINE).toBe("127.0.0.1:4242");
    } finally {
      if (saved === undefined) delete process.env.PULUMI_NODEJS_ENGINE;
      else process.env.PULUMI_NODEJS_ENGINE = saved;
    }
  });
});
