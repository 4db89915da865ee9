/**
 * End to end through the native door: the plugin `pulumi-resource-service` (found through the
 * program's `plugins.providers[].path`, test/fixtures/native/Pulumi.yaml) driven by the real
 * Pulumi engine against the real emulator over HTTP. The program declares the resources as the
 * generated SDK does underneath (`pulumi.CustomResource` with the schema's tokens,
 * `pulumi.ProviderResource("service")`). Each step asserts on the emulator's data.
 */
import { execFile } from "child_process";
import * as path from "path";
import { promisify } from "util";
import type { Stack } from "@pulumi/pulumi/automation";
import { ServiceClient } from "../../client";
import { startEmulator } from "../helpers/emulator";
import { configureService, freshBackend, localStack, readCheckpoint, stackOutputs } from "../helpers/pulumi";
import type { Spec } from "../fixtures/native";

const program = path.join(__dirname, "..", "fixtures", "native");
const ENGINE_TIMEOUT = 600_000;
const DD_KEY = "dd-native-secret-key-8a1f3c";
const AWS_SECRET = "aws-native-secret-access-key-2d7e91";
const OUTSIDE_KEY = "dd-outside-made-key-4e0b77";
const KEYS = ["sk_native_first_account_5c2e8a", "sk_native_second_account_9b4d1f"];

/** The quickstart: two destinations (one with an AWS secret, one Datadog), a subscription, a report. */
function quickstart(): Spec {
  return {
    destinations: [
      {
        name: "stream",
        args: {
          description: "audit stream",
          target: {
            kinesis: {
              auth: {
                creds: { awsAccessKeyId: "AKIANATIVEEXAMPLE", awsSecretAccessKey: "secret:awsSecret" },
              },
              streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit",
            },
          },
        },
      },
      // A credential given in plain text: the provider must still keep it secret.
      { name: "dd", args: { target: { datadog: { apiKey: DD_KEY, ddsite: "datadoghq.eu" } } } },
    ],
    subscriptions: [
      {
        name: "multi",
        destinations: ["stream", "dd"],
        args: {
          description: "first",
          sources: [{ type: "ip_policy_created.v0" }, { type: "ip_policy_updated.v0" }],
        },
      },
    ],
    reports: [{ name: "report", args: { urls: ["https://phish.example.com/login"] } }],
  };
}

/** What the service holds for an account, without IDs, URIs and times (comparable across stacks). */
async function serviceState(client: ServiceClient) {
  const dests = [];
  for await (const d of client.eventDestinations.list()) dests.push(d);
  const subs = [];
  for await (const s of client.eventSubscriptions.list()) subs.push(s);
  const nameOf = new Map(dests.map((d) => [d.id, d.description || JSON.stringify(d.target)]));
  return {
    destinations: dests
      .map((d) => ({ description: d.description, format: d.format, target: d.target }))
      .sort(byJson),
    subscriptions: subs
      .map((s) => ({
        description: s.description,
        metadata: s.metadata,
        sources: s.sources.map((x) => x.type),
        destinations: s.destinations.map((d) => nameOf.get(d.id)).sort(),
      }))
      .sort(byJson),
  };
}
const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));

describe("native provider plugin end to end (real engine, real emulator)", () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let stack: Stack;
  let env: Record<string, string>;
  let client: ServiceClient;
  let second: ServiceClient;
  let spec: Spec;
  let backend: string;
  /** The subscription step 5 reads with `get`: not the stack's to delete. */
  let readOnlyId: string;

  const outputs = (s: Stack = stack) => stackOutputs(s);
  const setSpec = (s: Spec) => stack.setConfig("spec", { value: JSON.stringify(s) });
  const stateOf = async (name: string) =>
    (
      (await stack.exportStack()).deployment.resources as { urn: string; outputs?: Record<string, unknown> }[]
    ).find((r) => r.urn.endsWith(`::${name}`));

  /** Runs the project's CLI in the program folder on the test's stack. */
  const cli = (...args: string[]) =>
    promisify(execFile)("pulumi", [...args, "--stack", "native", "--non-interactive"], {
      cwd: program,
      env,
      maxBuffer: 16 * 1024 * 1024,
    });

  beforeAll(async () => {
    emulator = await startEmulator({ apiKeys: KEYS });
    client = new ServiceClient({ apiKey: KEYS[0], baseUrl: emulator.url });
    second = new ServiceClient({ apiKey: KEYS[1], baseUrl: emulator.url });
    backend = freshBackend("e2e-native");
    ({ stack, env } = await localStack(program, "native", backend));
    await configureService(stack, emulator.url, KEYS[0]);
    await stack.setConfig("awsSecret", { value: AWS_SECRET, secret: true });
    await stack.setConfig("door", { value: "native" });
    spec = quickstart();
    await setSpec(spec);
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    await client?.close();
    await second?.close();
    await emulator?.close();
  });

  it(
    "1. up deploys the quickstart through the plugin; a preview after it has no changes",
    async () => {
      const up = await stack.up();
      expect(up.summary.resourceChanges?.create).toBe(5); // 4 resources and the stack
      const o = await outputs();
      expect(o.subscriptionIds.multi).toMatch(/^esb_[0-9A-Za-z]{27}$/);
      expect(o.reportStatuses.report).toBe("PENDING");
      const sub = await client.eventSubscriptions.get(o.subscriptionIds.multi);
      expect(sub.description).toBe("first");
      expect(sub.destinations.map((d) => d.id).sort()).toEqual(
        [o.destinationIds.stream, o.destinationIds.dd].sort(),
      );
      expect((await stateOf("multi"))?.urn).toContain("service:index:EventSubscription");

      const preview = await stack.preview({ expectNoChanges: true });
      expect(preview.changeSummary.same).toBe(5);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "2. a new description updates in place; a new report URL replaces the report",
    async () => {
      const before = await outputs();
      spec.subscriptions[0].args.description = "second";
      spec.reports[0].args.urls = ["https://other.example.org/phish"];
      await setSpec(spec);
      const up = await stack.up();
      expect(up.summary.resourceChanges).toEqual({ update: 1, replace: 1, same: 3 });
      const after = await outputs();
      expect(after.subscriptionIds.multi).toBe(before.subscriptionIds.multi);
      expect((await client.eventSubscriptions.get(after.subscriptionIds.multi)).description).toBe("second");
      expect(after.reportIds.report).not.toBe(before.reportIds.report);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "3. refresh takes an out-of-band edit into the state; up restores the program",
    async () => {
      const id = (await outputs()).subscriptionIds.multi;
      await client.eventSubscriptions.update(id, { description: "edited by hand" });
      const refresh = await stack.refresh();
      expect(refresh.summary.resourceChanges?.update).toBe(1);
      expect((await stateOf("multi"))?.outputs?.description).toBe("edited by hand");
      // Write-only credentials read back empty are kept from the state: no drift there.
      await stack.up();
      expect((await client.eventSubscriptions.get(id)).description).toBe("second");
      await stack.preview({ expectNoChanges: true });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "4. pulumi import takes an existing subscription; the program that declares it has no diff",
    async () => {
      const dd = (await outputs()).destinationIds.dd;
      const made = await client.eventSubscriptions.create({
        sources: [{ type: "http_request_complete.v0" }],
        destinationIds: [dd],
        description: "made outside",
      });
      // Code generation is left out: the project's own Node.js language host (tools/pulumi)
      // does not implement GenerateProgram; Pulumi's released host does (docs/providers.md).
      const { stdout } = await cli(
        "import",
        "service:index:EventSubscription",
        "outside",
        made.id,
        "--yes",
        "--protect=false",
        "--generate-code=false",
      );
      expect(stdout).toMatch(/= 1 imported/);
      const state = await stateOf("outside");
      expect(state?.outputs?.description).toBe("made outside");
      // The program gains the resource with the inputs it has: no change.
      spec.imports = [
        {
          name: "outside",
          id: made.id,
          args: {
            sources: [{ type: "http_request_complete.v0" }],
            destinationIds: [dd],
            description: "made outside",
          },
        },
      ];
      await setSpec(spec);
      await stack.preview({ expectNoChanges: true });
      expect((await client.eventSubscriptions.get(made.id)).description).toBe("made outside");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "4b. pulumi import of a destination keeps its write-only credential out of the state; the next up sends the program's once, then no diff",
    async () => {
      const made = await client.eventDestinations.create({
        description: "outside destination",
        target: { datadog: { apiKey: OUTSIDE_KEY } },
      });
      const { stdout } = await cli(
        "import",
        "service:index:EventDestination",
        "outsideDest",
        made.id,
        "--yes",
        "--protect=false",
        "--generate-code=false",
      );
      expect(stdout).toMatch(/= 1 imported/);
      // Not even encrypted: the API never returns it, so the state holds "".
      expect((await cli("stack", "export", "--show-secrets")).stdout).not.toContain(OUTSIDE_KEY);

      await stack.setConfig("outsideKey", { value: OUTSIDE_KEY, secret: true });
      spec.destinations.push({
        name: "outsideDest",
        args: { description: "outside destination", target: { datadog: { apiKey: "secret:outsideKey" } } },
      });
      await setSpec(spec);
      const up = await stack.up();
      expect(up.summary.resourceChanges?.update).toBe(1);
      await stack.preview({ expectNoChanges: true });
      await stack.refresh();
      await stack.preview({ expectNoChanges: true });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "5. the import resource option adopts; get reads a subscription without managing it",
    async () => {
      const dd = (await outputs()).destinationIds.dd;
      const adopted = await client.eventSubscriptions.create({
        sources: [{ type: "tcp_connection_closed.v0" }],
        destinationIds: [dd],
      });
      const readOnly = await client.eventSubscriptions.create({
        sources: [{ type: "agent_session_start.v0" }],
        destinationIds: [dd],
        description: "only read",
      });
      spec.imports!.push({
        name: "adopted",
        id: adopted.id,
        args: { sources: [{ type: "tcp_connection_closed.v0" }], destinationIds: [dd] },
      });
      spec.gets = [{ name: "peek", id: readOnly.id }];
      readOnlyId = readOnly.id;
      await setSpec(spec);
      const up = await stack.up();
      expect(up.summary.resourceChanges?.import).toBe(1);
      expect((await outputs()).gotDescriptions.peek).toBe("only read");
      expect((await outputs()).subscriptionIds.adopted).toBe(adopted.id);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "6. an explicit provider's API key and URL reach the client: its destination is in the second account",
    async () => {
      await stack.setConfig("secondApiKey", { value: KEYS[1], secret: true });
      await stack.setConfig("secondBaseUrl", { value: emulator.url });
      spec.explicit = [
        {
          name: "elsewhere",
          args: { description: "second account", target: { datadog: { apiKey: "secret:ddSecond" } } },
        },
      ];
      await stack.setConfig("ddSecond", { value: "dd-second-account-key-71c0", secret: true });
      await setSpec(spec);
      await stack.up();
      const id = (await outputs()).destinationIds.elsewhere;
      expect((await second.eventDestinations.get(id)).description).toBe("second account");
      await expect(client.eventDestinations.get(id)).rejects.toThrow();
    },
    ENGINE_TIMEOUT,
  );

  it(
    "7. no secret is in plain form in the state: API keys and destination credentials",
    async () => {
      // `pulumi stack export` as a user runs it (the Automation API's export shows secrets).
      const exported = (await cli("stack", "export")).stdout;
      const stored = readCheckpoint(backend);
      for (const text of [exported, stored]) {
        for (const secret of [...KEYS, DD_KEY, AWS_SECRET, OUTSIDE_KEY, "dd-second-account-key-71c0"]) {
          expect(text).not.toContain(secret);
        }
      }
      // The native door stores no serialized provider code.
      expect(exported).not.toContain("__provider");
      // …and the values are there, encrypted: the API keys of both providers (inputs and
      // outputs), the targets of the four destinations (inputs and outputs).
      expect(exported.match(/"ciphertext"/g)?.length).toBe(12);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "8. destroy deletes what the stack manages; the same quickstart through the dynamic door gives the same service state",
    async () => {
      spec.imports = [];
      spec.gets = [];
      spec.explicit = [];
      await setSpec(spec);
      await stack.up(); // drops the imported subscriptions (deleted) and the second account's destination
      // `get` did not take it under management: still there, deleted here by hand.
      await client.eventSubscriptions.delete(readOnlyId);
      const native = await serviceState(client);
      await stack.destroy();
      expect((await serviceState(client)).destinations).toEqual([]);
      expect(await serviceState(second)).toEqual({ destinations: [], subscriptions: [] });

      await stack.setConfig("door", { value: "dynamic" });
      await stack.up();
      expect(await serviceState(client)).toEqual(native);
      expect(JSON.stringify(await stack.exportStack())).toContain(
        "pulumi-nodejs:dynamic/service:EventSubscription",
      );
      await stack.destroy();
      expect(await serviceState(client)).toEqual({ destinations: [], subscriptions: [] });
    },
    ENGINE_TIMEOUT,
  );
});
