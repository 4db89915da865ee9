/**
 * The `abuse_reports` table: reports with their hostnames' review statuses (a JSON column), the
 * automatic review on read, and the operator review. Reference: docs/service-api.md § Abuse reports.
 *
 * @packageDocumentation
 */
import { AbuseReportHostnameStatus, ID_PREFIX } from "service-contract";
import { ServiceError } from "../errors";
import type { AbuseReportRecord, StoredHostname } from "../resources";
import { autoReviewStatus } from "../review";
import { notFound, type StoreBase } from "./database";
import type { Store } from "./types";

const { PENDING } = AbuseReportHostnameStatus.enum;

interface AbuseReportRow {
  id: string;
  account_id: string;
  created_at: string;
  urls: string;
  metadata: string;
  hostnames: string;
}

function toReport(r: AbuseReportRow): AbuseReportRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    createdAt: r.created_at,
    urls: JSON.parse(r.urls) as string[],
    metadata: r.metadata,
    hostnames: JSON.parse(r.hostnames) as StoredHostname[],
  };
}

/** The abuse report methods of the store. */
export function abuseReportsRepository({
  db,
  write,
  mint,
}: StoreBase): Pick<Store, "createAbuseReport" | "getAbuseReport" | "reviewAbuseReport"> {
  const insert = db.prepare<[string, string, string, string, string, string]>(
    "INSERT INTO abuse_reports (id, account_id, created_at, urls, metadata, hostnames) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const byId = db.prepare<[string], AbuseReportRow>("SELECT * FROM abuse_reports WHERE id = ?");
  const ofAccount = db.prepare<[string, string], AbuseReportRow>(
    "SELECT * FROM abuse_reports WHERE id = ? AND account_id = ?",
  );
  const setHostnames = db.prepare<[string, string]>("UPDATE abuse_reports SET hostnames = ? WHERE id = ?");
  const countOf = db
    .prepare<[string], number>("SELECT COUNT(*) FROM abuse_reports WHERE account_id = ?")
    .pluck();
  return {
    createAbuseReport(accountId, input, now = Date.now(), maxPerAccount) {
      return write(() => {
        if (maxPerAccount !== undefined && (countOf.get(accountId) ?? 0) >= maxPerAccount) {
          throw new ServiceError(
            241,
            `this account already has ${maxPerAccount} abuse report${maxPerAccount === 1 ? "" : "s"}, the most an account may have; reports are never deleted, so no more can be created`,
          );
        }
        const { id, createdAt } = mint(ID_PREFIX.abuseReport);
        const hostnames: StoredHostname[] = input.hostnames.map((hostname) => ({
          hostname,
          status: AbuseReportHostnameStatus.enum.PENDING,
          pending_since_ms: now,
        }));
        insert.run(
          id,
          accountId,
          createdAt,
          JSON.stringify(input.urls),
          input.metadata,
          JSON.stringify(hostnames),
        );
        return { id, accountId, createdAt, urls: input.urls, metadata: input.metadata, hostnames };
      });
    },

    getAbuseReport(accountId, id, autoReview) {
      const read = () => (accountId === null ? byId.get(id) : ofAccount.get(id, accountId));
      const row = read();
      if (!row) return undefined;
      const report = toReport(row);
      if (!autoReview) return report;
      const due = (h: StoredHostname) =>
        h.status === PENDING && autoReview.nowMs - h.pending_since_ms >= autoReview.delayMs;
      if (!report.hostnames.some(due)) return report;
      return write(() => {
        const fresh = read();
        if (!fresh) return undefined;
        const r = toReport(fresh);
        for (const h of r.hostnames) if (due(h)) h.status = autoReviewStatus(h.hostname);
        setHostnames.run(JSON.stringify(r.hostnames), r.id);
        return r;
      });
    },

    reviewAbuseReport(id, updates, now = Date.now()) {
      return write(() => {
        const row = byId.get(id);
        if (!row) throw notFound("abuse report", id);
        const r = toReport(row);
        updates.forEach((u, i) => {
          const h = r.hostnames.find((x) => x.hostname === u.hostname.toLowerCase());
          if (!h) {
            throw new ServiceError(
              215,
              `hostnames[${i}].hostname: not a hostname of abuse report ${id} (it has ${r.hostnames.map((x) => x.hostname).join(", ")})`,
            );
          }
          if (u.status === PENDING && h.status !== PENDING) h.pending_since_ms = now;
          h.status = u.status;
        });
        setHostnames.run(JSON.stringify(r.hostnames), id);
        return r;
      });
    },
  };
}
