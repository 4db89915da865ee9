module multiaccount

go 1.25

require (
	github.com/pulumi-service/pulumi-service/sdk/go v0.2.0
	github.com/pulumi/pulumi/sdk/v3 v3.248.0
)
