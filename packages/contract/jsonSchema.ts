/**
 * The contract's schemas as JSON Schema 2020-12 in wire form (snake_case property names), the
 * `components.schemas` of the OpenAPI document.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { ErrorResponse } from "./errorCodes";
import { ApiKeyAccount, ApiKeyAdd, ApiKeyRevoke, FaultConfig, RequestLogPage, Review } from "./operator";
import { RESOURCE_LIST } from "./descriptors";
import { camelToSnake } from "./wire";

/** A JSON object of the document. */
export type Json = { [key: string]: unknown };

/** Renames every property name of a JSON Schema to snake_case (values are left alone). */
function snakeProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(snakeProperties);
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === "properties" && v && typeof v === "object") {
      out[k] = Object.fromEntries(
        Object.entries(v as Json).map(([p, s]) => [camelToSnake(p), snakeProperties(s)]),
      );
    } else if (k === "required" && Array.isArray(v)) {
      out[k] = v.map((p) => camelToSnake(String(p)));
    } else if (k === "enum" || k === "const" || k === "default" || k === "examples") {
      out[k] = v;
    } else {
      out[k] = snakeProperties(v);
    }
  }
  return out;
}

/** The JSON Schema of `schema` in wire form (snake_case names unless `camelCaseOnWire`). */
export function wireSchema(schema: z.ZodType, camelCaseOnWire = false): Json {
  const out = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Json;
  delete out.$schema;
  return (camelCaseOnWire ? out : snakeProperties(out)) as Json;
}

/** A `$ref` to the component schema `name`. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** An `application/json` content of the component schema `name`. */
export const json = (name: string) => ({ content: { "application/json": { schema: ref(name) } } });

/**
 * The component names of a resource's schemas, by role: `EventDestination`,
 * `EventDestinationCreate`, `EventDestinationUpdate`, `EventDestinationList` (roles the resource
 * lacks are absent).
 */
export function componentNames(
  pulumiType: string,
): Record<"response" | "create" | "update" | "list", string> {
  return {
    response: pulumiType,
    create: `${pulumiType}Create`,
    update: `${pulumiType}Update`,
    list: `${pulumiType}List`,
  };
}

/** The schemas of `components.schemas`, by name: each resource's, then the error and operator bodies. */
export const COMPONENTS: Record<string, Json> = {
  ...Object.fromEntries(
    RESOURCE_LIST.flatMap((r) => {
      const names = componentNames(r.pulumiType);
      return (["response", "create", "update", "list"] as const).flatMap((role) => {
        const schema = r.schemas[role];
        return schema ? [[names[role], wireSchema(schema)]] : [];
      });
    }),
  ),
  EventSource: wireSchema(z.object({ type: z.string(), uri: z.string() })),
  Error: wireSchema(ErrorResponse),
  Review: wireSchema(Review),
  FaultConfig: wireSchema(FaultConfig, true),
  RequestLogPage: wireSchema(RequestLogPage),
  ApiKeyAdd: wireSchema(ApiKeyAdd),
  ApiKeyRevoke: wireSchema(ApiKeyRevoke),
  ApiKeyAccount: wireSchema(ApiKeyAccount),
};
