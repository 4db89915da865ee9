// A second program of the same environment: it does not know the destinations' IDs, it reads
// them from the events stack of the same name (dev reads dev, prod reads prod) through a
// StackReference, and subscribes the API key events to all of them.
import * as pulumi from "@pulumi/pulumi";
import { EventSubscription } from "pulumi-service";

const env = pulumi.getStack();
const events = new pulumi.StackReference(`organization/multi-env-events/${env}`);
const destinationIds = events.requireOutput("destinationIds") as pulumi.Output<Record<string, string>>;

const alerts = new EventSubscription("security-alerts", {
  description: `API key changes (${env})`,
  sources: [{ type: "api_key_created.v0" }, { type: "api_key_deleted.v0" }],
  destinationIds: destinationIds.apply((ids) => Object.values(ids)),
});

export const subscriptionId = alerts.id;
