/**
 * What a provider configuration change does (provider/impl/configChange.ts), against the
 * emulator with two accounts: another service or another account's key replaces, the same
 * configuration or an unrelated setting does not, and a change the listing cannot decide fails
 * with what to run.
 */
import { ServiceClient } from "../../../client";
import { KEY_CHANGE_ENV, configVerdict } from "../../../provider/impl/configChange";
import { startEmulator } from "../../helpers/emulator";

const A = "sk_config_change_account_a_51d0";
const B = "sk_config_change_account_b_77e3";
const UNKNOWN_KEY = "sk_config_change_nobody_0000";
const NO_ENV = {};

let emulator: Awaited<ReturnType<typeof startEmulator>>;

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [A, B] });
  // Each account holds a destination, so the two keys see different resources.
  for (const key of [A, B]) {
    const client = new ServiceClient({ apiKey: key, baseUrl: emulator.url });
    await client.eventDestinations.create({ target: { datadog: { apiKey: "dd-config-change-key" } } });
    await client.close();
  }
});

afterAll(async () => {
  await emulator?.close();
});

describe("configVerdict", () => {
  it("replaces nothing when the key and the service stay", async () => {
    const config = { apiKey: A, baseUrl: emulator.url };
    await expect(configVerdict(config, { ...config, requestTimeoutMs: "5000" }, NO_ENV)).resolves.toEqual({
      replaces: [],
    });
  });

  it("replaces on a key of another account", async () => {
    const verdict = await configVerdict(
      { apiKey: A, baseUrl: emulator.url },
      { apiKey: B, baseUrl: emulator.url },
      NO_ENV,
    );
    expect(verdict.replaces).toEqual(["apiKey"]);
    expect(verdict.why).toMatch(/another account/);
  });

  it("replaces on another service, whatever the key (a trailing slash is the same service)", async () => {
    const before = { apiKey: A, baseUrl: emulator.url };
    await expect(configVerdict(before, { ...before, baseUrl: `${emulator.url}/` }, NO_ENV)).resolves.toEqual({
      replaces: [],
    });
    const verdict = await configVerdict(before, { ...before, baseUrl: "http://127.0.0.1:9/other" }, NO_ENV);
    expect(verdict.replaces).toEqual(["baseUrl"]);
  });

  it("reads unset settings from the provider's environment", async () => {
    const env = { SERVICE_API_KEY: A, SERVICE_BASE_URL: emulator.url };
    await expect(configVerdict({}, { apiKey: A }, env)).resolves.toEqual({ replaces: [] });
    await expect(configVerdict({}, { apiKey: B }, env)).resolves.toMatchObject({ replaces: ["apiKey"] });
  });

  it("cannot tell when the old key is refused, and says what to run; SERVICE_KEY_CHANGE decides then", async () => {
    const before = { apiKey: UNKNOWN_KEY, baseUrl: emulator.url };
    const after = { apiKey: A, baseUrl: emulator.url };
    await expect(configVerdict(before, after, NO_ENV)).rejects.toThrow(
      /cannot tell whether the new service apiKey belongs to the account of the old one: the old key is refused \(401\).*SERVICE_KEY_CHANGE=rotation pulumi up.*SERVICE_KEY_CHANGE=move pulumi up/,
    );
    await expect(configVerdict(before, after, { [KEY_CHANGE_ENV]: "rotation" })).resolves.toEqual({
      replaces: [],
    });
    await expect(configVerdict(before, after, { [KEY_CHANGE_ENV]: "move" })).resolves.toMatchObject({
      replaces: ["apiKey"],
    });
    await expect(configVerdict(before, after, { [KEY_CHANGE_ENV]: "maybe" })).rejects.toThrow(
      /SERVICE_KEY_CHANGE must be "rotation" or "move", got "maybe"/,
    );
  });

  it("fails on a new key the service refuses, and never names a key", async () => {
    const error = await configVerdict(
      { apiKey: A, baseUrl: emulator.url },
      { apiKey: UNKNOWN_KEY, baseUrl: emulator.url },
      NO_ENV,
    ).catch((e: Error) => e);
    expect(String(error)).toMatch(/the new service apiKey is refused by .* \(401\)/);
    expect(String(error)).not.toContain(UNKNOWN_KEY);
    expect(String(error)).not.toContain(A);
  });
});
