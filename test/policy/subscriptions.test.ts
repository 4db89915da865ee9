import { EVENT_TYPES } from "service-contract";
import { dynamicType, nativeType } from "../../packages/policy/resources";
import {
  subscriptionDescription,
  subscriptionDestinationsInStack,
  subscriptionEventTypes,
  subscriptionSourcesAndDestinations,
} from "../../packages/policy/subscriptions";
import { stackResource, stackViolationsOf, violationsOf } from "../helpers/policy";

const good = { description: "audit to SIEM", sources: [{ type: EVENT_TYPES[0] }], destinationIds: ["ed_1"] };

describe.each([nativeType("EventSubscription"), dynamicType("EventSubscription")])(
  "event subscription rules on %s",
  (type) => {
    it("service-subscription-description: respected with a description, violated without", async () => {
      expect(await violationsOf(subscriptionDescription, type, good)).toEqual([]);
      expect(
        await violationsOf(subscriptionDescription, type, { ...good, description: " " }, {}, "audit"),
      ).toEqual(['event subscription "audit" has no description']);
    });

    it("service-subscription-sources-and-destinations: at least one of each", async () => {
      expect(await violationsOf(subscriptionSourcesAndDestinations, type, good)).toEqual([]);
      expect(
        await violationsOf(
          subscriptionSourcesAndDestinations,
          type,
          { sources: [], destinationIds: [] },
          {},
          "s",
        ),
      ).toEqual([
        'event subscription "s" has no source (sources: at least 1)',
        'event subscription "s" has no destination (destinationIds: at least 1)',
      ]);
    });

    it("service-subscription-event-types: every type of the contract passes, others and disallowed ones do not", async () => {
      const all = { ...good, sources: EVENT_TYPES.map((t) => ({ type: t })) };
      expect(await violationsOf(subscriptionEventTypes, type, all)).toEqual([]);
      expect(
        await violationsOf(
          subscriptionEventTypes,
          type,
          { ...good, sources: [{ type: "ip_policy_created.v9" }] },
          {},
          "s",
        ),
      ).toEqual([
        `event subscription "s": "ip_policy_created.v9" is not an event type of the service (e.g. ${EVENT_TYPES[0]})`,
      ]);
      const only = { allowedEventTypes: [EVENT_TYPES[1]] };
      expect(await violationsOf(subscriptionEventTypes, type, good, only, "s")).toEqual([
        `event subscription "s": event type "${EVENT_TYPES[0]}" is not allowed (allowedEventTypes)`,
      ]);
    });
  },
);

describe("service-subscription-destinations-in-stack", () => {
  const dest = (door: typeof nativeType, name: string, id: string) =>
    stackResource(door("EventDestination"), name, { uri: `https://api.example/event_destinations/${id}` });

  it.each([nativeType, dynamicType])(
    "is respected when every ID is a destination of the stack (%p)",
    async (door) => {
      const d = dest(door, "siem", "ed_1");
      const sub = stackResource(door("EventSubscription"), "audit", good, { destinationIds: [d] });
      expect(await stackViolationsOf(subscriptionDestinationsInStack, [d, sub])).toEqual([]);
    },
  );

  it("is violated by an ID no destination of the stack has, and by destinationIds from another kind of resource", async () => {
    const d = dest(nativeType, "siem", "ed_1");
    const other = stackResource("pulumi:pulumi:StackReference", "shared", {});
    const sub = stackResource(
      nativeType("EventSubscription"),
      "audit",
      { ...good, destinationIds: ["ed_1", "ed_elsewhere"] },
      { destinationIds: [other] },
    );
    expect(await stackViolationsOf(subscriptionDestinationsInStack, [d, other, sub])).toEqual([
      'event subscription "audit" sends to ed_elsewhere, which no event destination of this stack declares',
      'event subscription "audit" takes destinationIds from "shared" (pulumi:pulumi:StackReference), not from an event destination of this stack',
    ]);
  });

  it("a destination being updated (its ID unknown to the preview) accounts for one known ID, not two", async () => {
    // An update recomputes the destination's outputs: no uri; the subscription keeps its known ID.
    const updating = stackResource(dynamicType("EventDestination"), "siem", { description: "new" });
    const sub = (destinationIds: string[]) =>
      stackResource(
        dynamicType("EventSubscription"),
        "audit",
        { ...good, destinationIds },
        {
          destinationIds: [updating],
        },
      );
    expect(await stackViolationsOf(subscriptionDestinationsInStack, [updating, sub(["ed_1"])])).toEqual([]);
    expect(
      await stackViolationsOf(subscriptionDestinationsInStack, [updating, sub(["ed_1", "ed_elsewhere"])]),
    ).toEqual([
      'event subscription "audit" sends to ed_1, ed_elsewhere: only 1 of them can be event destinations of this stack',
    ]);
  });
});
