// The program the workflow deploys, one stack per environment: an audit stream and the
// subscription of IP policy changes that feeds it. `service:baseUrl` comes from the stack
// config, the API key from `service:apiKey` or the job's SERVICE_API_KEY.
import { EventDestination, EventSubscription } from "pulumi-service";

const audit = new EventDestination("audit-stream", {
  description: "Audit events to Kinesis",
  target: {
    kinesis: {
      auth: { role: { roleArn: "arn:aws:iam::123456789012:role/service-events" } },
      streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit",
    },
  },
});

const policyChanges = new EventSubscription("ip-policy-changes", {
  description: "IP policy changes",
  sources: [{ type: "ip_policy_created.v0" }, { type: "ip_policy_updated.v0" }],
  destinationIds: [audit.id],
});

export const destinationIds = { audit: audit.id };
export const subscriptionId = policyChanges.id;
