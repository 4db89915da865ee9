/**
 * Resources made outside Pulumi (through the client) are
 * turned into a program by `service-drift generate` (compiled, run as a child process), and
 * that program is deployed by the real engine against the real emulator: adoption creates and
 * deletes nothing, updates only what cannot be compared, and then the stack is managed like any
 * other (preview, drift report, destroy). Adopting an ID that does not exist fails with its ID.
 */
import * as fs from "fs";
import * as path from "path";
import { typeCheck } from "../helpers/cli";
import type { Stack } from "@pulumi/pulumi/automation";
import { ServiceClient, type EventDestination, type EventSubscription } from "../../client";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { clearRequestLog, getRequestLog, startEmulator } from "../helpers/emulator";
import { configureService, freshBackend, localStack } from "../helpers/pulumi";
import { checkpointFile, runDriftCli } from "../helpers/gitops";

const ENGINE_TIMEOUT = 600_000;
const DD_KEY = "dd-adopt-secret-key-4c1d9e7f";
const ROLE = "arn:aws:iam::123456789012:role/adopt";
const STREAM = "arn:aws:kinesis:us-east-1:123456789012:stream/adopt";
const fixture = path.join(__dirname, "..", "fixtures", "gitops-drift");

describe("adoption and code generation (real engine, real emulator)", () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let client: ServiceClient;
  let apiKey: string;
  let role: EventDestination;
  let dd: EventDestination;
  let subs: EventSubscription[];
  let source: string;
  let projectDir: string;
  let stack: Stack;
  let env: Record<string, string>;
  const timings: Record<string, number> = {};
  const backends: string[] = [];

  /** Every destination and subscription of the account, as the client lists them. */
  async function inventory() {
    const destinations = [];
    for await (const d of client.eventDestinations.list()) destinations.push(d);
    const subscriptions = [];
    for await (const s of client.eventSubscriptions.list()) subscriptions.push(s);
    return { destinations, subscriptions };
  }

  /** API requests (operator endpoints left out) logged since the last clear. */
  async function apiRequests() {
    return (await getRequestLog(emulator.url, emulator.adminKey)).requests.filter(
      (r) => !r.path.startsWith("/_operator"),
    );
  }

  async function timed<T>(label: string, f: () => Promise<T>): Promise<T> {
    const t = Date.now();
    try {
      return await f();
    } finally {
      timings[label] = Date.now() - t;
    }
  }

  beforeAll(async () => {
    emulator = await startEmulator({});
    apiKey = emulator.apiKeys[0];
    client = new ServiceClient({ apiKey, baseUrl: emulator.url });
    role = await client.eventDestinations.create({
      description: "Audit stream",
      target: { kinesis: { auth: { role: { roleArn: ROLE } }, streamArn: STREAM } },
    });
    dd = await client.eventDestinations.create({
      target: { datadog: { apiKey: DD_KEY, ddsite: "datadoghq.eu" } },
    });
    subs = [
      await client.eventSubscriptions.create({
        description: "Audit stream",
        sources: [{ type: "ip_policy_created.v0" }, { type: "ip_policy_updated.v0" }],
        destinationIds: [role.id, dd.id],
      }),
      await client.eventSubscriptions.create({
        description: "Alerts",
        metadata: '{"team":"edge"}',
        sources: [{ type: "http_request_complete.v0" }],
        destinationIds: [dd.id],
      }),
      await client.eventSubscriptions.create({
        description: "Alerts",
        sources: [{ type: "tcp_connection_closed.v0" }],
        destinationIds: [role.id],
      }),
    ];
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    console.log(`adoption step times (ms): ${JSON.stringify(timings)}`);
    await client?.close();
    await emulator?.close();
    for (const dir of [projectDir, ...backends]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    "generate prints a deterministic program: stable names, references to destination resources, secret placeholders",
    async () => {
      const genEnv: Record<string, string> = {
        ...(process.env as Record<string, string>),
        SERVICE_API_KEY: apiKey,
      };
      delete genEnv.SERVICE_BASE_URL;
      const run = await timed("generate", () =>
        runDriftCli(["generate", "--base-url", emulator.url], genEnv),
      );
      expect(run.code).toBe(0);
      source = run.stdout;
      expect(run.stdout + run.stderr).not.toContain(apiKey);

      expect(source).toContain(`EventDestination.adopt("audit-stream", "${role.id}", {`);
      expect(source).toContain(`EventDestination.adopt("${dd.id}", "${dd.id}", {`);
      expect(source).toContain(`EventSubscription.adopt("audit-stream", "${subs[0].id}", {`);
      expect(source).toContain(`EventSubscription.adopt("alerts", "${subs[1].id}", {`);
      expect(source).toContain(`EventSubscription.adopt("alerts-2", "${subs[2].id}", {`);
      expect(source).toContain("destinationIds: [auditStreamDestination.id,");
      expect(source).not.toMatch(/destinationIds: \[[^\]]*"ed_/);
      expect(source).toContain('metadata: "{\\"team\\":\\"edge\\"}"');
      const secretKeys = [...source.matchAll(/config\.requireSecret\("([^"]+)"\)/g)].map((m) => m[1]);
      expect(secretKeys).toHaveLength(1);
      expect(source).toMatch(/apiKey: config\.requireSecret\("\w+ApiKey"\)/);
      expect(run.stderr).toContain(`pulumi config set --secret ${secretKeys[0]} <value>`);

      // Deterministic: a second run prints the same text.
      const again = await runDriftCli(["generate", "--base-url", emulator.url], genEnv);
      expect(again.stdout).toBe(source);

      // Without a key: exit 1 and a clear message.
      const noKey = await runDriftCli(["generate", "--base-url", emulator.url], {
        ...genEnv,
        SERVICE_API_KEY: "",
      });
      expect(noKey.code).toBe(1);
      expect(noKey.stderr).toMatch(/SERVICE_API_KEY/);
      // A wrong key: exit 1, the key not shown.
      const wrong = "sk_generate_wrong_key_8d2f";
      const bad = await runDriftCli(["generate", "--base-url", emulator.url], {
        ...genEnv,
        SERVICE_API_KEY: wrong,
      });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/401/);
      expect(bad.stderr).not.toContain(wrong);

      // The program type-checks against the package's declarations (dist/, npm run build).
      projectDir = path.join(REPO_ROOT, ".pulumi-state", `gitops-generated-${process.pid}`);
      fs.rmSync(projectDir, { recursive: true, force: true });
      fs.mkdirSync(projectDir, { recursive: true });
      fs.writeFileSync(
        path.join(projectDir, "Pulumi.yaml"),
        "name: gitops-generated\nruntime:\n  name: nodejs\n  options:\n    typescript: true\nmain: index.ts\n",
      );
      fs.writeFileSync(path.join(projectDir, "index.ts"), source);
      const diagnostics = await timed("type-check", async () => {
        return typeCheck(path.join(projectDir, "index.ts"));
      });
      expect(diagnostics).toEqual([]);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "up adopts everything: no create or delete reaches the service, only the PATCH that re-sends the destination's secret",
    async () => {
      const backend = freshBackend("gitops-adopt");
      backends.push(backend);
      ({ stack, env } = await localStack(projectDir, "adopt", backend));
      await configureService(stack, emulator.url, apiKey);
      const secretKey = /config\.requireSecret\("([^"]+)"\)/.exec(source)?.[1] as string;
      await stack.setConfig(secretKey, { value: DD_KEY, secret: true });

      const before = await inventory();
      await clearRequestLog(emulator.url, emulator.adminKey);
      const up = await timed("up", () => stack.up());
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges).toEqual({ create: 6 }); // 5 resources and the stack

      const requests = await apiRequests();
      expect(requests.filter((r) => r.method === "POST")).toEqual([]);
      expect(requests.filter((r) => r.method === "DELETE")).toEqual([]);
      expect(requests.filter((r) => r.method === "PATCH").map((r) => r.path)).toEqual([
        `/event_destinations/${dd.id}`,
      ]);
      expect(requests.every((r) => r.status < 400)).toBe(true);
      // Nothing changed on the service.
      expect(await inventory()).toEqual(before);

      const o = await stack.outputs();
      expect(o.destinationIds.value).toEqual({ "audit-stream": role.id, [dd.id]: dd.id });
      expect(o.subscriptionIds.value).toEqual({
        "audit-stream": subs[0].id,
        alerts: subs[1].id,
        "alerts-2": subs[2].id,
      });
      // The state at rest holds the configured secret only encrypted.
      const state = fs.readFileSync(checkpointFile(backend, "gitops-generated", "adopt"), "utf8");
      expect(state).toContain(dd.id);
      expect(state).not.toContain(DD_KEY);
      expect(state).not.toContain(apiKey);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "then preview expects no changes, and the drift report finds none",
    async () => {
      const preview = await timed("preview", () => stack.preview({ expectNoChanges: true }));
      expect(preview.changeSummary).toEqual({ same: 6 });
      const run = await timed("drift report", () =>
        runDriftCli(["--stack", "adopt", "--cwd", projectDir, "--json"], env),
      );
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        drift: false,
        checkedResources: 5,
        pendingChanges: { present: false },
      });
    },
    ENGINE_TIMEOUT,
  );

  it(
    "then destroy removes them from the service",
    async () => {
      await clearRequestLog(emulator.url, emulator.adminKey);
      const destroy = await timed("destroy", () => stack.destroy());
      expect(destroy.summary.result).toBe("succeeded");
      expect(await inventory()).toEqual({ destinations: [], subscriptions: [] });
      const deletes = (await apiRequests()).filter((r) => r.method === "DELETE");
      expect(deletes).toHaveLength(5);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "adopting an ID that does not exist (or belongs to another account) fails up with a message naming the ID",
    async () => {
      const backend = freshBackend("gitops-adopt-missing");
      backends.push(backend);
      const { stack: s } = await localStack(fixture, "adopt-missing", backend);
      await configureService(s, emulator.url, apiKey);
      const target = { kinesis: { auth: { role: { roleArn: ROLE } }, streamArn: STREAM } };

      const missing = "ed_2ZZZZZZZZZZZZZZZZZZZZZZZZZZ";
      await s.setConfig("spec", {
        value: JSON.stringify({
          destinations: [{ name: "ghost", args: { adoptId: missing, target } }],
          subscriptions: [],
        }),
      });
      await clearRequestLog(emulator.url, emulator.adminKey);
      const err = await timed("failed up (missing)", () =>
        s.up().then(
          () => undefined,
          (e: Error) => e,
        ),
      );
      expect(err).toBeDefined();
      expect(String(err?.message)).toContain(
        `adoptId: event destination ${missing} does not exist in the account of this API key`,
      );
      expect((await apiRequests()).filter((r) => r.method !== "GET")).toEqual([]);

      // A subscription of another account answers 404 too: same message, with its ID.
      const other = new ServiceClient({ apiKey: emulator.restrictedApiKeys[0], baseUrl: emulator.url });
      const otherDest = await other.eventDestinations.create({ target });
      const foreign = await other.eventSubscriptions.create({
        sources: [{ type: "ip_policy_created.v0" }],
        destinationIds: [otherDest.id],
      });
      await other.close();
      const mine = await client.eventDestinations.create({ target });
      await s.setConfig("spec", {
        value: JSON.stringify({
          destinations: [],
          subscriptions: [
            {
              name: "foreign",
              destinations: [],
              extraDestinationIds: [mine.id],
              args: { sources: [{ type: "ip_policy_created.v0" }], adoptId: foreign.id },
            },
          ],
        }),
      });
      await clearRequestLog(emulator.url, emulator.adminKey);
      const err2 = await s.up().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(String(err2?.message)).toContain(`adoptId: event subscription ${foreign.id} does not exist`);
      expect((await apiRequests()).filter((r) => r.method !== "GET")).toEqual([]);
      expect((await client.eventDestinations.get(mine.id)).id).toBe(mine.id);
    },
    ENGINE_TIMEOUT,
  );
});
