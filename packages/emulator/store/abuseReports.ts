/**
 * Abuse reports: the contract's resource table (see `resourceTable.ts`) with one column more, the
 * hostnames' review statuses (JSON); the bound on reports per account, the automatic review on
 * read, and the operator review. Reference: docs/service-api.md § Abuse reports.
 *
 * @packageDocumentation
 */
import { AbuseReportHostnameStatus, RESOURCES } from "service-contract";
import { ErrorReply } from "../errorReply";
import type { AbuseReportRecord, StoredHostname } from "../records";
import { autoReviewStatus } from "../review";
import type { StoreBase } from "./database";
import { resourceTable, type Column } from "./resourceTable";
import type { Store } from "./types";

const { PENDING } = AbuseReportHostnameStatus.enum;

/** The column besides the create body's: each hostname's status and when it became `PENDING`. */
const HOSTNAMES: Column = { column: "hostnames", key: "hostnames", structured: true, default: [] };

/** The abuse report methods of the store. */
export function abuseReportsRepository(
  base: StoreBase,
): Pick<Store, "createAbuseReport" | "getAbuseReport" | "reviewAbuseReport"> {
  const { write } = base;
  const table = resourceTable<AbuseReportRecord>(base, RESOURCES.abuseReport, [HOSTNAMES]);
  return {
    createAbuseReport(accountId, input, now = Date.now(), maxPerAccount) {
      return write(() => {
        if (maxPerAccount !== undefined && table.count(accountId) >= maxPerAccount) {
          throw new ErrorReply(
            241,
            `this account already has ${maxPerAccount} abuse report${maxPerAccount === 1 ? "" : "s"}, the most an account may have; reports are never deleted, so no more can be created`,
          );
        }
        const hostnames: StoredHostname[] = input.hostnames.map((hostname) => ({
          hostname,
          status: PENDING,
          pending_since_ms: now,
        }));
        return table.insert(accountId, { urls: input.urls, metadata: input.metadata, hostnames });
      });
    },

    getAbuseReport(accountId, id, autoReview) {
      const read = () => (accountId === null ? table.getAny(id) : table.get(accountId, id));
      const report = read();
      if (!report || !autoReview) return report;
      const due = (h: StoredHostname) =>
        h.status === PENDING && autoReview.nowMs - h.pending_since_ms >= autoReview.delayMs;
      if (!report.hostnames.some(due)) return report;
      return write(() => {
        const r = read();
        if (!r) return undefined;
        for (const h of r.hostnames) if (due(h)) h.status = autoReviewStatus(h.hostname);
        table.save(r);
        return r;
      });
    },

    reviewAbuseReport(id, updates, now = Date.now()) {
      return write(() => {
        const r = table.getAny(id);
        if (!r) throw table.notFound(id);
        updates.forEach((u, i) => {
          const h = r.hostnames.find((x) => x.hostname === u.hostname.toLowerCase());
          if (!h) {
            throw new ErrorReply(
              215,
              `hostnames[${i}].hostname: not a hostname of abuse report ${id} (it has ${r.hostnames.map((x) => x.hostname).join(", ")})`,
            );
          }
          if (u.status === PENDING && h.status !== PENDING) h.pending_since_ms = now;
          h.status = u.status;
        });
        table.save(r);
        return r;
      });
    },
  };
}
