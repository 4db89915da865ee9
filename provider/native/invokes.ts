/**
 * `Invoke` of the native plugin: the schema's functions ({@link FUNCTIONS} of ./schema.ts),
 * answered by the lookups both doors share (provider/impl/reads/lookups.ts) with the client of the
 * provider process (provider/impl/runtime.ts, configured by the engine's `Configure`).
 *
 * - `service:index:get<Type>` (`getEventSubscription`, `getEventDestination`, `getAbuseReport`):
 *   args `{ id }`; returns `id` and the outputs of the resource of that kind, the same values a
 *   resource of the same object holds, except write-only credentials, which read back as `""`.
 * - `service:index:get<Types>` (`getEventSubscriptions`, `getEventDestinations`): no args;
 *   returns `{ items }`, every resource of the kind in the account (all pages, newest first),
 *   each `id` and the resource's outputs.
 *
 * Secrets: the schema's secret properties (an event destination's `target`) are returned as
 * secrets, in a list inside each item; when the args held a secret (an `id` that is itself a
 * secret), every returned property is a secret, and no message names that ID.
 *
 * Errors follow Pulumi's providers: a get by ID of a resource that does not exist fails (as
 * `aws.ec2.getInstance` does), with a message naming the ID; a missing or non-string `id` is
 * answered as a check failure of property `id`; an unknown token, and any error of the service
 * (authentication, permission, connection), fail the call with the error's message.
 *
 * @packageDocumentation
 */
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import { LOOKUPS, type Lookup, type LookupKind } from "../impl/reads/lookups";
import { fromStruct, secret, toStruct, type Props } from "./properties";
import { FUNCTIONS, type FunctionSpec } from "./schema";

/** The outcome of one function call: the properties it returns, or check failures of its args. */
export interface FunctionResult {
  /** The returned properties (plain values), when the args were valid. */
  returns?: Props;
  /** Properties of the args at fault and why; none when the args were valid. */
  failures: { property: string; reason: string }[];
}

/** One function of the schema and how it is answered. */
export interface FunctionImpl {
  /** The schema's description of it (token, `get` or `list`, the resource). */
  spec: FunctionSpec;
  /**
   * Runs the lookup.
   * @param args - the plain args (`{ id }` for a `get`, nothing for a `list`).
   * @param secretArgs - true when any arg was a secret: messages then do not show the ID.
   * @returns the properties to return as plain values (see {@link returnStruct} for their
   *   secrets), or the failures of the args.
   * @throws Error naming the ID when no such resource exists; the client's other errors as is.
   */
  run(args: Props, secretArgs: boolean): Promise<FunctionResult>;
}

/** `props` with each property named in `secrets` wrapped as an engine secret, `undefined`s left out. */
function withSecrets(props: Props, secrets: readonly string[]): Props {
  return Object.fromEntries(
    Object.entries(props)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, secrets.includes(k) ? secret(v) : v]),
  );
}

/** The implementation of one function of the schema. */
function implement(spec: FunctionSpec): FunctionImpl {
  const kind = spec.resource.descriptor.names.camel as LookupKind;
  const lookup: Lookup<object> | undefined = LOOKUPS[kind];
  // Stryker disable next-line StringLiteral: unreachable: lookups.ts has the lookups of every kind the schema has functions of
  if (!lookup) throw new Error(`provider/impl/reads/lookups.ts has no lookups of ${spec.resource.token}`);
  const { names, idPrefix } = spec.resource.descriptor;
  if (spec.kind === "get") {
    return {
      spec,
      async run(args, secretArgs) {
        const id = args.id;
        if (typeof id !== "string" || id === "") {
          const got = id === undefined || id === null || id === "" ? "none was given" : `got ${typeof id}`;
          const reason = `id is required: the ID (${idPrefix}…) of the ${names.singular} to read, a string; ${got}`;
          return { failures: [{ property: "id", reason }] };
        }
        const found = await lookup.get(id, secretArgs ? "(whose ID is a secret)" : undefined);
        return { returns: found, failures: [] };
      },
    };
  }
  const list = lookup.list;
  // Stryker disable next-line StringLiteral: unreachable: the schema has list functions only of the kinds lookups.ts lists
  if (!list) throw new Error(`provider/impl/reads/lookups.ts does not list ${names.plural}`);
  return {
    spec,
    async run() {
      const items = await list();
      return { returns: { items }, failures: [] };
    },
  };
}

/** The implementation of each function of the schema, by token (`service:index:getEventSubscription`…). */
export const FUNCTION_IMPLEMENTATIONS: Readonly<Record<string, FunctionImpl>> = Object.fromEntries(
  FUNCTIONS.map((f) => [f.token, implement(f)]),
);

/**
 * The implementation of the function `token`.
 * @throws Error naming the token and the functions this provider has, for any other token.
 */
export function functionOf(token: string): FunctionImpl {
  const impl = FUNCTION_IMPLEMENTATIONS[token];
  if (!impl)
    throw new Error(
      `unknown function ${token} (this provider has ${Object.keys(FUNCTION_IMPLEMENTATIONS).join(", ")})`,
    );
  return impl;
}

/**
 * The returned properties in the engine's form: the resource's secret properties (the schema's
 * `secret`, e.g. a destination's `target`) wrapped as secrets, at the top level of a `get`'s
 * result and inside each item of a `list`'s; with `secretArgs`, every top-level property
 * wrapped instead (what is inside is then secret already).
 */
export function returnStruct(fn: FunctionImpl, returns: Props, secretArgs: boolean): Struct {
  if (secretArgs) return toStruct(returns, Object.keys(returns));
  const secrets = fn.spec.resource.secrets;
  if (fn.spec.kind === "get") return toStruct(returns, secrets);
  const items = (returns.items as Props[]).map((item) => withSecrets(item, secrets));
  return toStruct({ ...returns, items });
}

/**
 * `Invoke`: the function the request's token names, run on the request's args (secrets taken
 * off, see ./properties.ts), its result put back in the engine's form: check failures of the
 * args, or the returned properties with their secrets (see the module comment); when an arg
 * was a secret, every returned property is.
 * @throws Error for an unknown token, a resource that does not exist (naming its ID, unless the
 *   ID was a secret), and the client's errors (the server answers each with its message).
 */
export async function invoke(req: provproto.InvokeRequest): Promise<provproto.InvokeResponse> {
  const fn = functionOf(req.getTok());
  const args = fromStruct(req.getArgs());
  const secretArgs = args.secrets.size > 0;
  const result = await fn.run(args.props, secretArgs);
  const resp = new provproto.InvokeResponse();
  resp.setFailuresList(
    result.failures.map((f) => new provproto.CheckFailure().setProperty(f.property).setReason(f.reason)),
  );
  if (result.returns) resp.setReturn(returnStruct(fn, result.returns, secretArgs));
  return resp;
}
