/**
 * The `service-drift` command line (compiled, run as a child process)
 * against a stack deployed by the real Pulumi engine on the real emulator. Every run also
 * proves that the local backend was not written (state, backup, history: byte for byte).
 */
import * as fs from "fs";
import * as path from "path";
import { review } from "../helpers/emulator";
import { startEngineStack, type EngineStack } from "../helpers/engine-stack";
import { backendFingerprint, checkpointFile, runDriftCli, type CliRun } from "../helpers/gitops";
import type { DriftReport } from "../../gitops/drift";

const program = path.join(__dirname, "..", "fixtures", "gitops-drift");
const STACK = "drift";
const DD_KEY = "dd-drift-secret-key-90ab12cd";
const ENGINE_TIMEOUT = 600_000;
const ROLE_X = "arn:aws:iam::123456789012:role/drift-x";
const ROLE_Y = "arn:aws:iam::123456789012:role/drift-y";
const STREAM = "arn:aws:kinesis:us-east-1:123456789012:stream/drift";

function baseSpec() {
  return {
    destinations: [
      {
        name: "dd",
        args: { description: "datadog", target: { datadog: { apiKey: DD_KEY, ddsite: "datadoghq.eu" } } },
      },
      {
        name: "stream",
        args: { target: { kinesis: { auth: { role: { roleArn: ROLE_X } }, streamArn: STREAM } } },
      },
    ],
    subscriptions: [
      {
        name: "multi",
        destinations: ["dd", "stream"],
        args: { description: "first description", sources: [{ type: "ip_policy_created.v0" }] },
      },
      { name: "single", destinations: ["dd"], args: { sources: [{ type: "ip_policy_updated.v0" }] } },
    ],
    reports: [{ name: "report", urls: ["https://phish.drift.example.com/login"] }],
  };
}

/** A `--json` report of drift (exit 2) in exactly one resource, which has (at least) `fields`. */
function expectOneDrift(run: CliRun & { json?: DriftReport }, fields: Record<string, unknown>): void {
  expect(run.code).toBe(2);
  expect(run.json?.resources).toEqual([expect.objectContaining(fields)]);
}

describe("service-drift: drift report (real engine, real emulator, child process)", () => {
  let e2e: EngineStack;
  let ids: {
    destinationIds: Record<string, string>;
    subscriptionIds: Record<string, string>;
    reportIds: Record<string, string>;
  };
  const timings: Record<string, number> = {};

  const setSpec = (s: unknown) => e2e.stack.setConfig("spec", { value: JSON.stringify(s), secret: true });

  /** Runs the report; asserts the backend is untouched; parses `--json` output. */
  async function drift(label: string, extra: string[] = [], extraEnv: Record<string, string> = {}) {
    const before = backendFingerprint(e2e.backend);
    const run: CliRun = await runDriftCli(["--stack", STACK, "--cwd", program, ...extra], {
      ...e2e.env,
      ...extraEnv,
    });
    expect(backendFingerprint(e2e.backend)).toEqual(before);
    timings[label] = run.ms;
    let json: DriftReport | undefined;
    if (extra.includes("--json")) json = JSON.parse(run.stdout) as DriftReport;
    return { ...run, json };
  }

  beforeAll(async () => {
    e2e = await startEngineStack({ workDir: program, stackName: STACK, backendName: "gitops-drift" });
    await setSpec(baseSpec());
    const up = await e2e.stack.up();
    expect(up.summary.result).toBe("succeeded");
    const o = await e2e.stack.outputs();
    ids = {
      destinationIds: o.destinationIds.value,
      subscriptionIds: o.subscriptionIds.value,
      reportIds: o.reportIds.value,
    };
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    console.log(`service-drift run times (ms): ${JSON.stringify(timings)}`);
    await e2e?.close();
    if (e2e) fs.rmSync(e2e.backend, { recursive: true, force: true });
  });

  it(
    "no drift, an abuse report reviewed since the deploy (its new status is not drift): exit 0, nothing reported, no pending change",
    async () => {
      const id = ids.reportIds.report;
      const reviewed = await review(e2e.emulator.url, e2e.emulator.adminKey, id, [
        { hostname: "phish.drift.example.com", status: "BANNED" },
      ]);
      expect(reviewed.status).toBe("PROCESSED");
      const state = (await e2e.stack.exportStack()).deployment.resources.find(
        (r: { id?: string }) => r.id === id,
      );
      expect(state.outputs.status).toBe("PENDING");
      const run = await drift("no drift, report reviewed", ["--json"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.json).toMatchObject({
        stack: STACK,
        drift: false,
        resources: [],
        checkedResources: 5,
        exitCode: 0,
        pendingChanges: { present: false, resources: [] },
      });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "program changed but no drift: exit 0, the pending change reported apart from drift",
    async () => {
      const changed = baseSpec();
      changed.subscriptions[0].args.description = "changed in the program";
      await setSpec(changed);
      try {
        const run = await drift("pending change", ["--json"]);
        expect(run.code).toBe(0);
        expect(run.json?.drift).toBe(false);
        expect(run.json?.resources).toEqual([]);
        expect(run.json?.pendingChanges.present).toBe(true);
        expect(run.json?.pendingChanges.summary.update).toBe(1);
        expect(run.json?.pendingChanges.resources).toEqual([
          expect.objectContaining({
            name: "multi",
            type: "EventSubscription",
            op: "update",
            properties: ["description"],
          }),
        ]);
      } finally {
        await setSpec(baseSpec());
      }
    },
    ENGINE_TIMEOUT,
  );

  it(
    "an out-of-band description change: exit 2; the JSON names the resource, the property, old and new value",
    async () => {
      const id = ids.subscriptionIds.multi;
      await e2e.client.eventSubscriptions.update(id, { description: "edited by hand" });
      const stateBefore = fs.readFileSync(checkpointFile(e2e.backend, "gitops-drift", STACK));
      try {
        const run = await drift("description drift", ["--json"]);
        expect(run.code).toBe(2);
        expect(run.json?.drift).toBe(true);
        expect(run.json?.exitCode).toBe(2);
        expect(run.json?.resources).toEqual([
          {
            name: "multi",
            type: "EventSubscription",
            typeToken: "pulumi-nodejs:dynamic/service:EventSubscription",
            urn: expect.stringMatching(/::multi$/),
            id,
            status: "changed",
            properties: [
              {
                property: "description",
                before: "first description",
                after: "edited by hand",
                secret: false,
              },
            ],
          },
        ]);
        expect(run.json?.pendingChanges.present).toBe(false);

        const table = await drift("description drift (table)");
        expect(table.code).toBe(2);
        expect(table.stdout).toMatch(
          /multi\s+EventSubscription\s+esb_\w+\s+changed\s+description\s+"first description"\s+"edited by hand"/,
        );
        expect(table.stdout).toMatch(/Result: drift found \(exit code 2\)/);
        // A preview-only refresh: the state still holds the last deployment, byte for byte.
        expect(fs.readFileSync(checkpointFile(e2e.backend, "gitops-drift", STACK)).equals(stateBefore)).toBe(
          true,
        );
      } finally {
        await e2e.client.eventSubscriptions.update(id, { description: "first description" });
      }
    },
    ENGINE_TIMEOUT,
  );

  it(
    "a change inside a secret (a destination's target) is drift shown as [secret], and no secret is printed",
    async () => {
      const id = ids.destinationIds.stream;
      await e2e.client.eventDestinations.update(id, {
        target: { kinesis: { auth: { role: { roleArn: ROLE_Y } }, streamArn: STREAM } },
      });
      try {
        const run = await drift("secret drift", ["--json"]);
        expectOneDrift(run, {
          name: "stream",
          type: "EventDestination",
          status: "changed",
          properties: [{ property: "target", before: "[secret]", after: "[secret]", secret: true }],
        });
        for (const text of [run.stdout, run.stderr]) {
          expect(text).not.toContain(DD_KEY);
          expect(text).not.toContain(e2e.apiKey);
          expect(text).not.toContain(ROLE_Y);
        }
      } finally {
        await e2e.client.eventDestinations.update(id, {
          target: { kinesis: { auth: { role: { roleArn: ROLE_X } }, streamArn: STREAM } },
        });
      }
      expect((await drift("back to no drift", ["--json"])).code).toBe(0);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "an out-of-band delete: exit 2, reported as deleted; the state file stays byte for byte the same",
    async () => {
      const id = ids.subscriptionIds.single;
      const file = checkpointFile(e2e.backend, "gitops-drift", STACK);
      const stateBefore = fs.readFileSync(file);
      await e2e.client.eventSubscriptions.delete(id);
      const run = await drift("deleted", ["--json"]);
      expectOneDrift(run, {
        name: "single",
        type: "EventSubscription",
        id,
        status: "deleted",
        properties: [],
      });
      expect(fs.readFileSync(file).equals(stateBefore)).toBe(true);
      // The engine still believes it exists: the state was not refreshed.
      const state = JSON.stringify((await e2e.stack.exportStack()).deployment);
      expect(state).toContain(id);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "broken credentials: exit 1 with a clear message that does not hold the key",
    async () => {
      const wrongKey = "sk_wrong_drift_key_5e7d1c3a9b";
      await e2e.stack.setConfig("service:apiKey", { value: wrongKey, secret: true });
      try {
        const run = await drift("bad key", [], { SERVICE_API_KEY: wrongKey });
        expect(run.code).toBe(1);
        expect(run.stdout).toBe("");
        expect(run.stderr).toMatch(/^service-drift: The refresh \(preview only\).* of stack "drift" failed:/);
        expect(run.stderr).toMatch(/401/);
        expect(run.stderr).toMatch(/ERR_SERVICE_203|[Aa]uthentication|unknown/);
        expect(run.stderr).not.toContain(wrongKey);
        expect(run.stderr).not.toContain(e2e.apiKey);

        const json = await drift("bad key (json)", ["--json"], { SERVICE_API_KEY: wrongKey });
        expect(json.code).toBe(1);
        const doc = JSON.parse(json.stdout) as { error: string; exitCode: number };
        expect(doc.exitCode).toBe(1);
        expect(doc.error).toMatch(/401/);
        expect(json.stdout + json.stderr).not.toContain(wrongKey);
      } finally {
        await e2e.stack.setConfig("service:apiKey", { value: e2e.apiKey, secret: true });
      }
    },
    ENGINE_TIMEOUT,
  );

  it(
    "usage errors: exit 1 (no --stack; unknown stack)",
    async () => {
      const none = await runDriftCli(["--cwd", program], e2e.env);
      expect(none.code).toBe(1);
      expect(none.stderr).toMatch(/Missing --stack/);
      const unknown = await drift("unknown stack", ["--stack", "no-such-stack"]);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/no-such-stack/);
    },
    ENGINE_TIMEOUT,
  );
});
