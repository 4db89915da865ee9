/**
 * What a provider configuration change does (provider/impl/configChange.ts), against the
 * emulator with two accounts: another service or another account's key replaces, the same
 * configuration or an unrelated setting does not, and a change the listing cannot decide fails
 * with what to run.
 */
import { AuthenticationError, EventDestinations, ServiceClient } from "../../../client";
import { KEY_CHANGE_ENV, configVerdict } from "../../../provider/impl/configChange";
import { UNKNOWN } from "../../../provider/impl/inputChecks";
import * as debugLog from "../../../provider/impl/process/debugLog";
import { addApiKey, startEmulator } from "../../helpers/emulator";
import { lastPage, startScriptedServer } from "../../helpers/scripted-server";

const A = "sk_config_change_account_a_51d0";
const B = "sk_config_change_account_b_77e3";
const UNKNOWN_KEY = "sk_config_change_nobody_0000";
/** Keys of two more accounts, both empty. */
const EMPTY = "sk_config_change_empty_c_9a41";
const EMPTY_TOO = "sk_config_change_empty_d_2b07";
const NO_ENV = {};

let emulator: Awaited<ReturnType<typeof startEmulator>>;
/** A provider configuration of `apiKey` at `baseUrl` (by default the emulator's). */
const on = (apiKey: string | undefined, baseUrl: string = emulator.url) => ({ apiKey, baseUrl });

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [A, B, EMPTY, EMPTY_TOO] });
  // Accounts A and B hold a destination each, so the two keys see different resources; EMPTY and
  // EMPTY_TOO hold none.
  for (const key of [A, B]) {
    const client = new ServiceClient({ apiKey: key, baseUrl: emulator.url });
    await client.eventDestinations.create({ target: { datadog: { apiKey: "dd-config-change-key" } } });
    await client.close();
  }
});

afterAll(async () => {
  await emulator?.close();
});

afterEach(() => jest.restoreAllMocks());

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

  it("replaces on a key of a new, empty account, and on the way back; two empty accounts cannot be told apart and replace nothing", async () => {
    const toEmpty = await configVerdict(on(A), on(EMPTY), NO_ENV);
    expect(toEmpty.replaces).toEqual(["apiKey"]);
    expect(toEmpty.why).toMatch(/another account/);
    expect((await configVerdict(on(EMPTY), on(A), NO_ENV)).replaces).toEqual(["apiKey"]);
    await expect(configVerdict(on(EMPTY), on(EMPTY_TOO), NO_ENV)).resolves.toEqual({ replaces: [] });
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
    const refused = await configVerdict(before, after, NO_ENV).catch((e: Error) => e);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toBe(
      "cannot tell whether the new service apiKey belongs to the account of the old one: the old key is refused (401), " +
        "as after a revocation. If the key was rotated within the same account, run `SERVICE_KEY_CHANGE=rotation pulumi up` " +
        "(nothing is replaced). If it is another account's, run `SERVICE_KEY_CHANGE=move pulumi up`: the resources are " +
        "created in the new account and deleted from the old one, which needs the old key to still work. Set " +
        "SERVICE_KEY_CHANGE for that one run only, never in a lasting environment such as a CI job's: while it says " +
        "rotation, the key stamp checks that keep another account's resources from being dropped are off.",
    );
    expect((refused as Error).cause).toBeInstanceOf(AuthenticationError);
    jest.spyOn(debugLog, "warn").mockResolvedValue(undefined);
    await expect(configVerdict(before, after, { [KEY_CHANGE_ENV]: "rotation" })).resolves.toEqual({
      replaces: [],
    });
    await expect(configVerdict(before, after, { [KEY_CHANGE_ENV]: "move" })).resolves.toEqual({
      replaces: ["apiKey"],
      why: "SERVICE_KEY_CHANGE=move",
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
    expect((error as Error).cause).toBeInstanceOf(AuthenticationError);
  });

  it("closes the clients it lists each key with", async () => {
    const closed = jest.spyOn(ServiceClient.prototype, "close");
    await configVerdict(on(A), on(B), NO_ENV);
    expect(closed).toHaveBeenCalledTimes(2);
  });
});

describe("configVerdict at its edges", () => {
  it("replaces nothing while the new key or service is not known yet (a preview)", async () => {
    await expect(configVerdict(on(A), on(UNKNOWN), NO_ENV)).resolves.toEqual({ replaces: [] });
    await expect(configVerdict(on(A), on(A, UNKNOWN), NO_ENV)).resolves.toEqual({ replaces: [] });
  });

  it("names a service set or unset as (unset)", async () => {
    await expect(configVerdict({ apiKey: A }, on(A), NO_ENV)).resolves.toEqual({
      replaces: ["baseUrl"],
      why: `baseUrl changed from (unset) to ${emulator.url}: another service`,
    });
    await expect(configVerdict(on(A), { apiKey: A }, NO_ENV)).resolves.toEqual({
      replaces: ["baseUrl"],
      why: `baseUrl changed from ${emulator.url} to (unset): another service`,
    });
  });

  it("takes a service's path with trailing slashes for the same service, and another path for another", async () => {
    await expect(
      configVerdict(on(A, `${emulator.url}/v1`), on(A, `${emulator.url}/v1//`), NO_ENV),
    ).resolves.toEqual({
      replaces: [],
    });
    expect(
      (await configVerdict(on(A, `${emulator.url}/v1`), on(A, `${emulator.url}/v2`), NO_ENV)).replaces,
    ).toEqual(["baseUrl"]);
  });

  it("asks no service when the key stays, or when there was none before", async () => {
    const nowhere = "http://127.0.0.1:9";
    await expect(configVerdict(on(A, nowhere), on(A, nowhere), NO_ENV)).resolves.toEqual({ replaces: [] });
    await expect(configVerdict(on(undefined, nowhere), on(A, nowhere), NO_ENV)).resolves.toEqual({
      replaces: [],
    });
  });

  it("takes an empty SERVICE_KEY_CHANGE as unset, and keys whose first pages share a resource as one account", async () => {
    const moved = await configVerdict(on(A), on(B), { [KEY_CHANGE_ENV]: "" });
    expect(moved.replaces).toEqual(["apiKey"]);
    // A second key of account A sees A's destination: the same account, a rotation.
    const second = "sk_config_change_account_a_second_key";
    await addApiKey(emulator.url, emulator.adminKey, second, A);
    await expect(configVerdict(on(A), on(second), NO_ENV)).resolves.toEqual({ replaces: [] });
  });

  it("takes an empty setting for an unset one, read from the environment", async () => {
    const env = { SERVICE_BASE_URL: emulator.url };
    await expect(configVerdict({ apiKey: A, baseUrl: "" }, on(A), env)).resolves.toEqual({ replaces: [] });
  });

  it("compares a service that is not a URL as written", async () => {
    await expect(configVerdict(on(A, "not a url"), on(A, "not a url"), NO_ENV)).resolves.toEqual({
      replaces: [],
    });
    await expect(configVerdict(on(A, "not a url"), on(A, "not a url either"), NO_ENV)).resolves.toMatchObject(
      {
        replaces: ["baseUrl"],
      },
    );
  });

  it("says which service could not be asked for the new key, without naming it", async () => {
    const nowhere = "http://127.0.0.1:9";
    const error = await configVerdict(on(A, nowhere), on(B, nowhere), NO_ENV).catch((e: Error) => e);
    expect(String(error)).toMatch(
      /^Error: cannot tell whether the new service apiKey belongs to the account of the old one: http:\/\/127\.0\.0\.1:9 could not be asked: /,
    );
    expect(String(error)).not.toContain(B);
  }, 30_000);

  it("lists the first 100 of each kind with each key, as the provider (its User-Agent)", async () => {
    const server = await startScriptedServer([
      lastPage("event_destinations"),
      lastPage("event_subscriptions"),
      lastPage("event_destinations"),
      lastPage("event_subscriptions"),
    ]);
    try {
      await expect(configVerdict(on(A, server.url), on(B, server.url), NO_ENV)).resolves.toEqual({
        replaces: [],
      });
      expect(server.requests.map((r) => [r.url, r.headers["user-agent"], r.headers.authorization])).toEqual([
        ["/event_destinations?limit=100", "pulumi-service-provider", `Bearer ${B}`],
        ["/event_subscriptions?limit=100", "pulumi-service-provider", `Bearer ${B}`],
        ["/event_destinations?limit=100", "pulumi-service-provider", `Bearer ${A}`],
        ["/event_subscriptions?limit=100", "pulumi-service-provider", `Bearer ${A}`],
      ]);
    } finally {
      await server.close();
    }
  });

  it("says which service could not be asked with the old key when its listing fails otherwise than with a 401", async () => {
    const pages = EventDestinations.prototype.pages;
    let calls = 0;
    // The new key's listing comes first, then the old key's: the second fails as a reset would.
    jest.spyOn(EventDestinations.prototype, "pages").mockImplementation(function (
      this: EventDestinations,
      ...args
    ) {
      calls += 1;
      if (calls === 2) throw new Error("GET /event_destinations: connection reset");
      return pages.apply(this, args);
    });
    const error = await configVerdict(on(A), on(B), NO_ENV).catch((e: Error) => e);
    expect(String(error)).toMatch(
      new RegExp(
        `^Error: cannot tell whether the new service apiKey belongs to the account of the old one: ${emulator.url.replace(/[.]/g, "\\.")} could not be asked with the old key: GET /event_destinations: connection reset\\. `,
      ),
    );
    expect(String(error)).not.toContain(A);
    expect(String(error)).not.toContain(B);
  });
});

/**
 * `SERVICE_KEY_CHANGE=rotation` is for one run: each provider process it takes effect in warns
 * once, through Pulumi's log, that the key stamp checks are off for this run and to unset it, and
 * more loudly when the environment is a CI job's (whose variables stay for every later run).
 */
describe("SERVICE_KEY_CHANGE=rotation", () => {
  /** Runs `body` with configChange.ts (and what it loads) as a new provider process has them, and Pulumi's log.warn counted. */
  async function inNewProcess(
    body: (fresh: typeof import("../../../provider/impl/configChange")) => Promise<void>,
  ): Promise<string[]> {
    const warnings: string[] = [];
    await jest.isolateModulesAsync(async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const log = require("@pulumi/pulumi/log") as typeof import("@pulumi/pulumi/log");
      jest.spyOn(log, "warn").mockImplementation(async (message: string) => {
        warnings.push(message);
      });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      await body(require("../../../provider/impl/configChange"));
    });
    return warnings;
  }
  const before = () => ({ apiKey: UNKNOWN_KEY, baseUrl: emulator.url });
  const after = () => ({ apiKey: A, baseUrl: emulator.url });

  it("warns once per process, when it decides a key change, that the stamp checks are off for this run and to unset it", async () => {
    const env = { [KEY_CHANGE_ENV]: "rotation" };
    const warnings = await inNewProcess(async ({ configVerdict }) => {
      // move replaces, and warns of nothing.
      await expect(configVerdict(before(), after(), { [KEY_CHANGE_ENV]: "move" })).resolves.toMatchObject({
        replaces: ["apiKey"],
      });
      await expect(
        configVerdict({ apiKey: A, baseUrl: emulator.url }, { apiKey: A, baseUrl: emulator.url }, env),
      ).resolves.toEqual({ replaces: [] });
      await expect(configVerdict(before(), after(), env)).resolves.toEqual({ replaces: [] });
      await expect(configVerdict(after(), { apiKey: B, baseUrl: emulator.url }, env)).resolves.toEqual({
        replaces: [],
      });
    });
    expect(warnings).toEqual([
      "SERVICE_KEY_CHANGE=rotation is set: for this run, any change of the service apiKey counts as a rotation " +
        'within the account, and the key stamp checks are off (a 404 to this key counts as "gone" even for a ' +
        "resource another key made). It is meant for one run: unset SERVICE_KEY_CHANGE once this run is done.",
    ]);
  });

  it("warns louder where CI is set: the CI job's configuration must not keep it", async () => {
    const warnings = await inNewProcess(async ({ configVerdict }) => {
      await configVerdict(before(), after(), { [KEY_CHANGE_ENV]: "rotation", CI: "true" });
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^SERVICE_KEY_CHANGE=rotation IS SET IN WHAT LOOKS LIKE A CI ENVIRONMENT \(CI is set\)\. .*unset SERVICE_KEY_CHANGE once this run is done\. If the CI job's configuration sets it, remove it there now: left in place, every later run takes another account's 404 for "gone"/,
    );
    const quiet = await inNewProcess(async ({ configVerdict }) => {
      await configVerdict(before(), after(), { [KEY_CHANGE_ENV]: "rotation", CI: "false" });
    });
    expect(quiet).toHaveLength(1);
    expect(quiet[0]).not.toMatch(/CI/);
  });

  it.each(["", "0", "FALSE"])("warns as usual where CI is %j", async (ci) => {
    const warnings = await inNewProcess(async ({ configVerdict }) => {
      await configVerdict(before(), after(), { [KEY_CHANGE_ENV]: "rotation", CI: ci });
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^SERVICE_KEY_CHANGE=rotation is set: for this run/);
  });
});
