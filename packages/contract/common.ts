/**
 * Parts shared by the resource schemas: IDs, timestamps, references, and the registry of field
 * metadata that consumers (the client, the emulator, the providers, the OpenAPI document) read.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { ID_BODY_LENGTH } from "./limits";

/**
 * What the contract says about one field besides its type, attached with zod's `.meta()` and
 * carried into the OpenAPI document: `description` (prose), `writeOnly` (a secret sent in
 * requests; OpenAPI's sense: never in a response), `x-write-only` (the same secret in a response
 * schema, which the service does return, always as `""`), `x-id-prefix` (the ID kind), `x-unit` (`bytes` or
 * `characters` for a string limit) and `x-patch` (what sending the field in a PATCH does).
 */
export interface FieldMeta {
  description?: string;
  writeOnly?: boolean;
  "x-write-only"?: boolean;
  "x-id-prefix"?: string;
  "x-unit"?: "bytes" | "characters";
  "x-patch"?: string;
  [key: string]: unknown;
}

/** The metadata registered on one schema with `.meta()` (not its wrappers'); `{}` when none. */
export function metaOf(schema: z.ZodType): FieldMeta {
  return (z.globalRegistry.get(schema) ?? {}) as FieldMeta;
}

/** True when `meta` marks a write-only secret, in a request schema or in a response schema. */
export function isWriteOnly(meta: FieldMeta | undefined): boolean {
  return meta?.writeOnly === true || meta?.["x-write-only"] === true;
}

/** The regular expression of a full ID: `prefix` followed by 27 base62 characters. */
export function idPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}[0-9A-Za-z]{${ID_BODY_LENGTH}}$`);
}

/** Schema of an ID of one kind: `prefix` + 27 base62 characters, e.g. `Id("esb_")`. */
export function Id(prefix: string) {
  return z
    .string()
    .regex(idPattern(prefix))
    .meta({
      "x-id-prefix": prefix,
      description: `\`${prefix}\` followed by ${ID_BODY_LENGTH} base62 characters`,
    });
}

/** RFC 3339 timestamp with an offset, e.g. `2026-11-21T09:30:00Z`. */
export const Timestamp = z.iso
  .datetime({ offset: true })
  .meta({ description: "RFC 3339 time, e.g. 2026-11-21T09:30:00Z" });

/** Reference to another resource: its ID and absolute URI. */
export const Ref = z.object({ id: z.string(), uri: z.string() });
/** Reference to another resource (see the schema of the same name). */
export type Ref = z.infer<typeof Ref>;
