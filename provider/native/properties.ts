/**
 * Property values between the engine and the implementation: the engine sends a resource's
 * properties as a `google.protobuf.Struct` in which a secret is an object carrying Pulumi's
 * secret signature (`{ "4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270",
 * value }`, `@pulumi/pulumi/runtime`'s `specialSigKey`/`specialSecretSig`) and an unknown value
 * (preview) is the string `UNKNOWN` of provider/impl/inputChecks.ts, which the implementation already
 * handles. The implementation (provider/impl) works on plain values, as it does behind the
 * dynamic provider; these functions take the secrets off on the way in and put them back, one
 * level deep (a whole top-level property), on the way out.
 *
 * @packageDocumentation
 */
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as rpc from "@pulumi/pulumi/runtime/rpc";
import { fromPulumi } from "./deps";

/** `google-protobuf`'s Struct, the copy `@pulumi/pulumi`'s messages are built with. */
const StructClass = fromPulumi<{ Struct: typeof Struct }>("google-protobuf/google/protobuf/struct_pb").Struct;

/** A resource's properties as plain JSON values. */
export type Props = Record<string, unknown>;

/** Plain properties and the names of those that held a secret anywhere inside. */
export interface Revealed {
  props: Props;
  secrets: Set<string>;
}

/** `value` with every secret (at any depth) replaced by its plain value; `found` tells if any. */
function reveal(value: unknown, found: { secret: boolean }): unknown {
  if (rpc.isRpcSecret(value)) {
    found.secret = true;
    return reveal(rpc.unwrapRpcSecret(value), found);
  }
  if (Array.isArray(value)) return value.map((v) => reveal(v, found));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v, found)]));
  }
  return value;
}

/**
 * The plain properties of a Struct from the engine, and which of them held a secret.
 * An absent Struct gives `{}`.
 */
export function fromStruct(struct: Struct | undefined): Revealed {
  const props: Props = {};
  const secrets = new Set<string>();
  for (const [k, v] of Object.entries(struct?.toJavaScript() ?? {})) {
    const found = { secret: false };
    props[k] = reveal(v, found);
    if (found.secret) secrets.add(k);
  }
  return { props, secrets };
}

/** A value wrapped as a secret for the engine. */
export function secret(value: unknown): Props {
  return { [rpc.specialSigKey]: rpc.specialSecretSig, value };
}

/**
 * A Struct for the engine holding `props` (`undefined` values left out), with each property
 * named in `secrets` wrapped as a secret.
 */
// Stryker disable next-line ArrayDeclaration: equivalent: a default naming a property no resource has marks nothing secret
export function toStruct(props: Props | undefined, secrets: Iterable<string> = []): Struct {
  const names = new Set(secrets);
  const out: Props = {};
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined) continue;
    out[k] = names.has(k) ? secret(v) : v;
  }
  return StructClass.fromJavaScript(out as Parameters<typeof Struct.fromJavaScript>[0]);
}
