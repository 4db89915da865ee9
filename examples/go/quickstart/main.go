package main

import (
	"github.com/pulumi-service/pulumi-service/sdk/go/service"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		// API key of the Datadog account the events go to
		datadogApiKey := cfg.Require("datadogApiKey")
		datadog, err := service.NewEventDestination(ctx, "datadog", &service.EventDestinationArgs{
			Description: pulumi.String("Operational events to Datadog"),
			Target: &service.DestinationTargetArgs{
				Datadog: &service.DatadogTargetArgs{
					ApiKey: pulumi.ToSecret(datadogApiKey).(pulumi.StringOutput),
					Ddsite: pulumi.String("datadoghq.eu"),
				},
			},
		})
		if err != nil {
			return err
		}
		ipPolicyChanges, err := service.NewEventSubscription(ctx, "ipPolicyChanges", &service.EventSubscriptionArgs{
			Description: pulumi.String("IP policy changes"),
			Sources: service.EventSourceReplaceArray{
				&service.EventSourceReplaceArgs{
					Type: service.EventTypeIpPolicyCreatedV0,
				},
				&service.EventSourceReplaceArgs{
					Type: service.EventTypeIpPolicyUpdatedV0,
				},
			},
			DestinationIds: pulumi.StringArray{
				datadog.ID(),
			},
		})
		if err != nil {
			return err
		}
		phishing, err := service.NewAbuseReport(ctx, "phishing", &service.AbuseReportArgs{
			Urls: pulumi.StringArray{
				pulumi.String("https://phish.example.com/login"),
			},
		})
		if err != nil {
			return err
		}
		ctx.Export("subscriptionId", ipPolicyChanges.ID())
		ctx.Export("reportStatus", phishing.Status)
		return nil
	})
}
