/**
 * Stored records of the emulator and their wire form (docs/service-api.md § Requests, § Event subscriptions, § Event destinations).
 *
 * @packageDocumentation
 */
import type { z } from "zod";
import {
  EventDestination,
  EventDestinationCreate,
  type AbuseReport,
  type EventDestinationUpdate,
  type EventSubscription,
} from "service-contract";
import { blankWriteOnly, complete, RESOURCES, writableFields, type Wire } from "service-contract";
import type { HostnameStatus } from "./review";
import { reportStatus } from "./review";

const { abuseReport, eventDestination, eventSubscription } = RESOURCES;

/**
 * A stored resource: its ID, account and creation time; each resource's record adds one member
 * per column of its table (store/resourceTable.ts).
 */
export interface StoredRecord {
  id: string;
  accountId: string;
  /** RFC 3339, whole seconds, UTC. */
  createdAt: string;
}

/** One account, with one API key or more (keys added and revoked by the operator: key rotation). */
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
export interface AbuseReportRecord extends StoredRecord {
  urls: string[];
  metadata: string;
  hostnames: StoredHostname[];
}

/** A stored event subscription. */
export interface SubscriptionRecord extends StoredRecord {
  metadata: string;
  description: string;
  /** Event types in the order given. */
  sources: string[];
  /** `ed_` IDs in the order given. */
  destinationIds: string[];
}

/**
 * The fields of a stored destination, in wire form: each field of the create body, completed
 * (left-out optional strings `""`, the target reduced to its one kind), secrets included.
 */
export type DestinationFields = Omit<Wire<EventDestination>, "id" | "uri" | "created_at">;

/** A stored event destination. */
export type DestinationRecord = StoredRecord & DestinationFields;

/**
 * The fields of a validated create body (`partial`: a PATCH body, only the fields it sends) as
 * stored: completed by the contract (see `complete`), defaults for fields left out of a create.
 */
export function destinationFields(
  body: Wire<EventDestinationUpdate>,
  partial: boolean,
): Partial<DestinationFields> {
  const out: Record<string, unknown> = {};
  const given = body as Record<string, unknown>;
  const shape = EventDestinationCreate.shape as Record<string, z.ZodType>;
  for (const field of writableFields(EventDestinationCreate)) {
    const value = given[field.wire];
    if (value !== undefined) out[field.wire] = complete(shape[field.name], value, { wire: true });
    else if (!partial) out[field.wire] = field.default;
  }
  return out as Partial<DestinationFields>;
}

/** Wire form of an abuse report (the contract's `AbuseReport`; docs/service-api.md § Abuse reports). */
export type AbuseReportView = Wire<AbuseReport>;

/** Wire form of an event subscription (the contract's `EventSubscription`). */
export type SubscriptionView = Wire<EventSubscription>;

/** Wire form of an event destination (docs/service-api.md § Event destinations). */
export type DestinationView = Wire<EventDestination>;

/** Renders an abuse report; `base` is the absolute base URL without a trailing slash. */
export function renderAbuseReport(r: AbuseReportRecord, base: string): AbuseReportView {
  return {
    id: r.id,
    uri: `${base}${abuseReport.path}/${r.id}`,
    created_at: r.createdAt,
    urls: r.urls,
    metadata: r.metadata,
    status: reportStatus(r.hostnames),
    hostnames: r.hostnames.map((h) => ({ hostname: h.hostname, status: h.status })),
  };
}

/** Renders an event subscription with absolute source and destination URIs. */
export function renderSubscription(s: SubscriptionRecord, base: string): SubscriptionView {
  const uri = `${base}${eventSubscription.path}/${s.id}`;
  return {
    id: s.id,
    uri,
    created_at: s.createdAt,
    metadata: s.metadata,
    description: s.description,
    sources: s.sources.map((type) => ({ type, uri: `${uri}/sources/${type}` })),
    destinations: s.destinationIds.map((id) => ({ id, uri: `${base}${eventDestination.path}/${id}` })),
  };
}

/** Renders an event destination with its write-only secrets blanked, fields in the contract's order. */
export function renderDestination(d: DestinationRecord, base: string): DestinationView {
  const view: Record<string, unknown> = {
    id: d.id,
    uri: `${base}${eventDestination.path}/${d.id}`,
    created_at: d.createdAt,
  };
  const stored = d as unknown as Record<string, unknown>;
  for (const field of writableFields(EventDestinationCreate)) view[field.wire] = stored[field.wire];
  return blankWriteOnly(EventDestination, view, { wire: true }) as DestinationView;
}
