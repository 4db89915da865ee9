package main

import (
	"github.com/pulumi-service/pulumi-service/sdk/go/service"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		// The service's API URL, shared by both accounts
		baseUrl := cfg.Require("baseUrl")
		// API key of the prod account
		prodApiKey := cfg.RequireSecret("prodApiKey")
		// API key of the dev account
		devApiKey := cfg.RequireSecret("devApiKey")
		// API key of the Datadog account the events go to
		ddApiKey := cfg.RequireSecret("ddApiKey")
		prod, err := service.NewProvider(ctx, "prod", &service.ProviderArgs{
			ApiKey:  prodApiKey,
			BaseUrl: pulumi.String(baseUrl),
		})
		if err != nil {
			return err
		}
		dev, err := service.NewProvider(ctx, "dev", &service.ProviderArgs{
			ApiKey:  devApiKey,
			BaseUrl: pulumi.String(baseUrl),
		})
		if err != nil {
			return err
		}
		prodAudit, err := service.NewEventDestination(ctx, "prodAudit", &service.EventDestinationArgs{
			Description: pulumi.String("prod audit"),
			Target: &service.DestinationTargetArgs{
				Datadog: &service.DatadogTargetArgs{
					ApiKey: ddApiKey,
					Ddsite: pulumi.String("datadoghq.eu"),
				},
			},
		}, pulumi.Provider(prod))
		if err != nil {
			return err
		}
		prodPolicies, err := service.NewEventSubscription(ctx, "prodPolicies", &service.EventSubscriptionArgs{
			Description: pulumi.String("prod policy changes"),
			Sources: service.EventSourceReplaceArray{
				&service.EventSourceReplaceArgs{
					Type: service.EventTypeIpPolicyCreatedV0,
				},
			},
			DestinationIds: pulumi.StringArray{
				prodAudit.ID(),
			},
		}, pulumi.Provider(prod))
		if err != nil {
			return err
		}
		devAudit, err := service.NewEventDestination(ctx, "devAudit", &service.EventDestinationArgs{
			Description: pulumi.String("dev audit"),
			Target: &service.DestinationTargetArgs{
				Datadog: &service.DatadogTargetArgs{
					ApiKey: ddApiKey,
					Ddsite: pulumi.String("datadoghq.eu"),
				},
			},
		}, pulumi.Provider(dev))
		if err != nil {
			return err
		}
		devPolicies, err := service.NewEventSubscription(ctx, "devPolicies", &service.EventSubscriptionArgs{
			Description: pulumi.String("dev policy changes"),
			Sources: service.EventSourceReplaceArray{
				&service.EventSourceReplaceArgs{
					Type: service.EventTypeIpPolicyCreatedV0,
				},
			},
			DestinationIds: pulumi.StringArray{
				devAudit.ID(),
			},
		}, pulumi.Provider(dev))
		if err != nil {
			return err
		}
		ctx.Export("prodDestinationId", prodAudit.ID())
		ctx.Export("prodSubscriptionId", prodPolicies.ID())
		ctx.Export("devDestinationId", devAudit.ID())
		ctx.Export("devSubscriptionId", devPolicies.ID())
		return nil
	})
}
