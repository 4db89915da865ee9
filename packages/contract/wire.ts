/**
 * The one place where the TypeScript names (camelCase) and the wire names (snake_case) meet.
 *
 * Every request body goes through {@link keysToSnake} just before it is serialized, and every
 * response body goes through {@link keysToCamel} just after it is parsed, before the zod schemas
 * (which are written in camelCase) check it. No field is renamed anywhere else.
 *
 * Only object keys are converted; string values (metadata, descriptions, URLs, IDs) are never
 * touched. The conversion is lossless for every field name of the service
 * (`destination_ids` ⇄ `destinationIds`, `aws_secret_access_key` ⇄ `awsSecretAccessKey`,
 * `azure_logs_ingestion` ⇄ `azureLogsIngestion`, `ddtags` ⇄ `ddtags`, …).
 *
 * Reference: docs/service-api.md § Requests.
 *
 * @packageDocumentation
 */

/** `delivery_stream_arn` → `deliveryStreamArn`. Keys without an underscore are returned as is. */
export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** `deliveryStreamArn` → `delivery_stream_arn`. Keys without a capital letter are returned as is. */
export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Memoizes a key conversion: the service has a few dozen field names, converted on every call. */
function memo(convert: (key: string) => string): (key: string) => string {
  const cache = new Map<string, string>();
  return (key) => {
    let out = cache.get(key);
    if (out === undefined) {
      out = convert(key);
      if (cache.size < 1000) cache.set(key, out); // bounded: keys come from the network
    }
    return out;
  };
}

function mapKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, rename));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const name = rename(key);
    const v = mapKeys(value[key], rename);
    // Assigning "__proto__" would set the prototype; define it as an ordinary own key instead.
    if (name === "__proto__")
      Object.defineProperty(out, name, { value: v, enumerable: true, writable: true, configurable: true });
    else out[name] = v;
  }
  return out;
}

const toCamel = memo(snakeToCamel);
const toSnake = memo(camelToSnake);

/** Deep copy of a JSON value with every object key converted to camelCase (wire → TypeScript). */
export function keysToCamel(value: unknown): unknown {
  return mapKeys(value, toCamel);
}

/** Deep copy of a JSON value with every object key converted to snake_case (TypeScript → wire). */
export function keysToSnake(value: unknown): unknown {
  return mapKeys(value, toSnake);
}
