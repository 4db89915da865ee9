/**
 * End to end: one stack's whole lifecycle through the real Pulumi engine (Automation API, the
 * project's CLI and Node language host) against the real emulator over HTTP. Each step asserts
 * on the emulator's data, not only on Pulumi's outputs.
 */
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { clearRequestLog, getRequestLog, review } from "../helpers/emulator";
import {
  expectNoChangesPreview,
  expectUpChanges,
  startEngineStack,
  type EngineStack,
} from "../helpers/engine-stack";
import { readStoredState } from "../helpers/pulumi";
import { editMultiAndRefresh, expectMultiDeployed, streamAndDatadog } from "../helpers/stream-and-datadog";

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
  const { destinations, multi } = streamAndDatadog({
    awsAccessKeyId: "AKIAE2EEXAMPLE",
    ddApiKey: "secret:ddApiKey",
    description: "first description",
  });
  return {
    destinations,
    subscriptions: [
      multi,
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
  let e2e: EngineStack;
  let spec: Spec;
  const engineOutput: string[] = [];

  const setSpec = (s: Spec) => e2e.stack.setConfig("spec", { value: JSON.stringify(s) });
  const writes = async () =>
    (await getRequestLog(e2e.emulator.url, e2e.emulator.adminKey)).requests.filter((r: { method: string }) =>
      ["POST", "PATCH", "DELETE"].includes(r.method),
    );

  beforeAll(async () => {
    e2e = await startEngineStack({ workDir: program, stackName: "e2e", backendName: "e2e-lifecycle" });
    recordEngineOutput(e2e.stack, engineOutput);
    // Destination secrets come from secret stack config, as a user's would.
    await e2e.stack.setConfig("ddApiKey", { value: DD_KEY, secret: true });
    await e2e.stack.setConfig("awsSecret", { value: AWS_SECRET, secret: true });
    spec = baseSpec();
    await setSpec(spec);
  }, ENGINE_TIMEOUT);

  afterAll(() => e2e?.close());

  it(
    "1. up creates everything with the right ID prefixes; the abuse report is PENDING",
    async () => {
      const up = await e2e.stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges?.create).toBe(6);
      const { o, multi } = await expectMultiDeployed(e2e, "first description");
      expect(o.destinationIds.stream).toMatch(/^ed_[0-9A-Za-z]{27}$/);
      expect(o.reportIds.report).toMatch(/^abrp_[0-9A-Za-z]{27}$/);
      expect(o.reportStatuses.report).toBe("PENDING");
      expect(multi.sources.map((s) => s.type)).toEqual(["ip_policy_created.v0", "ip_policy_updated.v0"]);
      const dests = [];
      for await (const d of e2e.client.eventDestinations.list()) dests.push(d);
      expect(dests).toHaveLength(2);
      const report = await e2e.client.abuseReports.get(o.reportIds.report);
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
      await expectNoChangesPreview(e2e, 6);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "3. reordering sources alone is no change; a new description updates in place",
    async () => {
      const before = (await e2e.outputs()).subscriptionIds.multi;
      spec.subscriptions[0].args.sources = [
        { type: "ip_policy_updated.v0" },
        { type: "ip_policy_created.v0" },
      ];
      spec.subscriptions[0].destinations = ["dd", "stream"];
      await setSpec(spec);
      await e2e.stack.preview({ expectNoChanges: true });

      spec.subscriptions[0].args.description = "second description";
      await setSpec(spec);
      await expectUpChanges(e2e, { update: 1, same: 5 });
      expect((await e2e.outputs()).subscriptionIds.multi).toBe(before);
      expect((await e2e.client.eventSubscriptions.get(before)).description).toBe("second description");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "4. new sources update in place; new abuse report URLs replace the report",
    async () => {
      const o = await e2e.outputs();
      spec.subscriptions[1].args.sources = [
        { type: "tcp_connection_closed.v0" },
        { type: "domain_created.v0" },
      ];
      spec.reports[0].args.urls = ["https://other.example.org/phish"];
      await setSpec(spec);
      await expectUpChanges(e2e, { update: 1, replace: 1, same: 4 });
      const after = await e2e.outputs();
      expect(after.subscriptionIds.single).toBe(o.subscriptionIds.single);
      expect(
        (await e2e.client.eventSubscriptions.get(o.subscriptionIds.single)).sources.map((s) => s.type),
      ).toEqual(["tcp_connection_closed.v0", "domain_created.v0"]);
      expect(after.reportIds.report).not.toBe(o.reportIds.report);
      const fresh = await e2e.client.abuseReports.get(after.reportIds.report);
      expect(fresh.urls).toEqual(["https://other.example.org/phish"]);
      // Reports cannot be deleted: the replaced one is still on the service.
      expect((await e2e.client.abuseReports.get(o.reportIds.report)).id).toBe(o.reportIds.report);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "5. an out-of-band edit: refresh takes it into state, preview shows it, up restores the program",
    async () => {
      const id = await editMultiAndRefresh(e2e);

      const preview = await e2e.stack.preview();
      expect(preview.changeSummary.update).toBe(1);
      // The engine's refusal (its wording names the operation in some releases).
      await expect(e2e.stack.preview({ expectNoChanges: true })).rejects.toThrow(
        /no changes were expected (for preview )?but changes were proposed/,
      );

      await e2e.stack.up();
      expect((await e2e.client.eventSubscriptions.get(id)).description).toBe("second description");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "6. an out-of-band delete: refresh drops it from state, up creates it again",
    async () => {
      const id = (await e2e.outputs()).subscriptionIds.single;
      await e2e.client.eventSubscriptions.delete(id);
      await e2e.stack.refresh();
      expect(await e2e.resource("single")).toBeUndefined();
      const up = await e2e.stack.up();
      expect(up.summary.resourceChanges?.create).toBe(1);
      const newId = (await e2e.outputs()).subscriptionIds.single;
      expect(newId).not.toBe(id);
      expect((await e2e.client.eventSubscriptions.get(newId)).sources.map((s) => s.type)).toEqual([
        "tcp_connection_closed.v0",
        "domain_created.v0",
      ]);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "7. the operator's review shows up on refresh: PARTIALLY_PROCESSED, then PROCESSED",
    async () => {
      const reportId = (await e2e.outputs()).reportIds.report;
      await review(e2e.emulator.url, e2e.emulator.adminKey, reportId, [
        { hostname: "other.example.org", status: "BANNED" },
      ]);
      await e2e.stack.refresh();
      let state = await e2e.resource("report");
      expect(state?.outputs?.status).toBe("PROCESSED");
      expect(state?.outputs?.hostnames).toEqual([{ hostname: "other.example.org", status: "BANNED" }]);

      // A report with two hostnames, reviewed one at a time.
      spec.reports.push({
        name: "report2",
        args: { urls: ["https://a.example.com/1", "https://b.example.com/2"] },
      });
      await setSpec(spec);
      await e2e.stack.up();
      const id2 = (await e2e.outputs()).reportIds.report2;
      await review(e2e.emulator.url, e2e.emulator.adminKey, id2, [
        { hostname: "a.example.com", status: "IGNORE" },
      ]);
      await e2e.stack.refresh();
      state = await e2e.resource("report2");
      expect(state?.outputs?.status).toBe("PARTIALLY_PROCESSED");
      expect(state?.outputs?.hostnames).toEqual([
        { hostname: "a.example.com", status: "IGNORE" },
        { hostname: "b.example.com", status: "PENDING" },
      ]);
      // The review changes outputs only: the program still has nothing to do.
      await e2e.stack.preview({ expectNoChanges: true });
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
      await clearRequestLog(e2e.emulator.url, e2e.emulator.adminKey);
      const bad: Spec = JSON.parse(JSON.stringify(spec));
      breakIt(bad);
      await setSpec(bad);
      const err = await e2e.stack.preview().then(
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
      await e2e.stack.setConfig("service:apiKey", { value: wrongKey, secret: true });
      spec.subscriptions[0].args.description = "third description";
      await setSpec(spec);
      const err = await e2e.stack.up().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err).toBeDefined();
      const text = String(err?.message);
      expect(text).toMatch(/401|[Aa]uthentication/);
      expect(text).not.toContain(wrongKey);
      expect(text).not.toContain(e2e.apiKey);
      await e2e.stack.setConfig("service:apiKey", { value: e2e.apiKey, secret: true });
      await e2e.stack.up();
      expect(
        (await e2e.client.eventSubscriptions.get((await e2e.outputs()).subscriptionIds.multi)).description,
      ).toBe("third description");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "10. the exported state holds no API key or destination secret in plain text, and small providers",
    async () => {
      // The checkpoint file at rest in the local backend, not `exportStack()` (which decrypts).
      const state = readStoredState(e2e.backend);
      expect(state).not.toContain(e2e.apiKey);
      expect(state).not.toContain(DD_KEY);
      expect(state).not.toContain(AWS_SECRET);
      const resources = await e2e.resources();
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
      const o = await e2e.outputs();
      await clearRequestLog(e2e.emulator.url, e2e.emulator.adminKey);
      const destroy = await e2e.stack.destroy();
      expect(destroy.summary.result).toBe("succeeded");
      const subs = [];
      for await (const s of e2e.client.eventSubscriptions.list()) subs.push(s);
      const dests = [];
      for await (const d of e2e.client.eventDestinations.list()) dests.push(d);
      expect(subs).toEqual([]);
      expect(dests).toEqual([]);
      const deletes = (await writes()).map((r: { path: string }) => r.path);
      const lastSub = Math.max(
        ...deletes.map((p: string, i: number) => (p.includes("/event_subscriptions/") ? i : -1)),
      );
      const firstDest = deletes.findIndex((p: string) => p.includes("/event_destinations/"));
      expect(lastSub).toBeLessThan(firstDest);
      expect((await e2e.client.abuseReports.get(o.reportIds.report)).id).toBe(o.reportIds.report);
      expect((await e2e.client.abuseReports.get(o.reportIds.report2)).id).toBe(o.reportIds.report2);
    },
    ENGINE_TIMEOUT,
  );

  it("12. the engine's output of every run above holds no API key or destination secret", () => {
    const output = engineOutput.join("");
    expect(output).toMatch(/Resources:/); // the runs were recorded
    for (const secret of [e2e.apiKey, WRONG_KEY, DD_KEY, AWS_SECRET]) expect(output).not.toContain(secret);
  });
});
