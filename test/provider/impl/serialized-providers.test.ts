/**
 * The dynamic door's stacks already deployed keep working with this package: each resource's
 * state holds its serialized provider (`__provider`), which requires
 * `pulumi-service/provider/impl/<module>` by package name at every later operation, so those
 * module paths and the functions they export are a public interface (docs/development.md §
 * Layout). The serialized providers recorded from a deployment of 0.1.0
 * (test/fixtures/dynamic-providers/) are loaded here as Pulumi's dynamic-provider host loads
 * them (`require-from-string`, then `handler()`, then `configure`), against the package as built
 * (`npm run build`, which `pretest` runs), and each one's `read` reads a resource of its kind
 * from the emulator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ServiceClient } from "../../../client";
import { startEmulator, type RunningEmulator } from "../../helpers/emulator";

const REPO = path.resolve(__dirname, "../../..");
const FIXTURES = path.join(REPO, "test", "fixtures", "dynamic-providers");

interface DynamicProvider {
  configure(req: { config: { get(key: string): string | undefined } }): Promise<void>;
  read(id: string, props: Record<string, unknown>): Promise<{ id?: string; props?: Record<string, unknown> }>;
}

/** Pulumi's host loads a serialized provider with require-from-string, its own dependency. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const requireFromString: (code: string, filename?: string) => { handler(): DynamicProvider } = require(
  require.resolve("require-from-string", {
    paths: [path.dirname(require.resolve("@pulumi/pulumi/package.json"))],
  }),
);

/** What each recorded file holds: the version that wrote it and one provider per type token. */
interface Recorded {
  version: string;
  providers: Record<string, string>;
}

const RECORDED: [string, Recorded][] = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .map((f) => [f, JSON.parse(fs.readFileSync(path.join(FIXTURES, f), "utf8")) as Recorded]);

const KINDS = ["AbuseReport", "EventDestination", "EventSubscription"] as const;

describe("serialized dynamic providers of earlier versions", () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  const ids: Record<(typeof KINDS)[number], string> = {
    AbuseReport: "",
    EventDestination: "",
    EventSubscription: "",
  };

  beforeAll(async () => {
    emulator = await startEmulator({});
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url, maxRetries: 0 });
    const destination = await client.eventDestinations.create({
      description: "recorded state",
      target: { datadog: { apiKey: "dd-serialized-provider-key", ddsite: "datadoghq.eu" } },
    });
    const subscription = await client.eventSubscriptions.create({
      description: "recorded state",
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destination.id],
    });
    const report = await client.abuseReports.create({ urls: ["https://phish.example.com/login"] });
    Object.assign(ids, {
      AbuseReport: report.id,
      EventDestination: destination.id,
      EventSubscription: subscription.id,
    });
  });

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  it("are recorded for 0.1.0, one for each resource kind", () => {
    const first = RECORDED.find(([, r]) => r.version === "0.1.0")?.[1];
    expect(Object.keys(first?.providers ?? {}).sort()).toEqual(
      KINDS.map((k) => `pulumi-nodejs:dynamic/service:${k}`),
    );
  });

  it.each(RECORDED.flatMap(([file, r]) => KINDS.map((kind) => [file, kind, r] as const)))(
    "%s: the %s provider loads from its package paths and reads the resource",
    async (_file, kind, recorded) => {
      const code = recorded.providers[`pulumi-nodejs:dynamic/service:${kind}`];
      expect(code).toMatch(/require\("pulumi-service\/provider\/impl\/\w+"\)/);
      // As the host does, from a program folder whose node_modules holds pulumi-service (here the
      // repository's own workspace link).
      const provider = requireFromString(code, path.join(REPO, "__provider.js")).handler();
      const config: Record<string, string> = {
        "service:baseUrl": emulator.url,
        "service:apiKey": emulator.apiKeys[0],
      };
      await provider.configure({ config: { get: (key) => config[key] } });
      const read = await provider.read(ids[kind], {});
      expect(read.id).toBe(ids[kind]);
      expect(read.props).toMatchObject(
        kind === "AbuseReport"
          ? { urls: ["https://phish.example.com/login"] }
          : { description: "recorded state" },
      );
    },
  );
});
