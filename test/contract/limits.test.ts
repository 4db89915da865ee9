/**
 * The contract's limits (packages/contract/limits.ts) at exactly their maximum and one past it,
 * through the request validation every door shares (`validateRequest`): a value at the limit is
 * accepted, one unit more is refused with an error naming the field. The units are the ones the
 * limits state: characters are Unicode code points (an emoji is one, though it is two UTF-16 units
 * and four bytes), bytes are bytes of UTF-8.
 */
import {
  ABUSE_REPORT_URLS_MAX,
  isAbsoluteHttpUrl,
  isWellFormedId,
  AbuseReportCreate,
  DESCRIPTION_MAX_CHARS,
  DESTINATION_IDS_MAX,
  EVENT_TYPES,
  EventDestinationCreate,
  EventSubscriptionCreate,
  ID_BODY_LENGTH,
  ID_PREFIX,
  METADATA_MAX_BYTES,
  METADATA_MAX_CHARS,
  SOURCES_MAX,
  validateRequest,
} from "service-contract";
import type { z } from "zod";

const EMOJI = "😀"; // one code point, two UTF-16 units, four bytes of UTF-8
const E_ACUTE = "é"; // one code point, two bytes of UTF-8
const destinationId = (n: number) => ID_PREFIX.eventDestination + String(n).padStart(ID_BODY_LENGTH, "0");

const SUBSCRIPTION = { sources: [{ type: EVENT_TYPES[0] }], destination_ids: [destinationId(1)] };
const DESTINATION = { target: { datadog: { api_key: "k" } } };
const REPORT = { urls: ["https://a.example.com/x"] };

/** [what, schema, a valid body, the field, its value at the limit, its value one unit past it]. */
const LIMITS: [string, z.ZodType, Record<string, unknown>, string, unknown, unknown][] = [
  [
    "a subscription's description (characters)",
    EventSubscriptionCreate,
    SUBSCRIPTION,
    "description",
    EMOJI.repeat(DESCRIPTION_MAX_CHARS),
    EMOJI.repeat(DESCRIPTION_MAX_CHARS + 1),
  ],
  [
    "a subscription's metadata (characters)",
    EventSubscriptionCreate,
    SUBSCRIPTION,
    "metadata",
    EMOJI.repeat(METADATA_MAX_CHARS),
    EMOJI.repeat(METADATA_MAX_CHARS + 1),
  ],
  [
    "a subscription's sources (items)",
    EventSubscriptionCreate,
    SUBSCRIPTION,
    "sources",
    EVENT_TYPES.slice(0, SOURCES_MAX).map((type) => ({ type })),
    EVENT_TYPES.slice(0, SOURCES_MAX + 1).map((type) => ({ type })),
  ],
  [
    "a subscription's destination_ids (items)",
    EventSubscriptionCreate,
    SUBSCRIPTION,
    "destination_ids",
    Array.from({ length: DESTINATION_IDS_MAX }, (_, i) => destinationId(i + 1)),
    Array.from({ length: DESTINATION_IDS_MAX + 1 }, (_, i) => destinationId(i + 1)),
  ],
  [
    "a destination's description (characters)",
    EventDestinationCreate,
    DESTINATION,
    "description",
    EMOJI.repeat(DESCRIPTION_MAX_CHARS),
    EMOJI.repeat(DESCRIPTION_MAX_CHARS + 1),
  ],
  [
    "a destination's metadata (bytes of UTF-8)",
    EventDestinationCreate,
    DESTINATION,
    "metadata",
    E_ACUTE.repeat(METADATA_MAX_BYTES / 2),
    E_ACUTE.repeat(METADATA_MAX_BYTES / 2) + "a",
  ],
  [
    "an abuse report's metadata (bytes of UTF-8)",
    AbuseReportCreate,
    REPORT,
    "metadata",
    E_ACUTE.repeat(METADATA_MAX_BYTES / 2),
    E_ACUTE.repeat(METADATA_MAX_BYTES / 2) + "a",
  ],
  [
    "an abuse report's urls (items)",
    AbuseReportCreate,
    REPORT,
    "urls",
    Array.from({ length: ABUSE_REPORT_URLS_MAX }, (_, i) => `https://a.example.com/${i}`),
    Array.from({ length: ABUSE_REPORT_URLS_MAX + 1 }, (_, i) => `https://a.example.com/${i}`),
  ],
];

describe.each(LIMITS)("%s", (_what, schema, base, field, atLimit, pastLimit) => {
  it("is accepted at exactly its maximum", () => {
    expect(validateRequest(schema, { ...base, [field]: atLimit })).toBeUndefined();
  });

  it("is refused one unit past it, with an error naming the field", () => {
    const issue = validateRequest(schema, { ...base, [field]: pastLimit });
    expect(issue).toMatchObject({ code: 215, field });
    expect(issue?.message).toMatch(new RegExp(`^${field}: at most`));
  });
});

describe("isWellFormedId", () => {
  const body = "A".repeat(ID_BODY_LENGTH - 1) + "9";
  it.each([
    ["its prefix and the body's length in base62", `ed_${body}`, true],
    ["another prefix", `esb_${body}`, false],
    ["the prefix at its end", `${body}ed_`, false],
    ["a character past the length", `ed_${body}a`, false],
    ["a character short", `ed_${body.slice(1)}`, false],
    ["a character outside base62", `ed_${body.slice(1)}-`, false],
  ])("%s: %s → %s", (_what, id, expected) => {
    expect(isWellFormedId(id, "ed_")).toBe(expected);
  });
});

describe("isAbsoluteHttpUrl", () => {
  it.each([
    ["http", "http://a.example.com/x", true],
    ["https, any case", "HTTPS://a.example.com", true],
    ["another scheme", "ftp://a.example.com", false],
    ["no host", "https://", false],
    ["no slashes (a URL parser would add them)", "https:a.example.com", false],
    ["something before the scheme (a URL parser would trim it)", " https://a.example.com", false],
    ["a scheme that ends in http", "xhttp://a.example.com", false],
  ])("%s: %s → %s", (_what, url, expected) => {
    expect(isAbsoluteHttpUrl(url)).toBe(expected);
  });
});

test("isWellFormedId: another prefix of the same length is refused", () => {
  expect(isWellFormedId(`xy_${"A".repeat(ID_BODY_LENGTH)}`, "ed_")).toBe(false);
});
