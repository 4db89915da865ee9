/**
 * The contract's request validation gives, for every body, the same first error (service code
 * and message) as the emulator's former hand-written validator, which the emulator's error
 * tables were written against: a differential test over hand-picked and generated bodies (with
 * values quoted, as the former validator did). Without `quoteValues`, as the emulator calls it,
 * the same error quotes none of the body's strings.
 */
import fc from "fast-check";
import type { z } from "zod";
import {
  AbuseReportCreate,
  EventDestinationCreate,
  EventDestinationUpdate,
  EventSubscriptionCreate,
  EventSubscriptionUpdate,
  FaultConfig,
  Review,
  validateRequest,
} from "service-contract";
import { ServiceError } from "../../packages/emulator/errors";
import * as former from "../helpers/former-validate";

const TARGETS = [
  { firehose: { auth: { role: { role_arn: "arn:r" } }, delivery_stream_arn: "arn:s" } },
  {
    kinesis: {
      auth: { creds: { aws_access_key_id: "AKIA", aws_secret_access_key: "s" } },
      stream_arn: "arn:k",
    },
  },
  { cloudwatch_logs: { auth: { role: { role_arn: "arn:r" } }, log_group_arn: "arn:g" } },
  { datadog: { api_key: "k", ddtags: "a:b", service: "s", ddsite: "datadoghq.eu" } },
  {
    azure_logs_ingestion: {
      tenant_id: "t",
      client_id: "c",
      client_secret: "s",
      logs_ingestion_uri: "https://x",
      data_collection_rule_id: "d",
      data_collection_stream_name: "n",
    },
  },
];
const ED = "ed_" + "0".repeat(26) + "1";

/** [name, contract schema, former schema, camelCase on the wire, valid bodies]. */
const CASES: [string, z.ZodType, former.ObjectSchema, boolean, Record<string, unknown>[]][] = [
  [
    "abuse report",
    AbuseReportCreate,
    former.createAbuseReportSchema,
    false,
    [{ urls: ["https://a.example.com/x"], metadata: "m" }],
  ],
  [
    "subscription create",
    EventSubscriptionCreate,
    former.createSubscriptionSchema,
    false,
    [{ sources: [{ type: "ip_policy_created.v0" }], destination_ids: [ED], description: "d", metadata: "m" }],
  ],
  [
    "subscription update",
    EventSubscriptionUpdate,
    former.updateSubscriptionSchema,
    false,
    [{ description: "d" }, { id: "x", sources: [{ type: "ip_policy_updated.v0" }] }],
  ],
  [
    "destination create",
    EventDestinationCreate,
    former.createDestinationSchema,
    false,
    TARGETS.map((target) => ({ target, format: "json" })),
  ],
  [
    "destination update",
    EventDestinationUpdate,
    former.updateDestinationSchema,
    false,
    TARGETS.map((target) => ({ target, id: "x" })),
  ],
  ["review", Review, former.reviewSchema, false, [{ hostnames: [{ hostname: "a.org", status: "BANNED" }] }]],
  ["faults", FaultConfig, former.faultsSchema, true, [{ status503: 0.1, latencyMs: 200, seed: 7 }, {}]],
];

/** The former validator's first error, or "ok". */
function formerOutcome(body: Record<string, unknown>, schema: former.ObjectSchema): string {
  try {
    former.validate(body, schema);
    return "ok";
  } catch (e) {
    if (e instanceof ServiceError) return `${e.code} ${e.message}`;
    throw e;
  }
}
/** The contract's first error with values quoted, as the former validator wrote them. */
function contractOutcome(body: Record<string, unknown>, schema: z.ZodType, camel: boolean): string {
  const issue = validateRequest(schema, body, camel, true);
  return issue === undefined ? "ok" : `${issue.code} ${issue.message}`;
}

/** Replaces the value at a random path of `value` (objects and lists), or adds a key. */
function mutate(value: unknown, path: number[], replacement: unknown, key: string): unknown {
  if (path.length === 0 || value === null || typeof value !== "object") return replacement;
  const copy: Record<string, unknown> | unknown[] = Array.isArray(value)
    ? [...value]
    : { ...(value as object) };
  const keys = Object.keys(copy);
  if (keys.length === 0 || path[0] % (keys.length + 1) === keys.length) {
    (copy as Record<string, unknown>)[key] = replacement;
    return copy;
  }
  const k = keys[path[0] % keys.length];
  (copy as Record<string, unknown>)[k] = mutate(
    (copy as Record<string, unknown>)[k],
    path.slice(1),
    replacement,
    key,
  );
  return copy;
}

const replacement = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    "",
    "x".repeat(256),
    "é".repeat(4097),
    "🙂".repeat(256),
    "ftp://x",
    "https://",
    null,
    -1,
    1.5,
    2,
    600_001,
  ),
  fc.array(
    fc.constantFrom("a", "a", "A", { type: "ip_policy_created.v0" }, { hostname: "A.org", status: "BANNED" }),
    { maxLength: 12 },
  ),
);
const key = fc.constantFrom(
  "unknown",
  "destinationIds",
  "latency_ms",
  "id",
  "type",
  "role",
  "creds",
  "datadog",
  "kinesis",
  "__proto__x",
);

describe.each(CASES)("%s", (_name, schema, formerSchema, camel, valid) => {
  it("accepts the valid bodies, as the former validator did", () => {
    for (const body of valid) {
      expect(contractOutcome(body, schema, camel)).toBe("ok");
      expect(formerOutcome(body, formerSchema)).toBe("ok");
    }
  });

  it("gives the same first error as the former validator on 2,000 generated bodies", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...valid),
        fc.array(fc.nat(20), { minLength: 0, maxLength: 5 }),
        replacement,
        key,
        (base, path, value, k) => {
          const body = mutate(base, path, value, k);
          if (body === null || typeof body !== "object" || Array.isArray(body)) return;
          const b = body as Record<string, unknown>;
          expect(contractOutcome(b, schema, camel)).toBe(formerOutcome(b, formerSchema));
        },
      ),
      { numRuns: 2000, seed: 42 },
    );
  });
});

describe("validateRequest without quoteValues", () => {
  const MARK = "MARK_0b6e1f";
  const marked = fc.oneof(
    fc.constant(MARK),
    fc.constant(`https://${MARK}`),
    fc.constant([MARK, MARK]),
    fc.constant([{ type: MARK }, { type: MARK }]),
    fc.constant([
      { hostname: MARK, status: "BANNED" },
      { hostname: MARK, status: MARK },
    ]),
  );
  it.each(CASES)(
    "%s: the same code and field as with quoted values, and no value of the body in the message",
    (_name, schema, _former, camel, valid) => {
      fc.assert(
        fc.property(
          fc.constantFrom(...valid),
          fc.array(fc.nat(20), { minLength: 1, maxLength: 5 }),
          marked,
          key,
          (base, path, value, k) => {
            const body = mutate(base, path, value, k) as Record<string, unknown>;
            const quoted = validateRequest(schema, body, camel, true);
            const bare = validateRequest(schema, body, camel);
            expect(bare?.code).toBe(quoted?.code);
            expect(bare?.field).toBe(quoted?.field);
            if (bare) expect(bare.message).not.toContain(MARK);
          },
        ),
        { numRuns: 1000, seed: 7 },
      );
    },
  );

  it("quotes a rejected value only when asked", () => {
    const body = { target: { datadog: { api_key: "k" } }, format: MARK };
    expect(validateRequest(EventDestinationCreate, body)?.message).toBe('format: must be one of "json"');
    expect(validateRequest(EventDestinationCreate, body, false, true)?.message).toBe(
      `format: must be one of "json", got "${MARK}"`,
    );
  });
});
