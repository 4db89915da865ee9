/**
 * Stored records of the emulator and their wire form (docs/service-api.md § Requests, § Event subscriptions, § Event destinations).
 *
 * @packageDocumentation
 */
import { SECRET_PATHS } from "../contract/eventDestination";
import { camelToSnake, snakeToCamel } from "../contract/wire";
import type { HostnameStatus, ReportStatus } from "./review";
import { reportStatus } from "./review";
import { TARGET_KINDS, type AwsAuth, type TargetInput } from "./body";

/** One account; each API key is its own account. */
export interface Account {
  /** `acct_` + 27 base62 characters; appears in the request log, never on the public API. */
  id: string;
  /** Whether the account may create and read abuse reports (otherwise 403 / 221). */
  abuseReportsAuthorized: boolean;
}

/** One hostname of a stored abuse report. */
export interface StoredHostname {
  /** Lower-cased hostname from one of the report's URLs. */
  hostname: string;
  status: HostnameStatus;
  /** When the hostname last became `PENDING`, in **milliseconds** since the Unix epoch. */
  pending_since_ms: number;
}

/** A stored abuse report. */
export interface AbuseReportRecord {
  id: string;
  accountId: string;
  /** RFC 3339, whole seconds, UTC. */
  createdAt: string;
  urls: string[];
  metadata: string;
  hostnames: StoredHostname[];
}

/** A stored event subscription. */
export interface SubscriptionRecord {
  id: string;
  accountId: string;
  /** RFC 3339, whole seconds, UTC. */
  createdAt: string;
  metadata: string;
  description: string;
  /** Event types in the order given. */
  sources: string[];
  /** `ed_` IDs in the order given. */
  destinationIds: string[];
}

/** The AWS auth of a stored target: exactly one member. */
export type StoredAwsAuth =
  { role: { role_arn: string } } | { creds: { aws_access_key_id: string; aws_secret_access_key: string } };

/** A stored target: exactly one kind, every field of that kind filled in, secrets included. */
export type StoredTarget =
  | { firehose: { auth: StoredAwsAuth; delivery_stream_arn: string } }
  | { kinesis: { auth: StoredAwsAuth; stream_arn: string } }
  | { cloudwatch_logs: { auth: StoredAwsAuth; log_group_arn: string } }
  | { datadog: { api_key: string; ddtags: string; service: string; ddsite: string } }
  | {
      azure_logs_ingestion: {
        tenant_id: string;
        client_id: string;
        client_secret: string;
        logs_ingestion_uri: string;
        data_collection_rule_id: string;
        data_collection_stream_name: string;
      };
    };

/** A stored event destination. */
export interface DestinationRecord {
  id: string;
  accountId: string;
  /** RFC 3339, whole seconds, UTC. */
  createdAt: string;
  metadata: string;
  description: string;
  /** Always `json`. */
  format: string;
  /** Secrets included; {@link renderDestination} blanks them. */
  target: StoredTarget;
}

function normalizeAuth(auth: AwsAuth): StoredAwsAuth {
  if (auth.role) return { role: { role_arn: auth.role.role_arn } };
  const c = auth.creds!;
  return {
    creds: { aws_access_key_id: c.aws_access_key_id, aws_secret_access_key: c.aws_secret_access_key },
  };
}

/**
 * Reduces a validated target to its one kind with every field present (optional datadog fields
 * become `""`) and no `null` members.
 */
export function normalizeTarget(t: TargetInput): StoredTarget {
  if (t.firehose)
    return {
      firehose: { auth: normalizeAuth(t.firehose.auth), delivery_stream_arn: t.firehose.delivery_stream_arn },
    };
  if (t.kinesis)
    return { kinesis: { auth: normalizeAuth(t.kinesis.auth), stream_arn: t.kinesis.stream_arn } };
  if (t.cloudwatch_logs) {
    return {
      cloudwatch_logs: {
        auth: normalizeAuth(t.cloudwatch_logs.auth),
        log_group_arn: t.cloudwatch_logs.log_group_arn,
      },
    };
  }
  if (t.datadog) {
    const d = t.datadog;
    return {
      datadog: {
        api_key: d.api_key,
        ddtags: d.ddtags ?? "",
        service: d.service ?? "",
        ddsite: d.ddsite ?? "",
      },
    };
  }
  const a = t.azure_logs_ingestion!;
  return {
    azure_logs_ingestion: {
      tenant_id: a.tenant_id,
      client_id: a.client_id,
      client_secret: a.client_secret,
      logs_ingestion_uri: a.logs_ingestion_uri,
      data_collection_rule_id: a.data_collection_rule_id,
      data_collection_stream_name: a.data_collection_stream_name,
    },
  };
}

/** Kind of a stored target, e.g. `kinesis`. */
export function targetKind(t: StoredTarget): (typeof TARGET_KINDS)[number] {
  return TARGET_KINDS.find((k) => k in t)!;
}

/**
 * The target as responses show it: every field the contract marks write-only (AWS secret
 * access keys, the Datadog API key, the Azure client secret) replaced by `""`.
 */
export function redactTarget(t: StoredTarget): StoredTarget {
  const copy = JSON.parse(JSON.stringify(t)) as Record<string, Record<string, unknown>>;
  const wireKind = Object.keys(copy)[0];
  for (const path of SECRET_PATHS[snakeToCamel(wireKind)] ?? []) {
    let holder: Record<string, unknown> | undefined = copy[wireKind];
    const wirePath = path.map(camelToSnake);
    for (const key of wirePath.slice(0, -1)) {
      const next: unknown = holder?.[key];
      holder = next && typeof next === "object" ? (next as Record<string, unknown>) : undefined;
    }
    const field = wirePath[wirePath.length - 1];
    if (holder && field in holder) holder[field] = "";
  }
  return copy as unknown as StoredTarget;
}

/** Wire form of an abuse report (docs/service-api.md § Abuse reports). */
export interface AbuseReportView {
  id: string;
  uri: string;
  created_at: string;
  urls: string[];
  metadata: string;
  status: ReportStatus;
  hostnames: { hostname: string; status: HostnameStatus }[];
}

/** Wire form of an event subscription (docs/service-api.md § Event subscriptions). */
export interface SubscriptionView {
  id: string;
  uri: string;
  created_at: string;
  metadata: string;
  description: string;
  sources: { type: string; uri: string }[];
  destinations: { id: string; uri: string }[];
}

/** Wire form of an event destination (docs/service-api.md § Event destinations). */
export interface DestinationView {
  id: string;
  uri: string;
  created_at: string;
  metadata: string;
  description: string;
  format: string;
  target: StoredTarget;
}

/** Renders an abuse report; `base` is the absolute base URL without a trailing slash. */
export function renderAbuseReport(r: AbuseReportRecord, base: string): AbuseReportView {
  return {
    id: r.id,
    uri: `${base}/abuse_reports/${r.id}`,
    created_at: r.createdAt,
    urls: r.urls,
    metadata: r.metadata,
    status: reportStatus(r.hostnames),
    hostnames: r.hostnames.map((h) => ({ hostname: h.hostname, status: h.status })),
  };
}

/** Renders an event subscription with absolute source and destination URIs. */
export function renderSubscription(s: SubscriptionRecord, base: string): SubscriptionView {
  const uri = `${base}/event_subscriptions/${s.id}`;
  return {
    id: s.id,
    uri,
    created_at: s.createdAt,
    metadata: s.metadata,
    description: s.description,
    sources: s.sources.map((type) => ({ type, uri: `${uri}/sources/${type}` })),
    destinations: s.destinationIds.map((id) => ({ id, uri: `${base}/event_destinations/${id}` })),
  };
}

/** Renders an event destination with its secrets blanked. */
export function renderDestination(d: DestinationRecord, base: string): DestinationView {
  return {
    id: d.id,
    uri: `${base}/event_destinations/${d.id}`,
    created_at: d.createdAt,
    metadata: d.metadata,
    description: d.description,
    format: d.format,
    target: redactTarget(d.target),
  };
}
