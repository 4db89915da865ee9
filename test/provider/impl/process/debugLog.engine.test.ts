/**
 * The provider process's request log (provider/impl/process/debugLog.ts) through the real engine
 * (Automation API, the project's CLI, the built package): the log reaches `pulumi up --debug`'s
 * output, without the API key or the destination's secret, and a run without `--debug` shows none
 * of it. Apart from debugLog.test.ts so that the mutation run (which leaves out what needs the
 * engine) runs the rest.
 */
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { type RunningEmulator, startEmulator } from "../../../helpers/emulator";
import { freshBackend, localStack } from "../../../helpers/pulumi";

/** The repository's root. */
const REPO = path.resolve(__dirname, "../../../..");

describe("the request log through the real engine", () => {
  const DD_KEY = "dd-runtime-secret-key-93be1f";
  let emulator: RunningEmulator;
  let stack: Stack;

  beforeAll(async () => {
    emulator = await startEmulator({});
    ({ stack } = await localStack(
      path.join(REPO, "test", "fixtures", "lifecycle"),
      "log",
      freshBackend("runtime-log"),
      { SERVICE_LOG: "" },
    ));
    await stack.setConfig("service:baseUrl", { value: emulator.url });
    await stack.setConfig("service:apiKey", { value: emulator.apiKeys[0], secret: true });
    await stack.setConfig("ddApiKey", { value: DD_KEY, secret: true });
    const spec = {
      destinations: [
        { name: "dd", args: { target: { datadog: { apiKey: "secret:ddApiKey", ddsite: "datadoghq.eu" } } } },
      ],
      subscriptions: ["a", "b", "c"].map((name) => ({
        name,
        destinations: ["dd"],
        args: { sources: [{ type: "ip_policy_created.v0" }] },
      })),
      reports: [],
    };
    await stack.setConfig("spec", { value: JSON.stringify(spec) });
  }, 600_000);
  afterAll(async () => {
    await emulator?.close();
  });

  test("up --debug shows each request, in order; destroy without it shows none", async () => {
    let out = "";
    await stack.up({ debug: true, onOutput: (o) => (out += o) });
    const lines = out.split("\n").filter((l) => l.includes("service: "));
    // The lines reach the engine in batches (one debug message of several lines), the last ones
    // as the engine stops the provider: each request's line is there (the display may show a
    // message twice: as it comes, and among the diagnostics), the destination's first.
    const posts = new Set(
      lines
        .map(
          (l) =>
            /service: POST \/event_\w+ -> 201 in \d+ ms \(attempt 1 of 5, operation op_\w+\)/.exec(l)?.[0],
        )
        .filter((l) => l !== undefined),
    );
    expect([...posts].map((l) => /POST \/(\w+)/.exec(l)![1])).toEqual([
      "event_destinations",
      "event_subscriptions",
      "event_subscriptions",
      "event_subscriptions",
    ]);
    expect(lines.join("\n")).not.toContain(emulator.apiKeys[0]);
    expect(lines.join("\n")).not.toContain(DD_KEY);

    let quiet = "";
    await stack.destroy({ onOutput: (o) => (quiet += o) });
    expect(quiet).toContain("deleted");
    expect(quiet).not.toContain("service: DELETE");
  }, 600_000);
});
