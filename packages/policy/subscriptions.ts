/**
 * The rules of event subscriptions: a description, at least one source and one destination, only
 * event types of the contract (`EVENT_TYPES`, so a new event type needs no edit here), and
 * destinations declared in the same stack.
 *
 * @packageDocumentation
 */
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { EVENT_TYPES, SOURCES_MIN, DESTINATION_IDS_MIN } from "service-contract";
import { serviceKindOf } from "./resources";

/** Configuration of `service-subscription-event-types`. */
export interface EventTypesConfig {
  /** Event types a subscription may select; default every type of the contract. */
  allowedEventTypes: string[];
}

/** `service-subscription-description` (advisory): every event subscription has a description. */
export const subscriptionDescription: ResourceValidationPolicy = {
  name: "service-subscription-description",
  description:
    "Every event subscription has a description, so that a reviewer knows why its events leave the account.",
  enforcementLevel: "advisory",
  validateResource: (args, reportViolation) => {
    if (serviceKindOf(args.type) !== "EventSubscription") return;
    const d = args.props.description;
    if (typeof d !== "string" || d.trim() === "")
      reportViolation(`event subscription "${args.name}" has no description`);
  },
};

/**
 * `service-subscription-sources-and-destinations` (mandatory): at least SOURCES_MIN source and
 * DESTINATION_IDS_MIN destination (the contract's minimums).
 */
export const subscriptionSourcesAndDestinations: ResourceValidationPolicy = {
  name: "service-subscription-sources-and-destinations",
  description: "Every event subscription has at least one source (event type) and at least one destination.",
  enforcementLevel: "mandatory",
  validateResource: (args, reportViolation) => {
    if (serviceKindOf(args.type) !== "EventSubscription") return;
    const sources = Array.isArray(args.props.sources) ? args.props.sources.length : 0;
    const destinations = Array.isArray(args.props.destinationIds) ? args.props.destinationIds.length : 0;
    if (sources < SOURCES_MIN)
      reportViolation(`event subscription "${args.name}" has no source (sources: at least ${SOURCES_MIN})`);
    if (destinations < DESTINATION_IDS_MIN)
      reportViolation(
        `event subscription "${args.name}" has no destination (destinationIds: at least ${DESTINATION_IDS_MIN})`,
      );
  },
};

/**
 * `service-subscription-event-types` (mandatory): every source's `type` is an event type of the
 * contract and of `allowedEventTypes`.
 */
export const subscriptionEventTypes: ResourceValidationPolicy = {
  name: "service-subscription-event-types",
  description:
    "Event subscriptions select only event types of the service's catalogue (and of allowedEventTypes when set).",
  enforcementLevel: "mandatory",
  configSchema: {
    properties: {
      allowedEventTypes: {
        type: "array",
        items: { type: "string", enum: [...EVENT_TYPES] },
        default: [...EVENT_TYPES],
      },
    },
  },
  validateResource: (args, reportViolation) => {
    if (serviceKindOf(args.type) !== "EventSubscription" || !Array.isArray(args.props.sources)) return;
    const { allowedEventTypes } = args.getConfig<EventTypesConfig>();
    for (const source of args.props.sources as { type?: unknown }[]) {
      const type = source?.type;
      if (typeof type !== "string") continue;
      if (!EVENT_TYPES.includes(type))
        reportViolation(
          `event subscription "${args.name}": "${type}" is not an event type of the service (e.g. ${EVENT_TYPES[0]})`,
        );
      else if (!allowedEventTypes.includes(type))
        reportViolation(
          `event subscription "${args.name}": event type "${type}" is not allowed (allowedEventTypes)`,
        );
    }
  },
};

/**
 * The ID an event destination of the stack has: the last part of its `uri` output, else its
 * `adoptId`; undefined when a preview does not know it (a destination being created, or updated:
 * its outputs are recomputed).
 */
function destinationId(r: PolicyResource): string | undefined {
  try {
    const uri: unknown = r.props.uri;
    if (typeof uri === "string" && uri !== "") return uri.slice(uri.lastIndexOf("/") + 1);
    const adoptId: unknown = r.props.adoptId;
    return typeof adoptId === "string" && adoptId !== "" ? adoptId : undefined;
  } catch {
    return undefined; // @pulumi/policy throws on reading a value the preview does not know yet
  }
}

/** The elements of `list` that are known strings, and how many the preview does not know yet. */
function elementsOf(list: unknown): { known: string[]; unknown: number } {
  const known: string[] = [];
  let unknown = 0;
  if (!Array.isArray(list)) return { known, unknown };
  for (let i = 0; i < list.length; i++) {
    try {
      const v: unknown = list[i];
      if (typeof v === "string") known.push(v);
    } catch {
      // @pulumi/policy throws on reading a value a preview does not know yet: an output of a
      // resource the subscription depends on, checked through its property dependencies below.
      unknown++;
    }
  }
  return { known, unknown };
}

/**
 * `service-subscription-destinations-in-stack` (mandatory, stack policy over the resource
 * graph): every destination a subscription sends to is an event destination of the same stack:
 * each known ID is the ID of one of them, and every resource `destinationIds` depends on is one.
 * A destination the subscription depends on whose ID the preview does not know (being updated)
 * may account for one known ID that matches no known destination ID.
 */
export const subscriptionDestinationsInStack: StackValidationPolicy = {
  name: "service-subscription-destinations-in-stack",
  description: "An event subscription sends only to event destinations declared in the same stack.",
  enforcementLevel: "mandatory",
  validateStack: (args, reportViolation) => {
    const destinations = args.resources.filter((r) => serviceKindOf(r.type) === "EventDestination");
    const ids = new Set(destinations.map(destinationId).filter((id): id is string => id !== undefined));
    for (const sub of args.resources.filter((r) => serviceKindOf(r.type) === "EventSubscription")) {
      const deps = sub.propertyDependencies?.destinationIds ?? [];
      const { known, unknown } = elementsOf(sub.props.destinationIds);
      const unmatched = known.filter((id) => !ids.has(id));
      // Destinations it depends on with an ID the preview does not know, less the unknown elements.
      const unresolved = deps.filter(
        (d) => serviceKindOf(d.type) === "EventDestination" && destinationId(d) === undefined,
      ).length;
      const allowance = Math.max(0, unresolved - unknown);
      if (unmatched.length > allowance && allowance === 0)
        for (const id of unmatched)
          reportViolation(
            `event subscription "${sub.name}" sends to ${id}, which no event destination of this stack declares`,
            sub.urn,
          );
      else if (unmatched.length > allowance)
        reportViolation(
          `event subscription "${sub.name}" sends to ${unmatched.join(", ")}: only ${allowance} of them can be event destinations of this stack`,
          sub.urn,
        );
      for (const dep of deps)
        if (serviceKindOf(dep.type) !== "EventDestination")
          reportViolation(
            `event subscription "${sub.name}" takes destinationIds from "${dep.name}" (${dep.type}), not from an event destination of this stack`,
            sub.urn,
          );
    }
  },
};
