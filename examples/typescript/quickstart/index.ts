import * as pulumi from "@pulumi/pulumi";
import * as service from "pulumi-service/native";

const config = new pulumi.Config();
// API key of the Datadog account the events go to
const datadogApiKey = config.require("datadogApiKey");
const datadog = new service.EventDestination("datadog", {
  description: "Operational events to Datadog",
  target: {
    datadog: {
      apiKey: pulumi.secret(datadogApiKey),
      ddsite: "datadoghq.eu",
    },
  },
});
const ipPolicyChanges = new service.EventSubscription("ipPolicyChanges", {
  description: "IP policy changes",
  sources: [
    {
      type: service.EventType.IpPolicyCreatedV0,
    },
    {
      type: service.EventType.IpPolicyUpdatedV0,
    },
  ],
  destinationIds: [datadog.id],
});
const phishing = new service.AbuseReport("phishing", { urls: ["https://phish.example.com/login"] });
export const subscriptionId = ipPolicyChanges.id;
export const reportStatus = phishing.status;
