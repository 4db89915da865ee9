import pulumi
import pulumi_service as service

config = pulumi.Config()
# The service's API URL, shared by both accounts
base_url = config.require("baseUrl")
# API key of the prod account
prod_api_key = config.require_secret("prodApiKey")
# API key of the dev account
dev_api_key = config.require_secret("devApiKey")
# API key of the Datadog account the events go to
dd_api_key = config.require_secret("ddApiKey")
prod = service.Provider("prod",
    api_key=prod_api_key,
    base_url=base_url)
dev = service.Provider("dev",
    api_key=dev_api_key,
    base_url=base_url)
prod_audit = service.EventDestination("prodAudit",
    description="prod audit",
    target={
        "datadog": {
            "api_key": dd_api_key,
            "ddsite": "datadoghq.eu",
        },
    },
    opts = pulumi.ResourceOptions(provider=prod))
prod_policies = service.EventSubscription("prodPolicies",
    description="prod policy changes",
    sources=[{
        "type": service.EventType.IP_POLICY_CREATED_V0,
    }],
    destination_ids=[prod_audit.id],
    opts = pulumi.ResourceOptions(provider=prod))
dev_audit = service.EventDestination("devAudit",
    description="dev audit",
    target={
        "datadog": {
            "api_key": dd_api_key,
            "ddsite": "datadoghq.eu",
        },
    },
    opts = pulumi.ResourceOptions(provider=dev))
dev_policies = service.EventSubscription("devPolicies",
    description="dev policy changes",
    sources=[{
        "type": service.EventType.IP_POLICY_CREATED_V0,
    }],
    destination_ids=[dev_audit.id],
    opts = pulumi.ResourceOptions(provider=dev))
pulumi.export("prodDestinationId", prod_audit.id)
pulumi.export("prodSubscriptionId", prod_policies.id)
pulumi.export("devDestinationId", dev_audit.id)
pulumi.export("devSubscriptionId", dev_policies.id)
