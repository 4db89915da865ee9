/**
 * The gRPC server of the native provider plugin `pulumi-resource-service`: Pulumi's resource
 * provider protocol (`pulumirpc.ResourceProvider`, the service definitions and messages that ship
 * in `@pulumi/pulumi/proto`), answered by the same implementation the dynamic providers call
 * (provider/impl, through ./implementations.ts).
 *
 * Why not `@pulumi/pulumi/provider`'s `main()`: its server (provider/server.js, 3.248) was
 * written for component providers; its `Configure` answers without reading the configuration it
 * is sent, and `CheckConfig`/`DiffConfig` answer UNIMPLEMENTED, so an explicit provider's API key
 * would never reach the client. This server implements those three, the resource operations,
 * `Invoke` (the schema's functions, ./invokes.ts), `GetSchema`, `GetPluginInfo`, `Cancel`,
 * `Attach` and `GetMapping(s)` (none); every other method (`Handshake`, `Construct`, `Call`…)
 * gets grpc-js's UNIMPLEMENTED answer, which the engine takes as "not supported" (without
 * `Handshake` it reads the plugin's capabilities from `Configure`'s answer).
 *
 * Capabilities: secrets are accepted (the engine sends them with Pulumi's secret signature, see
 * ./properties.ts), and the answers mark secret every property that was secret on the way in
 * plus those the schema declares secret (an event destination's `target`); previews are not
 * served (`supportsPreview: false`: the engine plans creates and updates itself, as for the
 * dynamic providers); resource references and output values are not accepted.
 *
 * @packageDocumentation
 */
import * as fs from "fs";
import * as path from "path";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as plugproto from "@pulumi/pulumi/proto/plugin_pb";
import type { IResourceProviderServer } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { configure } from "../impl/process/client";
import { flushDebugLog } from "../impl/process/debugLog";
import { UNKNOWN } from "../impl/inputChecks";
import { configVerdict } from "../impl/configChange";
import { fromPulumi } from "./deps";
import { fromStruct, toStruct, type Props } from "./properties";
import { implementationOf } from "./implementations";
import { invoke } from "./invokes";
import type { ServiceDiffResult } from "../impl/resourceOptions";
import { schemaText } from "./schema";
import { PendingCreateError } from "../impl/create/pendingCreate";
import { GrpcAnswer, initFailedAnswer, unary } from "./answers";

const { Empty } = fromPulumi<typeof import("google-protobuf/google/protobuf/empty_pb")>(
  "google-protobuf/google/protobuf/empty_pb",
);

/** The root of this package (`pulumi-service`), from this file in the source or in dist. */
function packageRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (
      fs.existsSync(file) &&
      (JSON.parse(fs.readFileSync(file, "utf8")) as { name?: string }).name === "pulumi-service"
    )
      return dir;
    // Stryker disable next-line StringLiteral: unreachable, this file is always inside the package
    if (path.dirname(dir) === dir) throw new Error(`no package.json of pulumi-service above ${__dirname}`);
  }
}

const ROOT = packageRoot();
/** The plugin's version: the package's. */
export const VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }
).version;

/**
 * The schema `GetSchema` serves, built from the contract once: the text of
 * provider/native/schema.json, which the package does not need to ship.
 */
export function readSchema(): string {
  schema ??= schemaText(VERSION);
  return schema;
}
let schema: string | undefined;

/** Config keys of the provider, in the namespace the implementation reads (`service:apiKey`…). */
const NAMESPACE = "service:";

/** Properties of the provider's config stored as secrets. */
const CONFIG_SECRETS = ["apiKey"];

/** Union of property name sets. */
const union = (...sets: Iterable<string>[]) => new Set(sets.flatMap((s) => [...s]));

/** Names of the properties whose values differ between `a` and `b` (compared as JSON). */
// Stryker disable next-line ArrayDeclaration: the one caller (diffConfig) passes its own list
function changedKeys(a: Props, b: Props, ignore: string[] = []): string[] {
  const keys = union(Object.keys(a), Object.keys(b));
  return [...keys].filter((k) => !ignore.includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** `CheckConfig`: the configuration as given, the API key marked secret; a bad URL is a failure. */
async function checkConfig(req: provproto.CheckRequest): Promise<provproto.CheckResponse> {
  const news = fromStruct(req.getNews());
  const resp = new provproto.CheckResponse();
  resp.setInputs(toStruct(news.props, union(news.secrets, CONFIG_SECRETS)));
  const baseUrl = news.props.baseUrl;
  if (typeof baseUrl === "string" && baseUrl !== UNKNOWN && !/^https?:\/\/[^/]/.test(baseUrl)) {
    const failure = new provproto.CheckFailure();
    failure.setProperty("baseUrl");
    failure.setReason(`baseUrl must be an absolute http:// or https:// URL, got ${JSON.stringify(baseUrl)}`);
    resp.setFailuresList([failure]);
  }
  return resp;
}

/**
 * `DiffConfig`: settings that say where the resources live replace the provider, and so its
 * resources (created through the new configuration, deleted through the old one): `baseUrl`, and
 * `apiKey` when the new key is another account's; every other change, a key rotated within the
 * account included, updates it in place (see ../impl/configChange.ts).
 * @throws Error (the engine shows it, nothing is changed) when an `apiKey` change cannot be told
 *   apart, saying what to run.
 */
async function diffConfig(req: provproto.DiffRequest): Promise<provproto.DiffResponse> {
  const olds = fromStruct(req.getOlds()).props;
  const news = fromStruct(req.getNews()).props;
  const changed = changedKeys(olds, news, ["version"]);
  const resp = new provproto.DiffResponse();
  resp.setChanges(
    changed.length > 0
      ? provproto.DiffResponse.DiffChanges.DIFF_SOME
      : provproto.DiffResponse.DiffChanges.DIFF_NONE,
  );
  resp.setDiffsList(changed);
  if (changed.includes("apiKey") || changed.includes("baseUrl")) {
    resp.setReplacesList((await configVerdict(olds, news)).replaces);
  }
  return resp;
}

/**
 * `Configure`: hands the provider's configuration (its inputs, else the `service:*` variables)
 * to the implementation's runtime, which falls back to the environment for unset settings.
 */
async function configureProvider(req: provproto.ConfigureRequest): Promise<provproto.ConfigureResponse> {
  const args = fromStruct(req.getArgs()).props;
  const variables = req.getVariablesMap();
  await configure({
    config: {
      get(key: string) {
        const name = key.startsWith(NAMESPACE) ? key.slice(NAMESPACE.length) : key;
        const value = args[name] ?? variables.get(key);
        return value === undefined || value === null ? undefined : String(value);
      },
    },
  });
  const resp = new provproto.ConfigureResponse();
  resp.setAcceptsecrets(true);
  resp.setSupportspreview(false);
  resp.setAcceptresources(false);
  resp.setAcceptoutputs(false);
  return resp;
}

async function check(req: provproto.CheckRequest): Promise<provproto.CheckResponse> {
  const impl = implementationOf(req.getUrn());
  const news = fromStruct(req.getNews());
  const result = await impl.check(fromStruct(req.getOlds()).props, news.props);
  const resp = new provproto.CheckResponse();
  resp.setInputs(toStruct((result.inputs ?? news.props) as Props, union(news.secrets, impl.secrets)));
  resp.setFailuresList(
    (result.failures ?? []).map((f) => {
      const failure = new provproto.CheckFailure();
      failure.setProperty(f.property);
      failure.setReason(f.reason);
      return failure;
    }),
  );
  return resp;
}

/**
 * `Diff`: the implementation's verdict, with the changed properties as the changed keys and a
 * detailed diff (add, update or delete of each, in their replace forms for those that replace),
 * so that the engine applies `replaceOnChanges` and `preview --diff` shows each property. A
 * detailed diff entry compares inputs (old inputs against new ones), as the engine's own
 * display does without one.
 */
async function diff(req: provproto.DiffRequest): Promise<provproto.DiffResponse> {
  const impl = implementationOf(req.getUrn());
  const news = fromStruct(req.getNews()).props;
  const result = await impl.diff(req.getId(), fromStruct(req.getOlds()).props, news);
  const { DiffChanges } = provproto.DiffResponse;
  const resp = new provproto.DiffResponse();
  resp.setChanges(
    result.changes === true
      ? DiffChanges.DIFF_SOME
      : result.changes === false
        ? DiffChanges.DIFF_NONE
        : DiffChanges.DIFF_UNKNOWN,
  );
  resp.setReplacesList(result.replaces ?? []);
  resp.setStablesList(result.stables ?? []);
  resp.setDeletebeforereplace(result.deleteBeforeReplace ?? false);
  resp.setDiffsList(result.diffs);
  const oldInputs = fromStruct(req.getOldInputs()).props;
  const detailed = resp.getDetaileddiffMap();
  for (const [key, kind] of detailedDiff(result, oldInputs, news))
    detailed.set(key, new provproto.PropertyDiff().setKind(kind).setInputdiff(true));
  resp.setHasdetaileddiff(true);
  return resp;
}

/**
 * The kind of each changed property: `ADD` when the old inputs lack it, `DELETE` when the new
 * ones do, `UPDATE` otherwise, each in its `_REPLACE` form when the property replaces.
 */
export function detailedDiff(
  result: ServiceDiffResult,
  oldInputs: Props,
  news: Props,
): [string, provproto.PropertyDiff.Kind][] {
  const { Kind } = provproto.PropertyDiff;
  const given = (props: Props, key: string) => props[key] !== undefined && props[key] !== null;
  return result.diffs.map((key) => {
    const replaces = (result.replaces ?? []).includes(key);
    if (!given(oldInputs, key) && given(news, key)) return [key, replaces ? Kind.ADD_REPLACE : Kind.ADD];
    if (given(oldInputs, key) && !given(news, key))
      return [key, replaces ? Kind.DELETE_REPLACE : Kind.DELETE];
    return [key, replaces ? Kind.UPDATE_REPLACE : Kind.UPDATE];
  });
}

/**
 * The timeout of a create, update or delete request (the resource's `customTimeouts`, which the
 * engine sends in **seconds**, 0 when none is set) in **milliseconds**, or `undefined`.
 */
const timeoutMs = (seconds: number): number | undefined => (seconds > 0 ? seconds * 1_000 : undefined);

/**
 * `Create`: the implementation's create; a create that timed out and may still be made is
 * answered as Pulumi's "initialization failed" ({@link initFailedAnswer}).
 */
async function create(req: provproto.CreateRequest): Promise<provproto.CreateResponse> {
  const impl = implementationOf(req.getUrn());
  const news = fromStruct(req.getProperties());
  // Every property secret on the way in, and those the schema declares secret, are secret on the way out.
  const encode = (props: Props): Struct => toStruct(props, union(news.secrets, impl.secrets));
  const result = await impl.create(news.props, timeoutMs(req.getTimeout())).catch((err: unknown) => {
    // A create that timed out and may still be made: the engine keeps its placeholder.
    if (err instanceof PendingCreateError)
      throw new GrpcAnswer(initFailedAnswer(err, encode(err.properties)));
    throw err;
  });
  const resp = new provproto.CreateResponse();
  resp.setId(result.id);
  resp.setProperties(encode(result.outs as Props));
  return resp;
}

/**
 * `Read` (refresh, import, `get`): the live resource, or an empty ID when it is gone. With only
 * an ID (import, `get`), write-only credentials read back as `""`, as with adoption.
 */
async function read(req: provproto.ReadRequest): Promise<provproto.ReadResponse> {
  const impl = implementationOf(req.getUrn());
  const state = fromStruct(req.getProperties());
  const secrets = union(state.secrets, fromStruct(req.getInputs()).secrets, impl.secrets);
  const result = await impl.read(req.getId(), state.props);
  const resp = new provproto.ReadResponse();
  if (!result.id) return resp;
  resp.setId(result.id);
  resp.setProperties(toStruct(result.props as Props, secrets));
  if (result.inputs) resp.setInputs(toStruct(result.inputs as Props, secrets));
  return resp;
}

async function update(req: provproto.UpdateRequest): Promise<provproto.UpdateResponse> {
  const impl = implementationOf(req.getUrn());
  if (!impl.update) throw new Error(`${req.getUrn()} has no update: a change replaces it`);
  const news = fromStruct(req.getNews());
  const result = await impl.update(
    req.getId(),
    fromStruct(req.getOlds()).props,
    news.props,
    timeoutMs(req.getTimeout()),
  );
  const resp = new provproto.UpdateResponse();
  resp.setProperties(toStruct(result.outs as Props, union(news.secrets, impl.secrets)));
  return resp;
}

async function remove(req: provproto.DeleteRequest) {
  const props = fromStruct(req.getProperties()).props;
  await implementationOf(req.getUrn()).remove(req.getId(), props, timeoutMs(req.getTimeout()));
  return new Empty();
}

/** The methods of `pulumirpc.ResourceProvider` this plugin serves (see the module's doc). */
export const SERVER: Partial<IResourceProviderServer> = {
  getPluginInfo: unary(async () => new plugproto.PluginInfo().setVersion(VERSION)),
  getSchema: unary(async (req: provproto.GetSchemaRequest) => {
    if (req.getVersion() !== 0) throw new Error(`unsupported schema version ${req.getVersion()}`);
    return new provproto.GetSchemaResponse().setSchema(readSchema());
  }),
  checkConfig: unary(checkConfig),
  diffConfig: unary(diffConfig),
  configure: unary(configureProvider),
  check: unary(check),
  diff: unary(diff),
  create: unary(create),
  read: unary(read),
  update: unary(update),
  delete: unary(remove),
  invoke: unary(invoke),
  // The engine sends Cancel to every provider before it stops it (and on Ctrl-C): the request
  // lines still waiting for Pulumi's log go first, while the engine still shows them.
  cancel: unary(async () => {
    await flushDebugLog();
    return new Empty();
  }),
  // No mappings to other providers' schemas (those are for `pulumi convert` of Terraform code).
  getMapping: unary(async () => new provproto.GetMappingResponse()),
  getMappings: unary(async () => new provproto.GetMappingsResponse()),
  attach: unary(async (req: plugproto.PluginAttach) => {
    // Started by hand (PULUMI_DEBUG_PROVIDERS=service:<port>): the engine's address arrives here.
    process.env.PULUMI_NODEJS_ENGINE ||= req.getAddress();
    return new Empty();
  }),
};
