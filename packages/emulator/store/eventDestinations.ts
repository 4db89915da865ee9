/**
 * Event destinations: the contract's resource table (one column per field of the create body,
 * the target a JSON column, secrets included; responses blank them). A destination a
 * subscription still uses cannot be deleted (409). Reference: docs/service-api.md § Event
 * destinations.
 *
 * @packageDocumentation
 */
import { RESOURCES } from "service-contract";
import { ErrorReply } from "../errorReply";
import type { DestinationRecord } from "../records";
import type { StoreBase } from "./database";
import { resourceTable } from "./resourceTable";
import type { Store } from "./types";

/** The destination methods of the store, and `exists` for the subscriptions' references. */
export function eventDestinationsRepository(
  base: StoreBase,
): Pick<
  Store,
  "createDestination" | "getDestination" | "listDestinations" | "updateDestination" | "deleteDestination"
> & { exists(accountId: string, id: string): boolean } {
  const { db, write } = base;
  const table = resourceTable<DestinationRecord>(base, RESOURCES.eventDestination);
  const referencing = db.prepare<[string], { subscription_id: string }>(
    "SELECT subscription_id FROM subscription_destinations WHERE destination_id = ? ORDER BY subscription_id LIMIT 5",
  );
  return {
    exists: table.exists,
    createDestination: (accountId, input) => write(() => table.insert(accountId, input)),
    getDestination: table.get,
    listDestinations: table.list,

    updateDestination(accountId, id, patch) {
      return write(() => {
        const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
        const next = { ...table.require(accountId, id), ...given } as DestinationRecord;
        table.save(next);
        return next;
      });
    },

    deleteDestination(accountId, id) {
      write(() => {
        if (!table.exists(accountId, id)) throw table.notFound(id);
        const refs = referencing.all(id);
        if (refs.length > 0) {
          throw new ErrorReply(
            409,
            `event destination ${id} is still used by event subscription(s) ${refs.map((r) => r.subscription_id).join(", ")}; remove it from them first`,
          );
        }
        table.remove(id);
      });
    },
  };
}
