/**
 * Limits and catalogues of the service, shared by the client's validation and the emulator so
 * that both enforce exactly the same rules.
 *
 * Reference: docs/service-api.md § Requests.
 *
 * @packageDocumentation
 */

/** Value of the `Service-Version` header on every request (docs/service-api.md § Requests). */
export const SERVICE_VERSION = "2";

/** Longest `metadata` of an abuse report or an event destination, in **bytes** of UTF-8. */
export const METADATA_MAX_BYTES = 4096;

/** Longest `metadata` of an event subscription, in **characters** (Unicode code points). */
export const METADATA_MAX_CHARS = 4096;

/** Longest `description` of a subscription or destination, in **characters** (code points). */
export const DESCRIPTION_MAX_CHARS = 255;

/** Fewest and most URLs in an abuse report (`urls`). */
export const ABUSE_REPORT_URLS_MIN = 1;
/** Most URLs in an abuse report (`urls`). */
export const ABUSE_REPORT_URLS_MAX = 100;

/** Fewest entries in a subscription's `sources`. */
export const SOURCES_MIN = 1;
/** Most entries in a subscription's `sources`. */
export const SOURCES_MAX = 10;

/** Fewest entries in a subscription's `destination_ids`. */
export const DESTINATION_IDS_MIN = 1;
/** Most entries in a subscription's `destination_ids`. */
export const DESTINATION_IDS_MAX = 10;

/** Smallest and default/largest page size of list operations (`limit` query parameter). */
export const PAGE_LIMIT_MIN = 1;
/** Largest page size of list operations, also the default. */
export const PAGE_LIMIT_MAX = 100;

/** Largest request body the service accepts, in bytes (1 MiB); larger bodies answer 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** ID prefixes of each resource kind (docs/service-api.md § Requests). */
export const ID_PREFIX = {
  abuseReport: "abrp_",
  eventSubscription: "esb_",
  eventDestination: "ed_",
  operation: "op_",
} as const;

/**
 * What an `Idempotency-Key` header may hold: 1 to 255 visible ASCII characters (docs/service-api.md
 * § Idempotency keys).
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * What an API key (and the emulator's admin key) may hold: 1 to 512 characters of
 * `A-Z a-z 0-9 . _ ~ + / = -`. A bearer token outside this set answers 401 / 202 (malformed).
 */
export const API_KEY_PATTERN = /^[A-Za-z0-9._~+/=-]{1,512}$/;

/** {@link API_KEY_PATTERN} in words, for messages (which never quote the key itself). */
export const API_KEY_RULE = "must be 1 to 512 characters of A-Z a-z 0-9 . _ ~ + / = -";

/** Number of base62 characters after an ID's prefix. */
export const ID_BODY_LENGTH = 27;

const RESOURCES_WITH_LIFECYCLE_EVENTS = [
  "api_key",
  "certificate_authority",
  "domain",
  "event_destination",
  "event_subscription",
  "ip_policy",
  "ip_policy_rule",
  "ip_restriction",
  "secret",
  "ssh_certificate_authority",
  "ssh_host_certificate",
  "ssh_public_key",
  "ssh_user_certificate",
  "tcp_address",
  "tls_certificate",
  "tunnel_credential",
  "vault",
] as const;

/**
 * Every event type a subscription's `sources[].type` may name: 55 types, all `.v0`
 * (docs/service-api.md § Event subscriptions).
 */
export const EVENT_TYPES: readonly string[] = Object.freeze([
  ...RESOURCES_WITH_LIFECYCLE_EVENTS.flatMap((r) => [
    `${r}_created.v0`,
    `${r}_updated.v0`,
    `${r}_deleted.v0`,
  ]),
  "agent_session_start.v0",
  "agent_session_stop.v0",
  "http_request_complete.v0",
  "tcp_connection_closed.v0",
]);

const EVENT_TYPE_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

/** True when `type` is in the event type catalogue ({@link EVENT_TYPES}). */
export function isEventType(type: string): boolean {
  return EVENT_TYPE_SET.has(type);
}

/** Length of `s` in bytes of UTF-8. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

/** Length of `s` in characters, counted as Unicode code points (a surrogate pair is one). */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const BASE62 = /^[0-9A-Za-z]+$/;

/**
 * True when `id` has the given prefix followed by exactly {@link ID_BODY_LENGTH} base62
 * characters, e.g. `isWellFormedId("esb_2abc…", "esb_")`.
 */
export function isWellFormedId(id: string, prefix: string): boolean {
  if (!id.startsWith(prefix)) return false;
  const body = id.slice(prefix.length);
  return body.length === ID_BODY_LENGTH && BASE62.test(body);
}

/**
 * True when `s` is an absolute `http` or `https` URL with a host, written out in full
 * (`http://` or `https://`, any case, with nothing before it), e.g. `https://example.com/x`.
 * This is the rule for an abuse report's `urls` (docs/service-api.md § Abuse reports).
 */
export function isAbsoluteHttpUrl(s: string): boolean {
  // Past the scheme's test, what parses is an http or https URL, and those always have a host.
  return /^https?:\/\//i.test(s) && URL.canParse(s);
}
