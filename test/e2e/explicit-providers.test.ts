/**
 * End to end: the generated Node.js SDK (`pulumi-service/native`) with explicit providers,
 * through the real Pulumi engine, the native plugin (bin/pulumi-resource-service, found through
 * the program's `plugins.providers[].path`) and the real emulator over HTTP. Two accounts (two API keys) in one stack, each resource declared with
 * `{ provider }`, must land in its own account and nowhere else; the stack's default provider
 * is configured with a third account, which must stay empty.
 */
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { NotFoundError, ServiceClient } from "../../client";
import { startEmulator } from "../helpers/emulator";
import { disposeStack, freshBackend, localStack, readStoredState } from "../helpers/pulumi";

const program = path.join(__dirname, "..", "fixtures", "explicit-providers");
const KEYS = { dev: "sk_dev_account_e2e_4b1f9c", prod: "sk_prod_account_e2e_7d2a6e" };
const DEFAULT_KEY = "sk_default_account_e2e_0c3e58";
const DD_KEY = "dd-explicit-providers-secret-91a4";
// Every test and hook runs the Pulumi engine, or waits on it: ten minutes each.
jest.setTimeout(600_000);

type Account = keyof typeof KEYS;
type Ids = Record<Account, { destination: string; subscription: string; report: string }>;

/** Every subscription and destination ID the account holds. */
async function contents(client: ServiceClient): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of client.eventSubscriptions.list()) ids.push(s.id);
  for await (const d of client.eventDestinations.list()) ids.push(d.id);
  return ids.sort();
}

describe("explicit providers of the native SDK (real engine, native plugin, real emulator)", () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let stack: Stack;
  let backend: string;
  let clients: Record<Account | "default", ServiceClient>;

  beforeAll(async () => {
    emulator = await startEmulator({ apiKeys: [KEYS.dev, KEYS.prod, DEFAULT_KEY] });
    const client = (apiKey: string) => new ServiceClient({ apiKey, baseUrl: emulator.url, maxRetries: 0 });
    clients = { dev: client(KEYS.dev), prod: client(KEYS.prod), default: client(DEFAULT_KEY) };
    backend = freshBackend("e2e-explicit-providers");
    // The program's Pulumi.yaml points the engine at the plugin (plugins.providers[].path).
    ({ stack } = await localStack(program, "e2e", backend));
    await stack.setAllConfig({
      baseUrl: { value: emulator.url },
      accounts: { value: JSON.stringify(Object.keys(KEYS)) },
      devApiKey: { value: KEYS.dev, secret: true },
      prodApiKey: { value: KEYS.prod, secret: true },
      ddApiKey: { value: DD_KEY, secret: true },
      // The default provider: resources without `{ provider }` would go to this account.
      "service:apiKey": { value: DEFAULT_KEY, secret: true },
      "service:baseUrl": { value: emulator.url },
    });
  });

  afterAll(async () => {
    await disposeStack(stack);
    await Promise.all(Object.values(clients ?? {}).map((c) => c.close()));
    await emulator?.close();
  });

  it("puts each resource in the account of its provider, keeps the keys out of the state, then previews no changes", async () => {
    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    // Two providers, and a destination, a subscription and an abuse report for each, plus the stack.
    expect(up.summary.resourceChanges).toEqual({ create: 9 });
    const ids = up.outputs.ids.value as Ids;

    for (const account of Object.keys(KEYS) as Account[]) {
      const own = clients[account];
      const other = clients[account === "dev" ? "prod" : "dev"];
      const { destination, subscription, report } = ids[account];
      expect(await contents(own)).toEqual([destination, subscription].sort());
      await expect(own.abuseReports.get(report)).resolves.toMatchObject({ id: report });
      const sub = await own.eventSubscriptions.get(subscription);
      expect({ account, description: sub.description }).toEqual({
        account,
        description: `${account} policy changes`,
      });
      // The other account's key does not see them.
      await expect(other.eventDestinations.get(destination)).rejects.toBeInstanceOf(NotFoundError);
      await expect(other.eventSubscriptions.get(subscription)).rejects.toBeInstanceOf(NotFoundError);
      await expect(other.abuseReports.get(report)).rejects.toBeInstanceOf(NotFoundError);
    }
    expect(await contents(clients.default)).toEqual([]);

    const state = readStoredState(backend);
    for (const secret of [KEYS.dev, KEYS.prod, DEFAULT_KEY, DD_KEY]) expect(state).not.toContain(secret);
    const providers = ((await stack.exportStack()).deployment.resources ?? []).filter((r: { type: string }) =>
      r.type.startsWith("pulumi:providers:service"),
    );
    expect(providers.map((r: { urn: string }) => r.urn.split("::").pop()).sort()).toEqual(["dev", "prod"]);

    const preview = await stack.preview();
    expect(preview.changeSummary).toEqual({ same: 9 });
  });

  it("destroys each account's resources with its own provider", async () => {
    const destroy = await stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    for (const account of Object.keys(KEYS) as Account[])
      expect({ account, left: await contents(clients[account]) }).toEqual({ account, left: [] });
  });
});
