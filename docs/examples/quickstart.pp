// The quickstart on the native provider's SDKs, in PCL (Pulumi's program language):
// scripts/gen-examples.js turns it into TypeScript, Python and Go in docs/resources.md.
config datadogApiKey string {
  description = "API key of the Datadog account the events go to"
}

resource datadog "service:index:EventDestination" {
  description = "Operational events to Datadog"
  target = {
    datadog = {
      apiKey = secret(datadogApiKey)
      ddsite = "datadoghq.eu"
    }
  }
}

resource ipPolicyChanges "service:index:EventSubscription" {
  description = "IP policy changes"
  sources = [
    { type = "ip_policy_created.v0" },
    { type = "ip_policy_updated.v0" }
  ]
  destinationIds = [datadog.id]
}

resource phishing "service:index:AbuseReport" {
  urls = ["https://phish.example.com/login"]
}

output subscriptionId {
  value = ipPolicyChanges.id
}

output reportStatus {
  value = phishing.status
}
