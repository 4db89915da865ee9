/**
 * The service's resources as a policy sees them, on both doors: the native plugin's type tokens
 * (`service:index:EventSubscription`) and the dynamic providers' (`pulumi-nodejs:dynamic/service:EventSubscription`:
 * the dynamic resource classes of provider/dynamic/ register under the module `service` and the
 * kind's name, so a dynamic resource of this package is told apart from any other dynamic resource
 * by its type token alone). The kinds come from the contract (`service-contract` RESOURCES).
 *
 * @packageDocumentation
 */
import { RESOURCES } from "service-contract";

/** A resource kind of the contract in its Pulumi form, e.g. `EventSubscription`. */
export type ServiceKind = "EventSubscription" | "EventDestination" | "AbuseReport";

/** The Pulumi name of each contract resource (`eventSubscription` → `EventSubscription`). */
export const SERVICE_KINDS: readonly ServiceKind[] = Object.keys(RESOURCES).map(
  (k) => (k[0].toUpperCase() + k.slice(1)) as ServiceKind,
);

/** The type token of a kind in the native plugin's schema: `service:index:<Kind>`. */
export function nativeType(kind: ServiceKind): string {
  return `service:index:${kind}`;
}

/** The type token of a kind on the dynamic door: `pulumi-nodejs:dynamic/service:<Kind>`. */
export function dynamicType(kind: ServiceKind): string {
  return `pulumi-nodejs:dynamic/service:${kind}`;
}

/**
 * The kind of a resource of type token `type` on either door, or undefined for any other
 * resource (another provider's, another dynamic provider's).
 */
export function serviceKindOf(type: string): ServiceKind | undefined {
  return SERVICE_KINDS.find((k) => type === nativeType(k) || type === dynamicType(k));
}

/** Which door a type token belongs to (`native` or `dynamic`), for messages. */
export function doorOf(type: string): "native" | "dynamic" {
  return type.startsWith("pulumi-nodejs:dynamic/") ? "dynamic" : "native";
}
