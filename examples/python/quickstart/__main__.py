import pulumi
import pulumi_service as service

config = pulumi.Config()
# API key of the Datadog account the events go to
datadog_api_key = config.require("datadogApiKey")
datadog = service.EventDestination("datadog",
    description="Operational events to Datadog",
    target={
        "datadog": {
            "api_key": pulumi.Output.secret(datadog_api_key),
            "ddsite": "datadoghq.eu",
        },
    })
ip_policy_changes = service.EventSubscription("ipPolicyChanges",
    description="IP policy changes",
    sources=[
        {
            "type": service.EventType.IP_POLICY_CREATED_V0,
        },
        {
            "type": service.EventType.IP_POLICY_UPDATED_V0,
        },
    ],
    destination_ids=[datadog.id])
phishing = service.AbuseReport("phishing", urls=["https://phish.example.com/login"])
pulumi.export("subscriptionId", ip_policy_changes.id)
pulumi.export("reportStatus", phishing.status)
