/**
 * The rules of the service's policy pack, in the order `pulumi preview` lists them. `index.ts`
 * makes them the pack `service-policy`; this module only exports them (for tests and for packs
 * that take some of them).
 *
 * @module service-policy
 */
import type { Policies } from "@pulumi/policy";
import { abuseReportsAllowed } from "./abuseReports";
import {
  subscriptionDescription,
  subscriptionDestinationsInStack,
  subscriptionEventTypes,
  subscriptionSourcesAndDestinations,
} from "./subscriptions";
import { destinationTargets } from "./targets";

export * from "./resources";
export * from "./targets";
export * from "./subscriptions";
export * from "./abuseReports";

/** Name of the pack (`pulumi preview` prints it above its violations). */
export const POLICY_PACK_NAME = "service-policy";

/** Every rule of the pack. */
export const POLICIES: Policies = [
  destinationTargets,
  subscriptionDescription,
  subscriptionSourcesAndDestinations,
  subscriptionEventTypes,
  subscriptionDestinationsInStack,
  abuseReportsAllowed,
];
