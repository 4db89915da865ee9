/**
 * The `event_subscriptions` table and its link table `subscription_destinations` (which makes
 * "is this destination used" an indexed lookup). Every destination ID must name a destination of
 * the account (223). Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import { ID_PREFIX, isWellFormedId } from "service-contract";
import { ServiceError } from "../errors";
import type { SubscriptionRecord } from "../resources";
import { ownedRows, type StoreBase } from "./database";
import type { Store } from "./types";

interface SubscriptionRow {
  id: string;
  account_id: string;
  created_at: string;
  metadata: string;
  description: string;
  sources: string;
  destination_ids: string;
}

function toSubscription(r: SubscriptionRow): SubscriptionRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    createdAt: r.created_at,
    metadata: r.metadata,
    description: r.description,
    sources: JSON.parse(r.sources) as string[],
    destinationIds: JSON.parse(r.destination_ids) as string[],
  };
}

/**
 * The subscription methods of the store; `destinationExists` tells whether a destination ID
 * names a destination of the account.
 */
export function eventSubscriptionsRepository(
  { db, write, mint }: StoreBase,
  destinationExists: (accountId: string, id: string) => boolean,
): Pick<
  Store,
  "createSubscription" | "getSubscription" | "listSubscriptions" | "updateSubscription" | "deleteSubscription"
> {
  const insert = db.prepare<[string, string, string, string, string, string, string]>(
    "INSERT INTO event_subscriptions (id, account_id, created_at, metadata, description, sources, destination_ids) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const rows = ownedRows(db, "event_subscriptions", "event subscription", toSubscription);
  const update = db.prepare<[string, string, string, string, string]>(
    "UPDATE event_subscriptions SET metadata = ?, description = ?, sources = ?, destination_ids = ? WHERE id = ?",
  );
  const remove = db.prepare<[string]>("DELETE FROM event_subscriptions WHERE id = ?");
  const insertLink = db.prepare<[string, string]>(
    "INSERT INTO subscription_destinations (subscription_id, destination_id) VALUES (?, ?)",
  );
  const deleteLinks = db.prepare<[string]>("DELETE FROM subscription_destinations WHERE subscription_id = ?");

  /** 223 for the first ID that names no destination of the account; only a well-formed ID is quoted. */
  function requireDestinations(accountId: string, destinationIds: string[]): void {
    destinationIds.forEach((id, i) => {
      if (destinationExists(accountId, id)) return;
      const what = isWellFormedId(id, ID_PREFIX.eventDestination)
        ? `${JSON.stringify(id)} is not an event destination of this account`
        : `not an event destination ID (${ID_PREFIX.eventDestination}…)`;
      throw new ServiceError(223, `destination_ids[${i}]: ${what}`);
    });
  }
  function link(subscriptionId: string, destinationIds: string[]): void {
    deleteLinks.run(subscriptionId);
    for (const d of destinationIds) insertLink.run(subscriptionId, d);
  }

  return {
    createSubscription(accountId, input) {
      return write(() => {
        requireDestinations(accountId, input.destinationIds);
        const { id, createdAt } = mint(ID_PREFIX.eventSubscription);
        insert.run(
          id,
          accountId,
          createdAt,
          input.metadata,
          input.description,
          JSON.stringify(input.sources),
          JSON.stringify(input.destinationIds),
        );
        link(id, input.destinationIds);
        return { id, accountId, createdAt, ...input };
      });
    },

    getSubscription: rows.get,
    listSubscriptions: rows.list,

    updateSubscription(accountId, id, patch) {
      return write(() => {
        const s = rows.require(accountId, id);
        if (patch.destinationIds) requireDestinations(accountId, patch.destinationIds);
        const next: SubscriptionRecord = {
          ...s,
          metadata: patch.metadata ?? s.metadata,
          description: patch.description ?? s.description,
          sources: patch.sources ?? s.sources,
          destinationIds: patch.destinationIds ?? s.destinationIds,
        };
        update.run(
          next.metadata,
          next.description,
          JSON.stringify(next.sources),
          JSON.stringify(next.destinationIds),
          id,
        );
        if (patch.destinationIds) link(id, next.destinationIds);
        return next;
      });
    },

    deleteSubscription(accountId, id) {
      write(() => {
        rows.require(accountId, id);
        remove.run(id);
      });
    },
  };
}
