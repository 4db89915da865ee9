/**
 * The emulator's operator endpoints (not part of the service's public API): review of abuse
 * reports, injected faults, the request log, and API keys added to or revoked from an account
 * (key rotation). Admin key only. Reference: docs/service-api.md
 * § Operator endpoints.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { AbuseReportHostnameStatus } from "./abuseReport";
import { apiKey, filled, integer, list } from "./checks";

/** Body of `POST /_operator/abuse_reports/{id}/review`: statuses to set, by hostname. */
export const Review = z.strictObject({
  hostnames: list(z.strictObject({ hostname: filled(), status: AbuseReportHostnameStatus }), {
    min: 1,
    unique: { key: "hostname", what: "hostname", caseInsensitive: true },
  }),
});
/** Body of an operator review (see the schema of the same name). */
export type Review = z.infer<typeof Review>;

/** A share between 0 and 1. */
const share = () =>
  z
    .number()
    .min(0, { error: "must be a share between 0 and 1" })
    .max(1, { error: "must be a share between 0 and 1" });

/**
 * The share members of {@link FaultConfig}, in the order the emulator draws them (one random
 * number per request against their running sum: a share added later never changes what a seed
 * drew for the earlier ones).
 */
export const FAULT_SHARES = [
  "status503",
  "status429",
  "reset",
  "resetAfter",
  "status500",
  "status502",
  "status500After",
  "status502After",
  "status503After",
  "truncate",
  "slow",
  "slowAfter",
] as const;

/** Largest round trip the emulator's latency accepts: 600,000 **milliseconds** (10 minutes: a slow service for timeout tests). */
export const LATENCY_MAX_MS = 600_000;

/** A whole number of milliseconds from 0 to {@link LATENCY_MAX_MS}. */
const latencyMs = () =>
  integer()
    .min(0, { error: `must be a whole number of milliseconds from 0 to ${LATENCY_MAX_MS}` })
    .max(LATENCY_MAX_MS, { error: `must be a whole number of milliseconds from 0 to ${LATENCY_MAX_MS}` });

/**
 * The members of {@link FaultConfig}, each with its own rule: shares of public requests (0 to 1
 * each, one member per entry of {@link FAULT_SHARES}) answered 503, 429, 500 or 502 before
 * anything runs, reset before or after the handler, answered 500, 502 or 503 after the handler
 * committed, cut mid-body, or held before or after the handler; how long a held request is held
 * (`slowMs`, in **milliseconds**, at most 10 minutes); the round trip added to every public
 * request (`latencyMs`) and its jitter (`latencyJitterMs`, each round trip drawn uniformly within
 * `latencyMs ± latencyJitterMs`), whole **milliseconds** from 0 to {@link LATENCY_MAX_MS}, the
 * jitter at most the latency; and an integer seed.
 */
const FaultFields = z.strictObject({
  ...(Object.fromEntries(FAULT_SHARES.map((key) => [key, share().optional()])) as Record<
    (typeof FAULT_SHARES)[number],
    z.ZodOptional<z.ZodNumber>
  >),
  slowMs: z.number().min(0).max(600_000).optional(),
  latencyMs: latencyMs().optional(),
  latencyJitterMs: latencyMs().optional(),
  seed: integer().optional(),
});
/** The emulator's fault injection (see the schema of the same name). */
export type FaultConfig = z.infer<typeof FaultConfig>;

/** The sum of the shares of a fault configuration (absent shares count 0). */
function sharesSum(cfg: Partial<Record<(typeof FAULT_SHARES)[number], number>>): number {
  return FAULT_SHARES.reduce((sum, key) => sum + (cfg[key] ?? 0), 0);
}

/**
 * The emulator's fault injection (`GET`/`PUT /_operator/faults`, `--faults`, `createApp`): the
 * members' own rules (see `FaultFields`), the shares adding up to at most 1 (one random draw
 * picks at most one fault), and `slowMs` given whenever `slow` or `slowAfter` is. The one
 * definition of these rules: the operator endpoint, the command line and `createApp` all check
 * against it.
 */
export const FaultConfig = FaultFields.refine((cfg) => sharesSum(cfg) <= 1 + 1e-9, {
  // Names the rule for whatever maps issues onto the service's codes (a 215 with this message).
  params: { rule: "shares-sum" },
  error: (issue) =>
    `the shares of the faults add up to ${sharesSum(issue.input as Record<string, number>)}, more than 1`,
})
  .refine((cfg) => cfg.slowMs !== undefined || !((cfg.slow ?? 0) > 0 || (cfg.slowAfter ?? 0) > 0), {
    params: { rule: "slow-ms" },
    path: ["slowMs"],
    error: "required when slow or slowAfter is set (how long a held request is held, in ms)",
  })
  .refine((cfg) => (cfg.latencyJitterMs ?? 0) <= (cfg.latencyMs ?? 0), {
    params: { rule: "latency-jitter" },
    path: ["latencyJitterMs"],
    error: (issue) =>
      `must be at most latencyMs (${(issue.input as { latencyMs?: number }).latencyMs ?? 0}), the round trip it varies`,
  });

/** One entry of the emulator's request log (wire names are the snake_case of these). */
export const RequestLogEntry = z.object({
  seq: z.number().int(),
  time: z.string(),
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  operationId: z.string(),
  accountId: z.string().nullable(),
  fault: z.string().nullable(),
  idempotentReplay: z.boolean(),
});
/** One entry of the emulator's request log. */
export type RequestLogEntry = z.infer<typeof RequestLogEntry>;

/** One page of `GET /_operator/requests` (oldest first). */
export const RequestLogPage = z.object({
  requests: z.array(RequestLogEntry),
  nextPageUri: z.string().nullable(),
});
/** One page of the request log. */
export type RequestLogPage = z.infer<typeof RequestLogPage>;

/**
 * Body of `POST /_operator/keys`: `api_key`, a key no account has, becomes a key of the account
 * of `same_account_as`, a key the emulator accepts (key rotation).
 */
export const ApiKeyAdd = z.strictObject({
  apiKey: apiKey(),
  sameAccountAs: apiKey(),
});
/** Body of `POST /_operator/keys` (see the schema of the same name). */
export type ApiKeyAdd = z.infer<typeof ApiKeyAdd>;

/** Body of `POST /_operator/keys/revoke`: the key to revoke (it answers 401 / 203 from then on). */
export const ApiKeyRevoke = z.strictObject({ apiKey: apiKey() });
/** Body of `POST /_operator/keys/revoke` (see the schema of the same name). */
export type ApiKeyRevoke = z.infer<typeof ApiKeyRevoke>;

/**
 * Answer of `POST /_operator/keys` and `POST /_operator/keys/revoke`: the account the key was
 * added to or revoked from (its ID, as in the request log) and how many keys it has now. Never
 * a key.
 */
export const ApiKeyAccount = z.object({
  accountId: z.string().meta({ description: "the account (`acct_…`), as the request log names it" }),
  keyCount: z
    .number()
    .int()
    .min(0)
    .meta({ description: "the account's keys that the emulator accepts, after the change" }),
});
/** Answer of the key endpoints (see the schema of the same name). */
export type ApiKeyAccount = z.infer<typeof ApiKeyAccount>;
