// How to test a program that uses pulumi-service: start the emulator in this process, deploy the
// program with the Automation API against a throw-away local backend, assert on what the service
// now holds (through the client, not the program's own outputs), and destroy.
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { LocalWorkspace, type Stack } from "@pulumi/pulumi/automation";
import { ServiceClient } from "pulumi-service/client";
import { startEmulator, type RunningEmulator } from "service-emulator";

let emulator: RunningEmulator;
let backend: string;
let stack: Stack;
let client: ServiceClient;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: ["test-key"] }); // in memory, on a free port
  client = new ServiceClient({ baseUrl: emulator.url, apiKey: "test-key" });
  backend = fs.mkdtempSync(path.join(os.tmpdir(), "audit-test-"));
  stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "test", workDir: __dirname },
    {
      envVars: {
        PULUMI_BACKEND_URL: `file://${backend}`,
        PULUMI_CONFIG_PASSPHRASE: "test",
        // The providers fall back to these when the stack sets no service:baseUrl / service:apiKey.
        SERVICE_BASE_URL: emulator.url,
        SERVICE_API_KEY: "test-key",
      },
    },
  );
  await stack.setAllConfig({ team: { value: "payments" }, retainAudit: { value: "true" } });
});

afterAll(async () => {
  await stack?.destroy();
  await stack?.workspace.removeStack("test");
  await emulator?.close();
  fs.rmSync(backend, { recursive: true, force: true });
});

test("deploys one destination and one subscription of the team's key events", async () => {
  const up = await stack.up();
  expect(up.summary.result).toBe("succeeded");

  const destination = await client.eventDestinations.get(up.outputs.destinationId.value as string);
  expect(destination.description).toBe("Audit events of payments");
  expect(destination.target).toEqual({
    kinesis: {
      auth: { role: { roleArn: "arn:aws:iam::123456789012:role/service-events" } },
      streamArn: "arn:aws:kinesis:us-east-1:123456789012:stream/payments-audit",
    },
  });
  const subscription = await client.eventSubscriptions.get(up.outputs.subscriptionId.value as string);
  expect(subscription.sources.map((s) => s.type)).toEqual([
    "api_key_created.v0",
    "api_key_deleted.v0",
    "api_key_updated.v0",
  ]);
  expect(subscription.destinations.map((d) => d.id)).toEqual([destination.id]);
});

test("a second deployment changes nothing", async () => {
  const preview = await stack.preview();
  expect(preview.changeSummary).toEqual({ same: 3 });
});

test("destroy leaves nothing on the service", async () => {
  await stack.destroy();
  const left = [];
  for await (const d of client.eventDestinations.list()) left.push(d);
  for await (const s of client.eventSubscriptions.list()) left.push(s);
  expect(left).toEqual([]);
});
