/**
 * The dynamic door's stacks already deployed keep working with this package: each resource's
 * state holds its serialized provider (`__provider`), which requires
 * `pulumi-service/provider/impl/<module>` by package name at every later operation, so those
 * module paths and the functions they export are a public interface (docs/development.md §
 * Layout). The serialized providers recorded from a deployment of 0.1.0
 * (test/fixtures/dynamic-providers/), and those of every stack state recorded for the upgrade tests
 * (`__provider` of each resource of test/upgrade/<version>/dynamic.json, see test/upgrade/record.ts),
 * each distinct string once, are loaded here as Pulumi's dynamic-provider host loads them (`require-from-string`, then `handler()`, then `configure`), against the package as built
 * (`npm run build`, which `pretest` runs), and each one's `read` reads a resource of its kind
 * from the emulator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { ServiceClient } from "../../../client";
import { startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { loadRecording, recordedVersions } from "../../helpers/upgrade";

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

const FROM_FIXTURES: [string, Recorded][] = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json"))
  .map((f) => [f, JSON.parse(fs.readFileSync(path.join(FIXTURES, f), "utf8")) as Recorded]);

/** The providers of each recorded upgrade state, as `[label, { version, providers }]`. */
const FROM_UPGRADE_STATES: [string, Recorded][] = recordedVersions().map((version) => {
  const providers: Record<string, string> = {};
  const resources = loadRecording(version).states.dynamic.deployment.resources as {
    type: string;
    inputs?: { __provider?: string };
    outputs?: { __provider?: string };
  }[];
  for (const r of resources) {
    for (const code of [r.inputs?.__provider, r.outputs?.__provider]) {
      if (code === undefined) continue;
      // One string per kind: a second, different one would need a label of its own.
      if ((providers[r.type] ?? code) !== code) throw new Error(`${version}: two providers for ${r.type}`);
      providers[r.type] = code;
    }
  }
  return [`upgrade/${version}/dynamic.json`, { version, providers }];
});

/** Both sources, each distinct provider string once (under the labels of the files holding it). */
const RECORDED: [string, Recorded][] = (() => {
  const labels = new Map<string, string[]>();
  for (const [file, r] of [...FROM_FIXTURES, ...FROM_UPGRADE_STATES])
    for (const code of Object.values(r.providers)) labels.set(code, [...(labels.get(code) ?? []), file]);
  const seen = new Set<string>();
  return [...FROM_FIXTURES, ...FROM_UPGRADE_STATES].flatMap(([, r]): [string, Recorded][] => {
    const fresh = Object.entries(r.providers).filter(([, code]) => !seen.has(code));
    for (const [, code] of fresh) seen.add(code);
    return fresh.map(([type, code]) => [
      labels.get(code)!.join(" = "),
      { version: r.version, providers: { [type]: code } },
    ]);
  });
})();

const KINDS = ["AbuseReport", "EventDestination", "EventSubscription"] as const;

/** The package's modules that deployed dynamic states require (docs/development.md § Layout). */
const PUBLIC_MODULES = [
  "pulumi-service/provider/impl/runtime",
  "pulumi-service/provider/impl/eventSubscription",
  "pulumi-service/provider/impl/eventDestination",
  "pulumi-service/provider/impl/abuseReport",
];

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

  it.each([...FROM_FIXTURES, ...FROM_UPGRADE_STATES].filter(([, r]) => r.version === "0.1.0"))(
    "%s holds the providers of 0.1.0, one for each resource kind",
    (_file, recorded) => {
      expect(Object.keys(recorded.providers).sort()).toEqual(
        KINDS.map((k) => `pulumi-nodejs:dynamic/service:${k}`),
      );
    },
  );

  it.each(
    RECORDED.map(([file, r]) => {
      const [type, code] = Object.entries(r.providers)[0];
      return [file, type.split(":").pop() as (typeof KINDS)[number], code] as const;
    }),
  )("%s: the %s provider loads from its package paths and reads the resource", async (_file, kind, code) => {
    // Only the module paths docs/development.md names as a public interface (§ Layout).
    const required = [...code.matchAll(/require\("(pulumi-service[^"]*)"\)/g)].map((m) => m[1]);
    expect(required.length).toBeGreaterThan(0);
    for (const m of required) expect(PUBLIC_MODULES).toContain(m);
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
  });
});
