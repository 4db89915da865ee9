/**
 * Shared inputs and assertions of the emulator tests.
 */
import type { Wire } from "service-contract";
import type { EventDestinationCreate } from "service-contract";
import { ErrorReply } from "../../packages/emulator/errorReply";
import { destinationFields, type DestinationFields } from "../../packages/emulator/records";
import { openStore } from "../../packages/emulator/store";
import type { RequestLogInput, Store } from "../../packages/emulator/store/types";
import type { RawResponse } from "./emulator";

/** `prefix` + 27 base62 characters. */
export const idPattern = (prefix: string) => new RegExp(`^${prefix}[0-9A-Za-z]{27}$`);

/** RFC 3339 UTC with whole seconds. */
export const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** A well-formed ID of the given prefix that names nothing. */
export const absentId = (prefix: string) => prefix + "0".repeat(26) + "1";

/** Destination targets, one per kind and auth variant, as a client sends them. */
export const TARGETS = {
  "firehose with role": {
    firehose: {
      auth: { role: { role_arn: "arn:aws:iam::123:role/r" } },
      delivery_stream_arn: "arn:aws:firehose:s",
    },
  },
  "kinesis with creds": {
    kinesis: {
      auth: { creds: { aws_access_key_id: "AKIA1", aws_secret_access_key: "secret-1" } },
      stream_arn: "arn:aws:kinesis:s",
    },
  },
  "cloudwatch_logs with creds": {
    cloudwatch_logs: {
      auth: { creds: { aws_access_key_id: "AKIA2", aws_secret_access_key: "secret-2" } },
      log_group_arn: "arn:aws:logs:g",
    },
  },
  datadog: { datadog: { api_key: "dd-secret", ddtags: "env:test", service: "svc", ddsite: "datadoghq.eu" } },
  azure_logs_ingestion: {
    azure_logs_ingestion: {
      tenant_id: "t",
      client_id: "c",
      client_secret: "az-secret",
      logs_ingestion_uri: "https://x.ingest.monitor.azure.com",
      data_collection_rule_id: "dcr-1",
      data_collection_stream_name: "Custom-Stream",
    },
  },
} as const;

/** Wire names of the targets' write-only secrets, which the API returns as `""`. */
const SECRET_FIELDS = ["aws_secret_access_key", "api_key", "client_secret"];

/** `value` with every member named in {@link SECRET_FIELDS}, at any depth, replaced by `""`. */
const blankSecrets = (value: unknown): unknown =>
  value === null || typeof value !== "object"
    ? value
    : Array.isArray(value)
      ? value.map(blankSecrets)
      : Object.fromEntries(
          Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.includes(k) ? "" : blankSecrets(v)]),
        );

/** What the API returns for each of {@link TARGETS}: secrets blanked (every optional field is already given). */
export const TARGETS_AS_RETURNED = Object.fromEntries(
  Object.entries(TARGETS).map(([kind, target]) => [kind, blankSecrets(target)]),
) as Record<keyof typeof TARGETS, unknown>;

/** A minimal valid destination body. */
export const destinationBody = (extra: Record<string, unknown> = {}) => ({
  target: TARGETS["kinesis with creds"],
  ...extra,
});

/**
 * What the store takes for a destination made by a create with this body (wire names; fields
 * left out get their defaults, as the route gives them), by default a Datadog target.
 */
export const storedDestination = (body: Partial<Wire<EventDestinationCreate>> = {}): DestinationFields =>
  destinationFields(
    { target: { datadog: { api_key: "k", ddtags: "", service: "", ddsite: "" } }, ...body },
    false,
  ) as DestinationFields;

/** Runs `fn` with a fresh in-memory store, and closes the store after it, whatever happens. */
export function withMemoryStore<T>(fn: (store: Store) => T): T {
  const store = openStore(":memory:");
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** A minimal valid subscription body. */
export const subscriptionBody = (destinationIds: string[], extra: Record<string, unknown> = {}) => ({
  sources: [{ type: "ip_policy_created.v0" }],
  destination_ids: destinationIds,
  ...extra,
});

/**
 * Asserts that `res` is an error response of the service with this status and code, that its body
 * has exactly the four members, and that its operation ID matches the `Operation-Id` header.
 */
export function expectError(res: RawResponse, status: number, code: number, msg?: string | RegExp): void {
  const body = res.json();
  expect({ status: res.status, code: body?.error_code }).toEqual({ status, code: `ERR_SERVICE_${code}` });
  expect(Object.keys(body).sort()).toEqual(["details", "error_code", "msg", "status_code"]);
  expect(body.status_code).toBe(status);
  expect(typeof body.msg).toBe("string");
  expect(body.msg.length).toBeGreaterThan(0);
  expect(body.details).toEqual({ operation_id: res.headers["operation-id"] });
  expect(res.headers["operation-id"]).toMatch(idPattern("op_"));
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  if (msg !== undefined) expect(body.msg).toMatch(msg);
}

/** An entry of the request log, as the request-log plugin hands it to the store: a GET of `path`. */
export const requestLogEntry = (path: string): RequestLogInput => ({
  time: new Date(0).toISOString(),
  method: "GET",
  path,
  status: 200,
  operation_id: "op_x",
  account_id: null,
});

/**
 * The {@link ErrorReply} a store call throws, as its service error code and message.
 * @throws Error when `fn` returns instead, or throws anything but an ErrorReply (the test fails).
 */
export function refusal(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ErrorReply);
    return { code: (e as ErrorReply).code, message: (e as Error).message };
  }
  throw new Error("expected a refusal");
}
