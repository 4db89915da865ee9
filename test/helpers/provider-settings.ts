/**
 * Set-up shared by the tests of a provider process's state (provider/impl/process/: the
 * settings, the client, the debug log): a stack configuration as `configure()` receives it, and
 * the settings' environment variables cleared around each test.
 */
import { configure } from "../../provider/impl/process/client";
import { SETTINGS, type ConfigBag } from "../../provider/impl/process/settings";
import type { ScriptedServer } from "./scripted-server";

/** A stack configuration holding `values`, keys with their namespace (`service:apiKey`). */
export function configBag(values: Record<string, string>): ConfigBag {
  return { get: (k: string) => values[k] };
}

/** The variables a provider process reads its settings from ({@link SETTINGS}), and `SERVICE_LOG`. */
export const SETTINGS_ENV = [...Object.values(SETTINGS).map((s) => s.env), "SERVICE_LOG"];

/** What a test of {@link isolateSettings} may leave for the hooks to close. */
export interface SettingsTestState {
  /** A scripted server the test started; closed after it. */
  server?: ScriptedServer;
}

/**
 * Registers hooks on the enclosing `describe`: before each test every variable of
 * {@link SETTINGS_ENV} is unset; after it the test's client is closed (`configure` with an empty
 * configuration), its scripted server (`state.server`) closed, the variables put back as they
 * were and jest's spies restored.
 * @returns the state the hooks read, which each test fills in.
 */
export function isolateSettings(): SettingsTestState {
  const saved = Object.fromEntries(SETTINGS_ENV.map((k) => [k, process.env[k]]));
  const state: SettingsTestState = {};
  beforeEach(() => {
    for (const k of SETTINGS_ENV) delete process.env[k];
  });
  afterEach(async () => {
    await configure({ config: configBag({}) });
    await state.server?.close();
    state.server = undefined;
    for (const k of SETTINGS_ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    jest.restoreAllMocks();
  });
  return state;
}
