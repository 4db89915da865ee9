/**
 * Event subscriptions: which event types (`sources`) go to which event destinations.
 * Reference: docs/service-api.md § Event subscriptions.
 *
 * @packageDocumentation
 */
import { z } from "zod";
import { chars, eventType, list } from "./checks";
import { Id, Ref } from "./common";
import { pageOf, resourceFields, updateBody } from "./resourceShapes";
import {
  DESCRIPTION_MAX_CHARS,
  DESTINATION_IDS_MAX,
  DESTINATION_IDS_MIN,
  EVENT_TYPES,
  ID_PREFIX,
  METADATA_MAX_CHARS,
  SOURCES_MAX,
  SOURCES_MIN,
} from "./limits";

/** What a `PATCH` does with the fields it sends and leaves out (the update body's `x-patch`). */
const PATCH_RULES = 'fields left out keep their value; lists are replaced whole; "" clears a string';

/** An event type selected by a subscription, e.g. `ip_policy_created.v0`, with its URI. */
export const EventSource = z.object({
  type: z.string(),
  /** `{base_url}/event_subscriptions/<subscription_id>/sources/<type>`. */
  uri: z.string(),
});
/** An event type selected by a subscription, with its URI. */
export type EventSource = z.infer<typeof EventSource>;

/** A source in a create or update request: only the event `type` (one of `EVENT_TYPES`). */
export const EventSourceReplace = z.strictObject({
  type: eventType().meta({ enum: [...EVENT_TYPES], description: "an event type of the catalogue" }),
});
/** A source in a create or update request: only the event `type`. */
export type EventSourceReplace = z.infer<typeof EventSourceReplace>;

/**
 * An event subscription. `metadata` and `description` are `""` when not set; `sources` and
 * `destinations` keep the order given at create or update.
 */
export const EventSubscription = z.object({
  ...resourceFields(ID_PREFIX.eventSubscription),
  metadata: z.string(),
  description: z.string(),
  sources: z.array(EventSource),
  destinations: z.array(Ref),
});
/** An event subscription (see the schema of the same name). */
export type EventSubscription = z.infer<typeof EventSubscription>;

/**
 * Body of `POST /event_subscriptions`: `sources` 1 to 10 distinct known event types;
 * `destinationIds` 1 to 10 distinct `ed_…` IDs of the account; `metadata` ≤ 4096 **characters**;
 * `description` ≤ 255 **characters**. Unknown fields are rejected.
 */
export const EventSubscriptionCreate = z.strictObject({
  metadata: chars(METADATA_MAX_CHARS).optional(),
  description: chars(DESCRIPTION_MAX_CHARS).optional(),
  sources: list(EventSourceReplace, {
    min: SOURCES_MIN,
    max: SOURCES_MAX,
    unique: { key: "type", what: "event type" },
  }),
  destinationIds: list(Id(ID_PREFIX.eventDestination), {
    min: DESTINATION_IDS_MIN,
    max: DESTINATION_IDS_MAX,
    unique: { what: "destination ID" },
  }),
});
/** Input of `eventSubscriptions.create` (see the schema of the same name). */
export type EventSubscriptionCreate = z.infer<typeof EventSubscriptionCreate>;

/**
 * Body of `PATCH /event_subscriptions/{id}`: a partial update. A field left out keeps its value;
 * a field sent replaces the whole value (lists included); `""` clears a string.
 */
export const EventSubscriptionUpdate = updateBody(EventSubscriptionCreate, PATCH_RULES);
/** Input of `eventSubscriptions.update` (see the schema of the same name). */
export type EventSubscriptionUpdate = z.infer<typeof EventSubscriptionUpdate>;

/** One page of `GET /event_subscriptions` (newest first). */
export const EventSubscriptionList = pageOf("eventSubscriptions", EventSubscription);
/** One page of `GET /event_subscriptions`. */
export type EventSubscriptionList = z.infer<typeof EventSubscriptionList>;
