/**
 * End to end through the native door: the plugin `pulumi-resource-service` (found through the
 * program's `plugins.providers[].path`, test/fixtures/native/Pulumi.yaml) driven by the real
 * Pulumi engine against the real emulator over HTTP. The program declares the resources as the
 * generated SDK does underneath (`pulumi.CustomResource` with the schema's tokens,
 * `pulumi.ProviderResource("service")`). Each step asserts on the emulator's data.
 */
import { ServiceClient } from "../../client";
import {
  expectNoChangesPreview,
  expectUpChanges,
  startDoorsStack,
  type EngineStack,
} from "../helpers/engine-stack";
import { readStoredState } from "../helpers/pulumi";
import { editMultiAndRefresh, expectMultiDeployed, streamAndDatadog } from "../helpers/stream-and-datadog";
import type { Spec } from "../fixtures/native";

const ENGINE_TIMEOUT = 600_000;
const DD_KEY = "dd-native-secret-key-8a1f3c";
const AWS_SECRET = "aws-native-secret-access-key-2d7e91";
const OUTSIDE_KEY = "dd-outside-made-key-4e0b77";
const KEYS = ["sk_native_first_account_5c2e8a", "sk_native_second_account_9b4d1f"];

/** The quickstart: two destinations (one with an AWS secret, one Datadog), a subscription, a report. */
function quickstart(): Spec {
  const { destinations, multi } = streamAndDatadog({
    awsAccessKeyId: "AKIANATIVEEXAMPLE",
    // A credential given in plain text: the provider must still keep it secret.
    ddApiKey: DD_KEY,
    description: "first",
  });
  return {
    destinations,
    subscriptions: [multi],
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
  let e2e: EngineStack;
  let second: ServiceClient;
  let spec: Spec;
  /** The subscription step 5 reads with `get`: not the stack's to delete. */
  let readOnlyId: string;

  const setSpec = (s: Spec) => e2e.stack.setConfig("spec", { value: JSON.stringify(s) });
  /** The args of a subscription to `type` events sent to the stack's Datadog destination. */
  const ddSubscription = async (type: string, description?: string) => ({
    sources: [{ type }],
    destinationIds: [(await e2e.outputs()).destinationIds.dd],
    ...(description === undefined ? {} : { description }),
  });
  /**
   * `pulumi import` of the service's resource `id` of `type` as `name`. Code generation is left
   * out: the project's own Node.js language host (tools/pulumi) does not implement
   * GenerateProgram; Pulumi's released host does (docs/providers.md).
   */
  const pulumiImport = (type: string, name: string, id: string) =>
    e2e.cli("import", `service:index:${type}`, name, id, "--yes", "--protect=false", "--generate-code=false");

  beforeAll(async () => {
    e2e = await startDoorsStack("native", "native", KEYS);
    second = new ServiceClient({ apiKey: KEYS[1], baseUrl: e2e.emulator.url });
    await e2e.stack.setConfig("awsSecret", { value: AWS_SECRET, secret: true });
    spec = quickstart();
    await setSpec(spec);
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    await second?.close();
    await e2e?.close();
  });

  it(
    "1. up deploys the quickstart through the plugin; a preview after it has no changes",
    async () => {
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges?.create).toBe(5); // 4 resources and the stack
      const { o } = await expectMultiDeployed(e2e, "first");
      expect(o.reportStatuses.report).toBe("PENDING");
      expect((await e2e.resource("multi"))?.urn).toContain("service:index:EventSubscription");

      await expectNoChangesPreview(e2e, 5);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "2. a new description updates in place; a new report URL replaces the report",
    async () => {
      const before = await e2e.outputs();
      spec.subscriptions[0].args.description = "second";
      spec.reports[0].args.urls = ["https://other.example.org/phish"];
      await setSpec(spec);
      await expectUpChanges(e2e, { update: 1, replace: 1, same: 3 });
      const after = await e2e.outputs();
      expect(after.subscriptionIds.multi).toBe(before.subscriptionIds.multi);
      expect((await e2e.client.eventSubscriptions.get(after.subscriptionIds.multi)).description).toBe(
        "second",
      );
      expect(after.reportIds.report).not.toBe(before.reportIds.report);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "3. refresh takes an out-of-band edit into the state; up restores the program",
    async () => {
      const id = await editMultiAndRefresh(e2e);
      // Write-only credentials read back empty are kept from the state: no drift there.
      await e2e.stack.up();
      expect((await e2e.client.eventSubscriptions.get(id)).description).toBe("second");
      await e2e.stack.preview({ expectNoChanges: true });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "4. pulumi import takes an existing subscription; the program that declares it has no diff",
    async () => {
      const args = await ddSubscription("http_request_complete.v0", "made outside");
      const made = await e2e.client.eventSubscriptions.create(args);
      const { stdout } = await pulumiImport("EventSubscription", "outside", made.id);
      expect(stdout).toMatch(/= 1 imported/);
      const state = await e2e.resource("outside");
      expect(state?.outputs?.description).toBe("made outside");
      // The program gains the resource with the inputs it has: no change.
      spec.imports = [{ name: "outside", id: made.id, args }];
      await setSpec(spec);
      await e2e.stack.preview({ expectNoChanges: true });
      expect((await e2e.client.eventSubscriptions.get(made.id)).description).toBe("made outside");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "4b. pulumi import of a destination keeps its write-only credential out of the state; the next up sends the program's once, then no diff",
    async () => {
      const made = await e2e.client.eventDestinations.create({
        description: "outside destination",
        target: { datadog: { apiKey: OUTSIDE_KEY } },
      });
      const { stdout } = await pulumiImport("EventDestination", "outsideDest", made.id);
      expect(stdout).toMatch(/= 1 imported/);
      // Not even encrypted: the API never returns it, so the state holds "".
      expect((await e2e.cli("stack", "export", "--show-secrets")).stdout).not.toContain(OUTSIDE_KEY);

      await e2e.stack.setConfig("outsideKey", { value: OUTSIDE_KEY, secret: true });
      spec.destinations.push({
        name: "outsideDest",
        args: { description: "outside destination", target: { datadog: { apiKey: "secret:outsideKey" } } },
      });
      await setSpec(spec);
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges?.update).toBe(1);
      await e2e.stack.preview({ expectNoChanges: true });
      await e2e.stack.refresh();
      await e2e.stack.preview({ expectNoChanges: true });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "5. the import resource option adopts; get reads a subscription without managing it",
    async () => {
      const args = await ddSubscription("tcp_connection_closed.v0");
      const adopted = await e2e.client.eventSubscriptions.create(args);
      const readOnly = await e2e.client.eventSubscriptions.create(
        await ddSubscription("agent_session_start.v0", "only read"),
      );
      spec.imports!.push({ name: "adopted", id: adopted.id, args });
      spec.gets = [{ name: "peek", id: readOnly.id }];
      readOnlyId = readOnly.id;
      await setSpec(spec);
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges?.import).toBe(1);
      expect((await e2e.outputs()).gotDescriptions.peek).toBe("only read");
      expect((await e2e.outputs()).subscriptionIds.adopted).toBe(adopted.id);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "6. an explicit provider's API key and URL reach the client: its destination is in the second account",
    async () => {
      await e2e.stack.setConfig("secondApiKey", { value: KEYS[1], secret: true });
      await e2e.stack.setConfig("secondBaseUrl", { value: e2e.emulator.url });
      spec.explicit = [
        {
          name: "elsewhere",
          args: { description: "second account", target: { datadog: { apiKey: "secret:ddSecond" } } },
        },
      ];
      await e2e.stack.setConfig("ddSecond", { value: "dd-second-account-key-71c0", secret: true });
      await setSpec(spec);
      await e2e.stack.up();
      const id = (await e2e.outputs()).destinationIds.elsewhere;
      expect((await second.eventDestinations.get(id)).description).toBe("second account");
      // The default provider's account does not hold it: the service answers 404.
      await expect(e2e.client.eventDestinations.get(id)).rejects.toMatchObject({ status: 404 });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "7. no secret is in plain form in the state: API keys and destination credentials",
    async () => {
      // `pulumi stack export` as a user runs it (the Automation API's export shows secrets).
      const exported = (await e2e.cli("stack", "export")).stdout;
      // Every state the backend keeps (checkpoints, history, backups), and the update records too
      // but for DD_KEY: the program is given that key in a plain stack config value (`spec`),
      // which the update records keep as set.
      const state = readStoredState(e2e.backend, { updateRecords: false });
      const stored = readStoredState(e2e.backend);
      const secretConfig = [...KEYS, AWS_SECRET, OUTSIDE_KEY, "dd-second-account-key-71c0"];
      for (const text of [exported, state])
        for (const secret of [...secretConfig, DD_KEY]) expect(text).not.toContain(secret);
      for (const secret of secretConfig) expect(stored).not.toContain(secret);
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
      await e2e.stack.up(); // drops the imported subscriptions (deleted) and the second account's destination
      // `get` did not take it under management: still there, deleted here by hand.
      await e2e.client.eventSubscriptions.delete(readOnlyId);
      const native = await serviceState(e2e.client);
      await e2e.stack.destroy();
      expect((await serviceState(e2e.client)).destinations).toEqual([]);
      expect(await serviceState(second)).toEqual({ destinations: [], subscriptions: [] });

      await e2e.stack.setConfig("door", { value: "dynamic" });
      await e2e.stack.up();
      expect(await serviceState(e2e.client)).toEqual(native);
      expect(JSON.stringify(await e2e.stack.exportStack())).toContain(
        "pulumi-nodejs:dynamic/service:EventSubscription",
      );
      await e2e.stack.destroy();
      expect(await serviceState(e2e.client)).toEqual({ destinations: [], subscriptions: [] });
    },
    ENGINE_TIMEOUT,
  );
});
