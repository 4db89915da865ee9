// The event plumbing of one environment. Everything that differs between dev and prod is in
// the stack's config (Pulumi.dev.yaml, Pulumi.prod.yaml): the IAM role, the destinations, the
// event types. The outputs are what other programs of the same environment build on.
import * as pulumi from "@pulumi/pulumi";
import { EventDestination, EventSubscription } from "pulumi-service";

/** One destination of the stack config: a Kinesis stream or a CloudWatch Logs group. */
interface DestinationConfig {
  name: string;
  kinesisStreamArn?: string;
  logGroupArn?: string;
}

const config = new pulumi.Config();
const env = pulumi.getStack();
const role = { role: { roleArn: config.require("roleArn") } };

const configured = config.requireObject<DestinationConfig[]>("destinations");
const destinations = configured.map(
  (d) =>
    new EventDestination(d.name, {
      description: `${d.name} (${env})`,
      metadata: JSON.stringify({ env }),
      target: d.kinesisStreamArn
        ? { kinesis: { auth: role, streamArn: d.kinesisStreamArn } }
        : { cloudwatchLogs: { auth: role, logGroupArn: d.logGroupArn! } },
    }),
);

const subscription = new EventSubscription("changes", {
  description: `Configuration changes (${env})`,
  sources: config.requireObject<string[]>("eventTypes").map((type) => ({ type })),
  destinationIds: destinations.map((d) => d.id),
});

/** Destination IDs by their config name, e.g. `{ audit: "ed_…" }`. */
export const destinationIds = pulumi
  .all(destinations.map((d) => d.id))
  .apply((ids) => Object.fromEntries(ids.map((id, i) => [configured[i].name, id])));
export const subscriptionId = subscription.id;
