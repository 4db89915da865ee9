/**
 * End to end: the functions through the real Pulumi engine against the real emulator. The
 * program test/fixtures/functions declares a destination, a subscription and an abuse report
 * through the generated Node.js SDK and reads each back with every function: through the native
 * door (the SDK's `get…Output` and a plain `getAbuseReport`: invokes the engine sends to the
 * plugin bin/pulumi-resource-service, found through the program's `plugins.providers[].path`)
 * and through the dynamic door (`pulumi-service`'s `get…Output`, in the program's process).
 * Both doors must return the resources' outputs and `id`, the same values, with a destination's
 * result secret in the stack outputs and nothing of its target in plain text in the state; a
 * lookup of a missing ID fails the update with a message naming it.
 */
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { ServiceClient } from "../../client";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { configureService, disposeStack, freshBackend, localStack, readStoredState } from "../helpers/pulumi";
import { publicOutputs } from "../helpers/public-outputs";

const program = path.join(__dirname, "..", "fixtures", "functions");
// Every test and hook runs the Pulumi engine, or waits on it: ten minutes each.
jest.setTimeout(600_000);
const AWS_SECRET = "aws-functions-secret-access-key-5e82c1";
/** Part of the destination's stream ARN: plain config, so only the target's secrecy keeps it out of the state. */
const MARK = "functions-stream-b7d40e";
const STREAM_ARN = `arn:aws:kinesis:us-east-1:123456789012:stream/${MARK}`;

type Props = Record<string, unknown>;
interface Outputs {
  [name: string]: { value: unknown; secret: boolean };
}

describe("functions through the engine, both doors (real engine, native plugin, real emulator)", () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  let stack: Stack;
  let backend: string;
  let outputs: Outputs;
  /** The resources' outputs in the exported state, by resource name. */
  const state: Record<string, Props> = {};

  const value = (name: string) => outputs[name].value as Props;

  beforeAll(async () => {
    emulator = await startEmulator({});
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    backend = freshBackend("e2e-functions");
    ({ stack } = await localStack(program, "functions", backend));
    await configureService(stack, emulator.url, emulator.apiKeys[0]);
    await stack.setConfig("awsSecret", { value: AWS_SECRET, secret: true });
    await stack.setConfig("streamArn", { value: STREAM_ARN });
  });

  afterAll(async () => {
    await disposeStack(stack);
    await client?.close();
    await emulator?.close();
  });

  it("1. up creates the resources, and every function of both doors returns their outputs and id", async () => {
    const up = await stack.up();
    expect(up.summary.resourceChanges?.create).toBe(4); // 3 resources and the stack
    outputs = (await stack.outputs()) as Outputs;
    const ids = value("ids") as Record<string, string>;
    for (const r of (await stack.exportStack()).deployment.resources as { urn: string; outputs?: Props }[])
      state[r.urn.split("::").pop() as string] = publicOutputs(r.outputs); // as a program sees them

    // The subscription and the report: exactly the state's outputs, and the ID.
    expect(value("nativeSubscription")).toEqual({ id: ids.subscription, ...state.policies });
    expect(value("nativeSubscription").destinationIds).toEqual([ids.destination]);
    expect(value("nativeReport")).toEqual({ id: ids.report, ...state.report });
    expect(value("nativeReport").status).toBe("PENDING");
    expect(value("nativePlainReport")).toEqual(value("nativeReport"));

    // The destination: the state's outputs but for the target's write-only secret, which
    // the resource keeps from the program and a lookup reads back empty, as the API returns it.
    const { target, ...rest } = value("nativeDestination");
    const { target: _stateTarget, ...stateRest } = state.stream;
    expect(rest).toEqual({ id: ids.destination, ...stateRest });
    expect(target).toEqual({
      kinesis: {
        auth: { creds: { awsAccessKeyId: "AKIAFUNCTIONSEXAMPLE", awsSecretAccessKey: "" } },
        streamArn: STREAM_ARN,
      },
    });

    // Lists: every item of the account, each as the get returns it.
    expect(value("nativeSubscriptions")).toEqual({ items: [value("nativeSubscription")] });
    expect(value("nativeDestinations")).toEqual({ items: [value("nativeDestination")] });

    // The dynamic door returns the same values.
    for (const name of ["Subscription", "Destination", "Report", "Subscriptions", "Destinations"])
      expect({ name, value: value(`dynamic${name}`) }).toEqual({ name, value: value(`native${name}`) });
  });

  it("2. a destination's lookups are secret stack outputs; the state holds nothing of its target in plain text", () => {
    const secret = Object.fromEntries(Object.entries(outputs).map(([k, o]) => [k, o.secret]));
    expect(secret).toEqual({
      ids: false,
      nativeSubscription: false,
      nativeReport: false,
      nativePlainReport: false,
      nativeSubscriptions: false,
      nativeDestination: true,
      nativeDestinations: true,
      dynamicSubscription: false,
      dynamicReport: false,
      dynamicSubscriptions: false,
      dynamicDestination: true,
      dynamicDestinations: true,
    });
    const stored = readStoredState(backend);
    expect(stored).toContain("functions policies"); // the plain outputs are there
    expect(stored).not.toContain(AWS_SECRET);
    // The stream's ARN is a plain stack config value of this program, which the history's update
    // records keep as set; every state (checkpoints, history, backups) holds it only encrypted.
    const state = readStoredState(backend, { updateRecords: false });
    expect(state).toContain("functions policies");
    expect(state).not.toContain(MARK);
  });

  it("3. a preview after it has no changes (functions register nothing)", async () => {
    const preview = await stack.preview({ expectNoChanges: true });
    expect(preview.changeSummary.same).toBe(4);
  });

  it.each(["native", "dynamic"])(
    "4. a lookup of an ID the account lacks fails the update, naming it (%s door)",
    async (door) => {
      const missing = `esb_${"Z".repeat(27)}`;
      await stack.setConfig("missing", { value: missing });
      await stack.setConfig("missingDoor", { value: door });
      try {
        const err = (await stack.up().then(
          () => undefined,
          (e: Error) => e,
        )) as Error | undefined;
        expect(err?.message).toContain(
          `event subscription "${missing}" does not exist in the account of this API key`,
        );
        expect(err?.message).not.toContain(AWS_SECRET);
        // Reported as its message alone (a RunError on the dynamic door), without a stack trace.
        expect(err?.message).not.toMatch(/lookups\.(js|ts)/);
      } finally {
        await stack.removeConfig("missing");
        await stack.removeConfig("missingDoor");
      }
      // The stack, its default provider and the three resources, as before.
      expect((await stack.exportStack()).deployment.resources).toHaveLength(5);
    },
  );
});
