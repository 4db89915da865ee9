/**
 * Event subscriptions: the contract's resource table (see `resourceTable.ts`) and the link table
 * `subscription_destinations` (which makes "is this destination used" an indexed lookup). Every destination ID must name a destination of
 * the account (223). Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import { isWellFormedId, RESOURCES } from "service-contract";
import { ErrorReply } from "../errorReply";
import type { SubscriptionRecord } from "../records";
import type { StoreBase } from "./database";
import { resourceTable } from "./resourceTable";
import type { Store } from "./types";

/**
 * The subscription methods of the store; `destinationExists` tells whether a destination ID
 * names a destination of the account.
 */
export function eventSubscriptionsRepository(
  base: StoreBase,
  destinationExists: (accountId: string, id: string) => boolean,
): Pick<
  Store,
  "createSubscription" | "getSubscription" | "listSubscriptions" | "updateSubscription" | "deleteSubscription"
> {
  const { db, write } = base;
  const table = resourceTable<SubscriptionRecord>(base, RESOURCES.eventSubscription);
  const destinations = RESOURCES.eventDestination;
  const insertLink = db.prepare<[string, string]>(
    "INSERT INTO subscription_destinations (subscription_id, destination_id) VALUES (?, ?)",
  );
  const deleteLinks = db.prepare<[string]>("DELETE FROM subscription_destinations WHERE subscription_id = ?");

  /** 223 for the first ID that names no destination of the account; only a well-formed ID is quoted. */
  function requireDestinations(accountId: string, destinationIds: string[]): void {
    destinationIds.forEach((id, i) => {
      if (destinationExists(accountId, id)) return;
      const what = isWellFormedId(id, destinations.idPrefix)
        ? `${JSON.stringify(id)} is not ${destinations.names.article} of this account`
        : `not ${destinations.names.article} ID (${destinations.idPrefix}…)`;
      throw new ErrorReply(223, `destination_ids[${i}]: ${what}`);
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
        const sub = table.insert(accountId, input);
        link(sub.id, input.destinationIds);
        return sub;
      });
    },

    getSubscription: table.get,
    listSubscriptions: table.list,

    updateSubscription(accountId, id, patch) {
      return write(() => {
        const s = table.require(accountId, id);
        if (patch.destinationIds) requireDestinations(accountId, patch.destinationIds);
        const next: SubscriptionRecord = {
          ...s,
          metadata: patch.metadata ?? s.metadata,
          description: patch.description ?? s.description,
          sources: patch.sources ?? s.sources,
          destinationIds: patch.destinationIds ?? s.destinationIds,
        };
        table.save(next);
        if (patch.destinationIds) link(id, next.destinationIds);
        return next;
      });
    },

    deleteSubscription(accountId, id) {
      write(() => {
        table.require(accountId, id);
        table.remove(id);
      });
    },
  };
}
