// The program of the upgrade tests (test/upgrade/): every resource kind and every destination
// target kind, declared through the door its stack is named for: "dynamic" (the dynamic
// providers of `pulumi-service`) or "native" (the plugin, through the SDK `pulumi-service/native`).
// It uses only what version 0.1.0 offers, since test/upgrade/record.ts deploys it with 0.1.0 and
// upgrade.test.ts previews it unchanged with today's package.
import * as pulumi from "@pulumi/pulumi";
import * as dynamic from "pulumi-service";
import * as native from "pulumi-service/native";

const config = new pulumi.Config();
const door = pulumi.getStack();
if (door !== "dynamic" && door !== "native") throw new Error(`stack ${door}: name it dynamic or native`);

// The two doors take the same arguments; their classes differ only in their module.
type Args = Record<string, unknown>;
type Made = pulumi.CustomResource & { uri: pulumi.Output<string> };
const sdk = (door === "native" ? native : dynamic) as unknown as Record<
  "EventDestination" | "EventSubscription" | "AbuseReport",
  new (name: string, args: Args) => Made
>;

const role = { role: { roleArn: "arn:aws:iam::123456789012:role/service-events" } };
const creds = {
  creds: { awsAccessKeyId: "AKIAUPGRADEEXAMPLE01", awsSecretAccessKey: config.requireSecret("awsSecret") },
};

const destinations: Record<string, Made> = {
  datadog: new sdk.EventDestination("datadog", {
    description: "Operational events to Datadog",
    metadata: '{"team":"platform"}',
    target: {
      datadog: {
        apiKey: config.requireSecret("datadogApiKey"),
        ddsite: "datadoghq.eu",
        ddtags: "env:upgrade,team:platform",
        service: "service-events",
      },
    },
  }),
  datadogMinimal: new sdk.EventDestination("datadog-minimal", {
    target: { datadog: { apiKey: config.requireSecret("datadogApiKey") } },
  }),
  kinesisRole: new sdk.EventDestination("kinesis-role", {
    description: "Audit stream (role)",
    format: "json",
    target: { kinesis: { auth: role, streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit" } },
  }),
  kinesisCreds: new sdk.EventDestination("kinesis-creds", {
    target: { kinesis: { auth: creds, streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/creds" } },
  }),
  firehose: new sdk.EventDestination("firehose", {
    description: "Archive",
    target: {
      firehose: {
        auth: role,
        deliveryStreamArn: "arn:aws:firehose:us-east-1:123456789012:deliverystream/archive",
      },
    },
  }),
  cloudwatchLogs: new sdk.EventDestination("cloudwatch-logs", {
    target: {
      cloudwatchLogs: {
        auth: creds,
        logGroupArn: "arn:aws:logs:us-east-1:123456789012:log-group:/service/events",
      },
    },
  }),
  azureLogsIngestion: new sdk.EventDestination("azure-logs", {
    metadata: "azure",
    target: {
      azureLogsIngestion: {
        tenantId: "00000000-0000-4000-8000-000000000001",
        clientId: "00000000-0000-4000-8000-000000000002",
        clientSecret: config.requireSecret("azureClientSecret"),
        logsIngestionUri: "https://upgrade-abcd.eastus-1.ingest.monitor.azure.com",
        dataCollectionRuleId: "dcr-00000000000000000000000000000001",
        dataCollectionStreamName: "Custom-ServiceEvents_CL",
      },
    },
  }),
};

const subscriptions: Record<string, Made> = {
  everything: new sdk.EventSubscription("everything", {
    description: "IP policies and HTTP requests, everywhere",
    metadata: '{"owner":"platform","ticket":"OPS-1"}',
    sources: [
      { type: "ip_policy_created.v0" },
      { type: "ip_policy_updated.v0" },
      { type: "ip_policy_deleted.v0" },
      { type: "http_request_complete.v0" },
    ],
    destinationIds: [
      destinations.datadog.id,
      destinations.kinesisRole.id,
      destinations.kinesisCreds.id,
      destinations.firehose.id,
    ],
  }),
  logs: new sdk.EventSubscription("logs", {
    sources: [{ type: "tcp_connection_closed.v0" }],
    destinationIds: [destinations.cloudwatchLogs.id, destinations.azureLogsIngestion.id],
  }),
  minimal: new sdk.EventSubscription("minimal", {
    sources: [{ type: "agent_session_start.v0" }],
    destinationIds: [destinations.datadogMinimal.id],
  }),
};

const reports: Record<string, Made> = {
  phishing: new sdk.AbuseReport("phishing", {
    urls: [
      "https://phish.example.com/login",
      "https://phish.example.com/reset",
      "https://other.example.org/",
    ],
    metadata: '{"source":"upgrade-test"}',
  }),
};

const ids = (m: Record<string, Made>) => Object.fromEntries(Object.entries(m).map(([n, r]) => [n, r.id]));
export const destinationIds = ids(destinations);
export const subscriptionIds = ids(subscriptions);
export const reportIds = ids(reports);
export const subscriptionUri = subscriptions.everything.uri;
