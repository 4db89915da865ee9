/**
 * The functions of the generated Node.js SDK (sdk/nodejs, `pulumi-service/native`) with Pulumi's
 * mocks (`pulumi.runtime.setMocks`: no engine, no plugin, no service): each `get…` and
 * `get…Output` calls the schema's token with the args it was given and reads the result back in
 * the shapes the schema declares; a secret in the result (a destination's `target`, as the plugin
 * returns it) makes the `Output` form secret. The plugin's side of the same calls:
 * test/provider/native/invokes.test.ts; both through the engine: test/e2e/functions.test.ts.
 */
import * as pulumi from "@pulumi/pulumi";

// The SDK's sources, typed by the declarations `npm run build` makes of them (the package's
// `pulumi-service/native`): the same code a program runs, loaded through jest's module registry
// so that it shares this file's @pulumi/pulumi, and with it the mocks.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const service = require("../../../sdk/nodejs") as typeof import("pulumi-service/native");

const SUB = `esb_${"S".repeat(27)}`;
const DEST = `ed_${"D".repeat(27)}`;
const REPORT = `abrp_${"R".repeat(27)}`;
const common = { uri: "https://svc/x", createdAt: "2026-01-02T03:04:05Z", metadata: "" };
const subscription = {
  ...common,
  id: SUB,
  description: "policies",
  sources: [{ type: "ip_policy_created.v0", uri: "https://svc/s" }],
  destinationIds: [DEST],
  destinations: [{ id: DEST, uri: "https://svc/d" }],
};
const target = { datadog: { apiKey: "", ddsite: "datadoghq.eu", ddtags: "", service: "" } };
const destination = { ...common, id: DEST, description: "", format: "json", target };
const report = {
  ...common,
  id: REPORT,
  urls: ["https://phish.example.com/login"],
  status: "PENDING",
  hostnames: [{ hostname: "phish.example.com", status: "PENDING" }],
};

/** Every call the mocks received: token and args. */
const calls: { token: string; inputs: Record<string, unknown> }[] = [];

/** The plugin's answers: a destination's `target` secret, as provider/native/invokes.ts returns it. */
function answer(token: string, inputs: Record<string, unknown>): Record<string, unknown> {
  switch (token) {
    case "service:index:getEventSubscription":
      return { ...subscription, id: inputs.id };
    case "service:index:getEventDestination":
      return { ...destination, id: inputs.id, target: pulumi.secret(target) };
    case "service:index:getAbuseReport":
      return { ...report, id: inputs.id };
    case "service:index:getEventSubscriptions":
      return { items: [subscription] };
    case "service:index:getEventDestinations":
      return { items: pulumi.secret([destination]) };
    default:
      throw new Error(`unexpected token ${token}`);
  }
}

/** The value of a known output. */
const valueOf = <T>(o: pulumi.Output<T>) => new Promise<T>((resolve) => o.apply(resolve));

beforeAll(() =>
  pulumi.runtime.setMocks({
    newResource: (args) => ({ id: `${args.name}_id`, state: args.inputs }),
    call: (args) => {
      calls.push({ token: args.token, inputs: args.inputs });
      return answer(args.token, args.inputs);
    },
  }),
);
beforeEach(() => calls.splice(0));

describe("functions of the generated Node.js SDK with Pulumi's mocks", () => {
  it("the plain forms call each token with its args and return the results", async () => {
    expect(await service.getEventSubscription({ id: SUB })).toEqual(subscription);
    expect(await service.getEventDestination({ id: DEST })).toEqual(destination);
    expect(await service.getAbuseReport({ id: REPORT })).toEqual(report);
    expect(await service.getEventSubscriptions()).toEqual({ items: [subscription] });
    expect(await service.getEventDestinations()).toEqual({ items: [destination] });
    expect(calls).toEqual([
      { token: "service:index:getEventSubscription", inputs: { id: SUB } },
      { token: "service:index:getEventDestination", inputs: { id: DEST } },
      { token: "service:index:getAbuseReport", inputs: { id: REPORT } },
      { token: "service:index:getEventSubscriptions", inputs: {} },
      { token: "service:index:getEventDestinations", inputs: {} },
    ]);
  });

  it("the Output forms take an ID that is another resource's output and read the typed fields", async () => {
    const sub = service.getEventSubscriptionOutput({ id: pulumi.output(SUB) });
    const [destinationIds, sources] = await valueOf(pulumi.all([sub.destinationIds, sub.sources]));
    expect(destinationIds).toEqual([DEST]);
    expect(sources[0].type).toBe(service.EventType.IpPolicyCreatedV0);
    const status = await valueOf(service.getAbuseReportOutput({ id: REPORT }).status);
    expect(status).toBe(service.AbuseReportStatus.Pending);
    expect(await pulumi.isSecret(sub)).toBe(false);
    expect(calls).toEqual([
      { token: "service:index:getEventSubscription", inputs: { id: SUB } },
      { token: "service:index:getAbuseReport", inputs: { id: REPORT } },
    ]);
  });

  it("a secret in the result makes the Output form of a destination and of the destinations secret", async () => {
    const dest = service.getEventDestinationOutput({ id: DEST });
    expect(await pulumi.isSecret(dest)).toBe(true);
    expect(await pulumi.isSecret(dest.target)).toBe(true);
    expect(await valueOf(dest.target)).toEqual(target);
    const dests = service.getEventDestinationsOutput();
    expect(await pulumi.isSecret(dests.items)).toBe(true);
    expect((await valueOf(dests.items)).map((d) => d.id)).toEqual([DEST]);
  });
});
