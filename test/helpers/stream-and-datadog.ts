/**
 * The resources the lifecycle and native engine tests (test/e2e/lifecycle.test.ts, native.test.ts)
 * deploy first, as parts of their stack config `spec`: an audit stream (Kinesis, authenticated by
 * an access key whose secret is the secret stack config `awsSecret`), a Datadog destination, and
 * the subscription `multi` of IP policy creates and updates sent to both; the checks of them on
 * the service after `up`, and the out-of-band edit of `multi`.
 */
import { refreshOutOfBandEdit, type EngineStack } from "./engine-stack";

/** A destination of a spec: its resource name and the args of `EventDestination`. */
export interface SpecDestination {
  name: string;
  args: Record<string, unknown>;
}

/** A subscription of a spec: its resource name, its destinations by resource name, its args. */
export interface SpecSubscriptionEntry {
  name: string;
  destinations: string[];
  args: Record<string, unknown>;
}

/**
 * The destinations `stream` and `dd` and the subscription `multi` (described `description`) sent
 * to both. `awsAccessKeyId` is the stream's access key ID; `ddApiKey` the Datadog API key as the
 * spec gives it (`"secret:NAME"` for a secret stack config, or the key in plain text).
 */
export function streamAndDatadog(opts: { awsAccessKeyId: string; ddApiKey: string; description: string }): {
  destinations: SpecDestination[];
  multi: SpecSubscriptionEntry;
} {
  return {
    destinations: [
      {
        name: "stream",
        args: {
          description: "audit stream",
          target: {
            kinesis: {
              auth: {
                creds: { awsAccessKeyId: opts.awsAccessKeyId, awsSecretAccessKey: "secret:awsSecret" },
              },
              streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit",
            },
          },
        },
      },
      { name: "dd", args: { target: { datadog: { apiKey: opts.ddApiKey, ddsite: "datadoghq.eu" } } } },
    ],
    multi: {
      name: "multi",
      destinations: ["stream", "dd"],
      args: {
        description: opts.description,
        sources: [{ type: "ip_policy_created.v0" }, { type: "ip_policy_updated.v0" }],
      },
    },
  };
}

/**
 * Asserts that the stack's output `subscriptionIds.multi` is a subscription ID (`esb_…`) and that
 * the service's subscription of that ID has `description` and sends to the stack's destinations
 * `stream` and `dd`. Returns the outputs and the subscription, for further checks.
 */
export async function expectMultiDeployed(e2e: EngineStack, description: string) {
  const o = await e2e.outputs();
  expect(o.subscriptionIds.multi).toMatch(/^esb_[0-9A-Za-z]{27}$/);
  const multi = await e2e.client.eventSubscriptions.get(o.subscriptionIds.multi);
  expect(multi.description).toBe(description);
  expect(multi.destinations.map((d) => d.id).sort()).toEqual(
    [o.destinationIds.stream, o.destinationIds.dd].sort(),
  );
  return { o, multi };
}

/**
 * {@link refreshOutOfBandEdit} of the subscription `multi` (its ID read from the stack's output
 * `subscriptionIds.multi`): edited on the service, then the stack refreshed. Returns that ID.
 */
export async function editMultiAndRefresh(e2e: EngineStack): Promise<string> {
  const id = (await e2e.outputs()).subscriptionIds.multi;
  await refreshOutOfBandEdit(e2e, id, "multi");
  return id;
}
