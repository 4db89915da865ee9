/**
 * The `event_subscriptions` repository (packages/emulator/store/eventSubscriptions.ts): a
 * destination ID that names no destination of the account is refused with 223 naming its place
 * in the list (quoting it only when it is a well-formed ID), and nothing is stored or changed.
 */
import { ID_BODY_LENGTH } from "service-contract";
import type { Store } from "../../../packages/emulator/store";
import { refusal, storedDestination, withMemoryStore } from "../../helpers/emulator-fixtures";

const subscription = (destinationIds: string[]) => ({
  metadata: "",
  description: "",
  sources: ["ip_policy_created.v0"],
  destinationIds,
});

describe("event subscriptions repository", () => {
  const setUp = (store: Store) => {
    const mine = store.registerAccount("1".repeat(64), false).id;
    const theirs = store.registerAccount("2".repeat(64), false).id;
    return {
      mine,
      own: store.createDestination(mine, storedDestination()).id,
      other: store.createDestination(theirs, storedDestination()).id,
    };
  };

  it("refuses a create naming another account's destination, quoting its ID, and stores nothing", () => {
    withMemoryStore((store) => {
      const { mine, own, other } = setUp(store);
      expect(refusal(() => store.createSubscription(mine, subscription([own, other])))).toEqual({
        code: 223,
        message: `destination_ids[1]: "${other}" is not an event destination of this account`,
      });
      expect(store.snapshot().event_subscriptions).toEqual([]);
    });
  });

  it("refuses an update naming a destination ID that is not well formed, without quoting it, and keeps the subscription", () => {
    withMemoryStore((store) => {
      const { mine, own } = setUp(store);
      const sub = store.createSubscription(mine, subscription([own]));
      const notAnId = "ed_" + "?".repeat(ID_BODY_LENGTH);
      expect(refusal(() => store.updateSubscription(mine, sub.id, { destinationIds: [notAnId] }))).toEqual({
        code: 223,
        message: "destination_ids[0]: not an event destination ID (ed_…)",
      });
      expect(store.getSubscription(mine, sub.id)).toEqual(sub);
    });
  });
});
