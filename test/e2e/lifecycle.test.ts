/**
 * End to end: one stack's whole lifecycle through the real Pulumi engine (Automation API, the
 * project's CLI and Node language host) against the real emulator over HTTP. Each step asserts
 * on the emulator's data, not only on Pulumi's outputs.
 */
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { ServiceClient } from "../../client";
import { clearRequestLog, getRequestLog, review, startEmulator } from "../helpers/emulator";
import { configureService, freshBackend, localStack, readCheckpoint, stackOutputs } from "../helpers/pulumi";

const program = path.join(__dirname, "..", "fixtures", "lifecycle");
const DD_KEY = "dd-e2e-secret-key-5f1c2a9b";
const AWS_SECRET = "aws-e2e-secret-access-key-77d0e3";
const ENGINE_TIMEOUT = 600_000;
const WRONG_KEY = "sk_wrong_e2e_key_3b9c1d7f";

/**
 * Makes every `up`, `preview`, `refresh` and `destroy` of `stack` also append the engine's output
 * to `sink` (step 12 searches it for keys and secrets).
 */
function recordEngineOutput(stack: Stack, sink: string[]): void {
  const tee = <O extends { onOutput?: (out: string) => void }>(opts: O | undefined): O =>
    ({
      ...opts,
      onOutput: (out: string) => {
        sink.push(out);
        opts?.onOutput?.(out);
      },
    }) as O;
  const { up, preview, refresh, destroy } = stack;
  stack.up = (opts) => up.call(stack, tee(opts));
  stack.preview = (opts) => preview.call(stack, tee(opts));
  stack.refresh = (opts) => refresh.call(stack, tee(opts));
  stack.destroy = (opts) => destroy.call(stack, tee(opts));
}

type Spec = {
  destinations: { name: string; args: Record<string, unknown> }[];
  subscriptions: { name: string; destinations: string[]; args: Record<string, unknown> }[];
  reports: { name: string; args: { urls: string[]; metadata?: string } }[];
};

function baseSpec(): Spec {
  return {
    destinations: [
      {
        name: "stream",
        args: {
          description: "audit stream",
          target: {
            kinesis: {
              auth: { creds: { awsAccessKeyId: "AKIAE2EEXAMPLE", awsSecretAccessKey: "secret:awsSecret" } },
              streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit",
            },
          },
        },
      },
      { name: "dd", args: { target: { datadog: { apiKey: "secret:ddApiKey", ddsite: "datadoghq.eu" } } } },
    ],
    subscriptions: [
      {
        name: "multi",
        destinations: ["stream", "dd"],
        args: {
          description: "first description",
          sources: [{ type: "ip_policy_created.v0" }, { type: "ip_policy_updated.v0" }],
        },
      },
      {
        name: "single",
        destinations: ["dd"],
        args: { sources: [{ type: "http_request_complete.v0" }], metadata: '{"team":"edge"}' },
      },
    ],
    reports: [
      { name: "report", args: { urls: ["https://phish.example.com/login", "http://Malware.Example.net/x"] } },
    ],
  };
}

describe("provider end to end (real engine, real emulator)", () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let stack: Stack;
  let client: ServiceClient;
  let spec: Spec;
  let apiKey: string;
  let backend: string;
  const engineOutput: string[] = [];

  const outputs = () => stackOutputs(stack);
  const setSpec = (s: Spec) => stack.setConfig("spec", { value: JSON.stringify(s) });
  const stateResources = async () =>
    ((await stack.exportStack()).deployment.resources ?? []) as {
      urn: string;
      id?: string;
      type: string;
      outputs?: Record<string, unknown>;
    }[];
  const byName = async (name: string) => (await stateResources()).find((r) => r.urn.endsWith(`::${name}`));
  const writes = async () =>
    (await getRequestLog(emulator.url, emulator.adminKey)).requests.filter((r: { method: string }) =>
      ["POST", "PATCH", "DELETE"].includes(r.method),
    );

  beforeAll(async () => {
    emulator = await startEmulator({});
    apiKey = emulator.apiKeys[0];
    client = new ServiceClient({ apiKey, baseUrl: emulator.url });
    backend = freshBackend("e2e-lifecycle");
    ({ stack } = await localStack(program, "e2e", backend));
    recordEngineOutput(stack, engineOutput);
    await configureService(stack, emulator.url, apiKey);
    // Destination secrets come from secret stack config, as a user's would.
    await stack.setConfig("ddApiKey", { value: DD_KEY, secret: true });
    await stack.setConfig("awsSecret", { value: AWS_SECRET, secret: true });
    spec = baseSpec();
    await setSpec(spec);
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  it(
    "1. up creates everything with the right ID prefixes; the abuse report is PENDING",
    async () => {
      const up = await stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges?.create).toBe(6);
      const o = await outputs();
      expect(o.destinationIds.stream).toMatch(/^ed_[0-9A-Za-z]{27}$/);
      expect(o.subscriptionIds.multi).toMatch(/^esb_[0-9A-Za-z]{27}$/);
      expect(o.reportIds.report).toMatch(/^abrp_[0-9A-Za-z]{27}$/);
      expect(o.reportStatuses.report).toBe("PENDING");

      const multi = await client.eventSubscriptions.get(o.subscriptionIds.multi);
      expect(multi.description).toBe("first description");
      expect(multi.sources.map((s) => s.type)).toEqual(["ip_policy_created.v0", "ip_policy_updated.v0"]);
      expect(multi.destinations.map((d) => d.id).sort()).toEqual(
        [o.destinationIds.stream, o.destinationIds.dd].sort(),
      );
      const dests = [];
      for await (const d of client.eventDestinations.list()) dests.push(d);
      expect(dests).toHaveLength(2);
      const report = await client.abuseReports.get(o.reportIds.report);
      expect(report.status).toBe("PENDING");
      expect(report.hostnames).toEqual([
        { hostname: "phish.example.com", status: "PENDING" },
        { hostname: "malware.example.net", status: "PENDING" },
      ]);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "2. a preview right after expects no changes",
    async () => {
      const preview = await stack.preview({ expectNoChanges: true });
      expect(preview.changeSummary.same).toBe(6);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "3. reordering sources alone is no change; a new description updates in place",
    async () => {
      const before = (await outputs()).subscriptionIds.multi;
      spec.subscriptions[0].args.sources = [
        { type: "ip_policy_updated.v0" },
        { type: "ip_policy_created.v0" },
      ];
      spec.subscriptions[0].destinations = ["dd", "stream"];
      await setSpec(spec);
      await stack.preview({ expectNoChanges: true });

      spec.subscriptions[0].args.description = "second description";
      await setSpec(spec);
      const up = await stack.up();
      expect(up.summary.resourceChanges).toEqual({ update: 1, same: 5 });
      expect((await outputs()).subscriptionIds.multi).toBe(before);
      expect((await client.eventSubscriptions.get(before)).description).toBe("second description");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "4. new sources update in place; new abuse report URLs replace the report",
    async () => {
      const o = await outputs();
      spec.subscriptions[1].args.sources = [
        { type: "tcp_connection_closed.v0" },
        { type: "domain_created.v0" },
      ];
      spec.reports[0].args.urls = ["https://other.example.org/phish"];
      await setSpec(spec);
      const up = await stack.up();
      expect(up.summary.resourceChanges).toEqual({ update: 1, replace: 1, same: 4 });
      const after = await outputs();
      expect(after.subscriptionIds.single).toBe(o.subscriptionIds.single);
      expect(
        (await client.eventSubscriptions.get(o.subscriptionIds.single)).sources.map((s) => s.type),
      ).toEqual(["tcp_connection_closed.v0", "domain_created.v0"]);
      expect(after.reportIds.report).not.toBe(o.reportIds.report);
      const fresh = await client.abuseReports.get(after.reportIds.report);
      expect(fresh.urls).toEqual(["https://other.example.org/phish"]);
      // Reports cannot be deleted: the replaced one is still on the service.
      expect((await client.abuseReports.get(o.reportIds.report)).id).toBe(o.reportIds.report);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "5. an out-of-band edit: refresh takes it into state, preview shows it, up restores the program",
    async () => {
      const id = (await outputs()).subscriptionIds.multi;
      await client.eventSubscriptions.update(id, { description: "edited by hand" });
      const refresh = await stack.refresh();
      expect(refresh.summary.resourceChanges?.update).toBe(1);
      expect((await byName("multi"))?.outputs?.description).toBe("edited by hand");

      const preview = await stack.preview();
      expect(preview.changeSummary.update).toBe(1);
      await expect(stack.preview({ expectNoChanges: true })).rejects.toThrow();

      await stack.up();
      expect((await client.eventSubscriptions.get(id)).description).toBe("second description");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "6. an out-of-band delete: refresh drops it from state, up creates it again",
    async () => {
      const id = (await outputs()).subscriptionIds.single;
      await client.eventSubscriptions.delete(id);
      await stack.refresh();
      expect(await byName("single")).toBeUndefined();
      const up = await stack.up();
      expect(up.summary.resourceChanges?.create).toBe(1);
      const newId = (await outputs()).subscriptionIds.single;
      expect(newId).not.toBe(id);
      expect((await client.eventSubscriptions.get(newId)).sources.map((s) => s.type)).toEqual([
        "tcp_connection_closed.v0",
        "domain_created.v0",
      ]);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "7. the operator's review shows up on refresh: PARTIALLY_PROCESSED, then PROCESSED",
    async () => {
      const reportId = (await outputs()).reportIds.report;
      await review(emulator.url, emulator.adminKey, reportId, [
        { hostname: "other.example.org", status: "BANNED" },
      ]);
      await stack.refresh();
      let state = await byName("report");
      expect(state?.outputs?.status).toBe("PROCESSED");
      expect(state?.outputs?.hostnames).toEqual([{ hostname: "other.example.org", status: "BANNED" }]);

      // A report with two hostnames, reviewed one at a time.
      spec.reports.push({
        name: "report2",
        args: { urls: ["https://a.example.com/1", "https://b.example.com/2"] },
      });
      await setSpec(spec);
      await stack.up();
      const id2 = (await outputs()).reportIds.report2;
      await review(emulator.url, emulator.adminKey, id2, [{ hostname: "a.example.com", status: "IGNORE" }]);
      await stack.refresh();
      state = await byName("report2");
      expect(state?.outputs?.status).toBe("PARTIALLY_PROCESSED");
      expect(state?.outputs?.hostnames).toEqual([
        { hostname: "a.example.com", status: "IGNORE" },
        { hostname: "b.example.com", status: "PENDING" },
      ]);
      // The review changes outputs only: the program still has nothing to do.
      await stack.preview({ expectNoChanges: true });
    },
    ENGINE_TIMEOUT,
  );

  it.each([
    [
      "a 256-character description",
      (s: Spec) => (s.subscriptions[0].args.description = "x".repeat(256)),
      /description: at most 255 characters, got 256/,
    ],
    [
      "an unknown event type",
      (s: Spec) => (s.subscriptions[1].args.sources = [{ type: "no_such_event.v0" }]),
      /sources\[0\]\.type: unknown event type "no_such_event\.v0"/,
    ],
    ["empty urls", (s: Spec) => (s.reports[0].args.urls = []), /urls: at least 1 item, got 0/],
  ])(
    "8. %s fails the preview with a message that names the property, and sends no write",
    async (_what, breakIt, message) => {
      await clearRequestLog(emulator.url, emulator.adminKey);
      const bad: Spec = JSON.parse(JSON.stringify(spec));
      breakIt(bad);
      await setSpec(bad);
      const err = await stack.preview().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err).toBeDefined();
      expect(String(err?.message)).toMatch(message);
      expect(await writes()).toEqual([]);
      await setSpec(spec);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "9. an invalid API key fails up with an authentication error that does not show the key",
    async () => {
      const wrongKey = WRONG_KEY;
      await stack.setConfig("service:apiKey", { value: wrongKey, secret: true });
      spec.subscriptions[0].args.description = "third description";
      await setSpec(spec);
      const err = await stack.up().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err).toBeDefined();
      const text = String(err?.message);
      expect(text).toMatch(/401|[Aa]uthentication/);
      expect(text).not.toContain(wrongKey);
      expect(text).not.toContain(apiKey);
      await stack.setConfig("service:apiKey", { value: apiKey, secret: true });
      await stack.up();
      expect((await client.eventSubscriptions.get((await outputs()).subscriptionIds.multi)).description).toBe(
        "third description",
      );
    },
    ENGINE_TIMEOUT,
  );

  it(
    "10. the exported state holds no API key or destination secret in plain text, and small providers",
    async () => {
      // The checkpoint file at rest in the local backend, not `exportStack()` (which decrypts).
      const state = readCheckpoint(backend);
      expect(state).not.toContain(apiKey);
      expect(state).not.toContain(DD_KEY);
      expect(state).not.toContain(AWS_SECRET);
      const resources = await stateResources();
      const dynamic = resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic/service:"));
      expect(dynamic.length).toBe(spec.destinations.length + spec.subscriptions.length + spec.reports.length);
      for (const r of dynamic) {
        const serialized = String(r.outputs?.__provider ?? "");
        expect(serialized.length).toBeGreaterThan(0);
        // The README promises under 4 KB (4,096 bytes) per resource.
        expect(Buffer.byteLength(serialized)).toBeLessThan(4096);
      }
    },
    ENGINE_TIMEOUT,
  );

  it(
    "11. destroy removes subscriptions before destinations and leaves abuse reports",
    async () => {
      const o = await outputs();
      await clearRequestLog(emulator.url, emulator.adminKey);
      const destroy = await stack.destroy();
      expect(destroy.summary.result).toBe("succeeded");
      const subs = [];
      for await (const s of client.eventSubscriptions.list()) subs.push(s);
      const dests = [];
      for await (const d of client.eventDestinations.list()) dests.push(d);
      expect(subs).toEqual([]);
      expect(dests).toEqual([]);
      const deletes = (await writes()).map((r: { path: string }) => r.path);
      const lastSub = Math.max(
        ...deletes.map((p: string, i: number) => (p.includes("/event_subscriptions/") ? i : -1)),
      );
      const firstDest = deletes.findIndex((p: string) => p.includes("/event_destinations/"));
      expect(lastSub).toBeLessThan(firstDest);
      expect((await client.abuseReports.get(o.reportIds.report)).id).toBe(o.reportIds.report);
      expect((await client.abuseReports.get(o.reportIds.report2)).id).toBe(o.reportIds.report2);
    },
    ENGINE_TIMEOUT,
  );

  it("12. the engine's output of every run above holds no API key or destination secret", () => {
    const output = engineOutput.join("");
    expect(output).toMatch(/Resources:/); // the runs were recorded
    for (const secret of [apiKey, WRONG_KEY, DD_KEY, AWS_SECRET]) expect(output).not.toContain(secret);
  });
});
