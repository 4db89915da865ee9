// Quick start: two event destinations, three subscriptions that feed them, and one abuse report.
// Configure the stack with `service:baseUrl` and the secret `service:apiKey` (npm start and
// npm run demo do).
import * as pulumi from "@pulumi/pulumi";
import { AbuseReport, EventDestination, EventSubscription } from "pulumi-service";

const config = new pulumi.Config();

// A Kinesis stream the service writes to by assuming an IAM role.
const audit = new EventDestination("audit-stream", {
  description: "Audit events to Kinesis",
  target: {
    kinesis: {
      auth: { role: { roleArn: "arn:aws:iam::123456789012:role/service-events" } },
      streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit",
    },
  },
});

// Datadog, with an API key that is write-only on the service and secret in the state.
const datadog = new EventDestination("datadog", {
  description: "Operational events to Datadog",
  metadata: JSON.stringify({ team: "platform" }),
  target: {
    datadog: {
      apiKey: config.getSecret("datadogApiKey") ?? pulumi.secret("dd-demo-api-key-0000"),
      ddsite: "datadoghq.eu",
      service: "edge",
    },
  },
});

const policyChanges = new EventSubscription("ip-policy-changes", {
  description: "IP policy changes, to the audit stream and Datadog",
  sources: [
    { type: "ip_policy_created.v0" },
    { type: "ip_policy_updated.v0" },
    { type: "ip_policy_deleted.v0" },
  ],
  destinationIds: [audit.id, datadog.id],
});

const sessions = new EventSubscription("agent-sessions", {
  description: "Agent sessions",
  sources: [{ type: "agent_session_start.v0" }, { type: "agent_session_stop.v0" }],
  destinationIds: [datadog.id],
});

const requests = new EventSubscription("http-requests", {
  sources: [{ type: "http_request_complete.v0" }],
  destinationIds: [audit.id],
  metadata: JSON.stringify({ sampling: "all" }),
});

const report = new AbuseReport("phishing-report", {
  urls: ["https://phish.example.com/login", "http://malware.example.net/payload.exe"],
  metadata: "reported by the platform team",
});

export const destinationIds = { audit: audit.id, datadog: datadog.id };
export const subscriptionIds = {
  policyChanges: policyChanges.id,
  sessions: sessions.id,
  requests: requests.id,
};
export const abuseReport = { id: report.id, status: report.status, hostnames: report.hostnames };
