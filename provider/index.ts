/**
 * Pulumi resources of the service: `EventSubscription`, `EventDestination`, `AbuseReport`, the
 * lookups of existing ones (`getEventSubscriptionOutput`…, provider/dynamic/functions.ts), and
 * the input validation their `check` uses. The typed client is the package's `./client` entry
 * (`import { ServiceClient } from "pulumi-service/client"`), kept out of this index so that a
 * Pulumi program does not load the HTTP client it never uses (the providers load it in their
 * own process).
 *
 * @module pulumi-service
 */
export { EventSubscription, type EventSubscriptionArgs } from "./dynamic/eventSubscription";
export {
  EventDestination,
  type EventDestinationArgs,
  type DestinationTargetInput,
  type AwsAuthInput,
} from "./dynamic/eventDestination";
export { AbuseReport, type AbuseReportArgs } from "./dynamic/abuseReport";
export { ServiceResource } from "./dynamic/resource";
export {
  getAbuseReportOutput,
  getEventDestinationOutput,
  getEventDestinationsOutput,
  getEventSubscriptionOutput,
  getEventSubscriptionsOutput,
  type GetAbuseReportResult,
  type GetByIdArgs,
  type GetEventDestinationResult,
  type GetEventDestinationsResult,
  type GetEventSubscriptionResult,
  type GetEventSubscriptionsResult,
  type LookupOptions,
} from "./dynamic/functions";
export {
  checkAbuseReportInputs,
  checkEventDestinationInputs,
  checkEventSubscriptionInputs,
  type CheckFailure,
} from "./impl/inputChecks";
