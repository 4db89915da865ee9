// Two accounts of the service in one stack, on the native provider's SDKs, in PCL (Pulumi's
// program language): one explicit provider per account (its own API key, one base URL), and
// each resource given its account's provider. scripts/gen-examples.js turns it into TypeScript,
// Python and Go in docs/providers.md and in examples/<language>/multi-account/.
config baseUrl string {
  description = "The service's API URL, shared by both accounts"
}

config prodApiKey string {
  description = "API key of the prod account"
  secret = true
}

config devApiKey string {
  description = "API key of the dev account"
  secret = true
}

config ddApiKey string {
  description = "API key of the Datadog account the events go to"
  secret = true
}

resource prod "pulumi:providers:service" {
  apiKey = prodApiKey
  baseUrl = baseUrl
}

resource dev "pulumi:providers:service" {
  apiKey = devApiKey
  baseUrl = baseUrl
}

resource prodAudit "service:index:EventDestination" {
  description = "prod audit"
  target = {
    datadog = {
      apiKey = ddApiKey
      ddsite = "datadoghq.eu"
    }
  }
  options {
    provider = prod
  }
}

resource prodPolicies "service:index:EventSubscription" {
  description = "prod policy changes"
  sources = [{ type = "ip_policy_created.v0" }]
  destinationIds = [prodAudit.id]
  options {
    provider = prod
  }
}

resource devAudit "service:index:EventDestination" {
  description = "dev audit"
  target = {
    datadog = {
      apiKey = ddApiKey
      ddsite = "datadoghq.eu"
    }
  }
  options {
    provider = dev
  }
}

resource devPolicies "service:index:EventSubscription" {
  description = "dev policy changes"
  sources = [{ type = "ip_policy_created.v0" }]
  destinationIds = [devAudit.id]
  options {
    provider = dev
  }
}

output prodDestinationId {
  value = prodAudit.id
}

output prodSubscriptionId {
  value = prodPolicies.id
}

output devDestinationId {
  value = devAudit.id
}

output devSubscriptionId {
  value = devPolicies.id
}
