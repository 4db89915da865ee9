/**
 * `service-drift generate` in process against the emulator (gitops/cli.ts's `generate`): the
 * program on stdout, on stderr what to set before `pulumi up` (the write-only secrets by config
 * key), and each missing setting refused with exit code 1, the API key never printed.
 */
import { ServiceClient } from "../../client";
import { main } from "../../gitops/cli";
import { capture } from "../helpers/cli";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";

const KEY = "sk_generate_cli_unit_0123456789";

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY] });
});
afterAll(() => emulator?.close());

test("prints the program adopting the account's resources and, on stderr, the config and secrets to set first", async () => {
  const client = new ServiceClient({ apiKey: KEY, baseUrl: emulator.url });
  try {
    const d = await client.eventDestinations.create({
      description: "logs",
      target: { datadog: { apiKey: "dd-secret-value" } },
    });
    const run = capture({ SERVICE_API_KEY: KEY });
    expect(await main(["node", "service-drift", "generate", "--base-url", emulator.url], run.cli)).toBe(0);
    expect(run.out.stdout).toContain(d.id);
    const err = run.out.stderr.split("\n");
    expect(err.slice(0, 3)).toEqual([
      "service-drift: generated a program adopting 1 resource(s).",
      "Before `pulumi up`, set service:baseUrl and the secret service:apiKey in the stack's config",
      "and these write-only secrets, which the API never returns:",
    ]);
    expect(err[3]).toMatch(new RegExp(`^  pulumi config set --secret \\S+ <value>   # \\S+ of ${d.id}$`));
    expect(run.out.stdout + run.out.stderr).not.toContain(KEY);
    expect(run.out.stdout + run.out.stderr).not.toContain("dd-secret-value");
  } finally {
    await client.close();
  }
});

test("an account with nothing to adopt: no secrets to set; SERVICE_BASE_URL stands for --base-url", async () => {
  const other = `${KEY}_empty`;
  const empty = await startEmulator({ apiKeys: [other] });
  try {
    const run = capture({ SERVICE_API_KEY: other, SERVICE_BASE_URL: empty.url });
    expect(await main(["node", "service-drift", "generate"], run.cli)).toBe(0);
    expect(run.out.stderr).toBe(
      "service-drift: generated a program adopting 0 resource(s).\n" +
        "Before `pulumi up`, set service:baseUrl and the secret service:apiKey in the stack's config\n",
    );
  } finally {
    await empty.close();
  }
});

test("no API key, or no base URL: exit code 1 with the message, the key never printed", async () => {
  const noKey = capture({ SERVICE_BASE_URL: "http://127.0.0.1:1" });
  expect(await main(["node", "service-drift", "generate"], noKey.cli)).toBe(1);
  expect(noKey.out.stderr).toBe(
    "service-drift generate: No API key: set SERVICE_API_KEY to the key of the account to read.\n",
  );
  const noUrl = capture({ SERVICE_API_KEY: KEY });
  expect(await main(["node", "service-drift", "generate"], noUrl.cli)).toBe(1);
  expect(noUrl.out.stderr).toBe(
    "service-drift generate: No base URL: pass --base-url <url> or set SERVICE_BASE_URL.\n",
  );
  const refused = capture({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: "http://127.0.0.1:1" });
  expect(await main(["node", "service-drift", "generate"], refused.cli)).toBe(1);
  expect(refused.out.stderr).toMatch(/^service-drift generate: /);
  expect(refused.out.stderr).not.toContain(KEY);
});
