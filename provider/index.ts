/**
 * Pulumi resources of the service: `EventSubscription`, `EventDestination`, `AbuseReport`,
 * the input validation their `check` uses, and the typed client (`sdk`).
 *
 * @packageDocumentation
 */
export { EventSubscription, type EventSubscriptionArgs } from "./eventSubscription";
export {
  EventDestination,
  type EventDestinationArgs,
  type DestinationTargetInput,
  type AwsAuthInput,
} from "./eventDestination";
export { AbuseReport, type AbuseReportArgs } from "./abuseReport";
export {
  checkAbuseReportInputs,
  checkEventDestinationInputs,
  checkEventSubscriptionInputs,
  type CheckFailure,
} from "./validation";
export * as sdk from "../sdk";
