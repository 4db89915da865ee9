// The infrastructure under test: audit events of one team go to a Kinesis stream. The stack
// config `team` names the team; `retainAudit` adds the key-rotation events.
import * as pulumi from "@pulumi/pulumi";
import { EventDestination, EventSubscription } from "pulumi-service";

const config = new pulumi.Config();
const team = config.require("team");

const stream = new EventDestination("audit-stream", {
  description: `Audit events of ${team}`,
  metadata: JSON.stringify({ team }),
  target: {
    kinesis: {
      auth: { role: { roleArn: "arn:aws:iam::123456789012:role/service-events" } },
      streamArn: `arn:aws:kinesis:us-east-1:123456789012:stream/${team}-audit`,
    },
  },
});

const types = ["api_key_created.v0", "api_key_deleted.v0"];
if (config.getBoolean("retainAudit")) types.push("api_key_updated.v0");

const subscription = new EventSubscription("audit", {
  description: `API key changes of ${team}`,
  sources: types.map((type) => ({ type })),
  destinationIds: [stream.id],
});

export const destinationId = stream.id;
export const subscriptionId = subscription.id;
