/**
 * The provider's settings (stack configuration first, then the provider process's environment)
 * and the values `configure()` last read: one of the three pieces of process-global state of a
 * provider process, with the client (client.ts) and the debug log's queue (debugLog.ts).
 *
 * @packageDocumentation
 */

/** The bag `configure()` receives: the whole stack configuration, namespaces kept. */
export interface ConfigBag {
  get(key: string): string | undefined;
}

/** A whole-number setting: its unit as the error names it, its range, and its default. */
interface NumberSetting {
  unit: string;
  min: number;
  max: number;
  /** The range in words, after the number (e.g. `(10 minutes)`). */
  hint?: string;
}

/**
 * The provider's settings: stack config key, environment variable, and for numbers the unit and
 * range. Left unset, a setting takes the client's default (`ServiceClientOptions` in client/client.ts).
 */
export const SETTINGS = {
  apiKey: { key: "service:apiKey", env: "SERVICE_API_KEY" },
  baseUrl: { key: "service:baseUrl", env: "SERVICE_BASE_URL" },
  caCertificate: { key: "service:caCertificate", env: "SERVICE_CA_CERTIFICATE" },
  requestTimeoutMs: {
    key: "service:requestTimeoutMs",
    env: "SERVICE_REQUEST_TIMEOUT_MS",
    number: { unit: "milliseconds", min: 1, max: 600_000, hint: " (10 minutes)" } as NumberSetting,
  },
  maxRetries: {
    key: "service:maxRetries",
    env: "SERVICE_MAX_RETRIES",
    number: { unit: "retries", min: 0, max: 20 } as NumberSetting,
  },
  retryBudgetMs: {
    key: "service:retryBudgetMs",
    env: "SERVICE_RETRY_BUDGET_MS",
    number: { unit: "milliseconds", min: 0, max: 3_600_000, hint: " (1 hour)" } as NumberSetting,
  },
  maxRequestsPerSecond: {
    key: "service:maxRequestsPerSecond",
    env: "SERVICE_MAX_REQUESTS_PER_SECOND",
  },
  requestBurst: {
    key: "service:requestBurst",
    env: "SERVICE_REQUEST_BURST",
    number: { unit: "requests", min: 1, max: 10_000 } as NumberSetting,
  },
} as const;

/** A setting's name: a key of {@link SETTINGS}. */
export type Name = keyof typeof SETTINGS;
/** A setting's value and how to name where it came from in an error. */
export interface Setting {
  value: string;
  from: string;
}

/** The settings `configure()` last read ({@link readSettings}); empty before the first. */
let settings: Partial<Record<Name, Setting>> = {};

/** The value of `name`: stack config, else the environment (empty counts as unset). */
function readOne(config: ConfigBag | undefined, name: Name): Setting | undefined {
  const { key, env } = SETTINGS[name];
  const fromConfig = config?.get(key);
  if (fromConfig) return { value: fromConfig, from: key };
  const fromEnv = process.env[env];
  return fromEnv ? { value: fromEnv, from: `${env} (the fallback of ${key})` } : undefined;
}

/**
 * Reads every setting of {@link SETTINGS} from `config`, falling back to the environment, and
 * keeps them as the process's settings.
 * @returns whether any value differs from the settings kept before.
 */
export function readSettings(config: ConfigBag): boolean {
  const next: Partial<Record<Name, Setting>> = {};
  for (const name of Object.keys(SETTINGS) as Name[]) {
    const s = readOne(config, name);
    if (s) next[name] = s;
  }
  const changed = !(Object.keys(SETTINGS) as Name[]).every((n) => next[n]?.value === settings[n]?.value);
  settings = next;
  return changed;
}

/**
 * The value of setting `name` and where it came from (a config key, or the variable that stood
 * in for it): the one `configure()` read, else the environment's now; `undefined` when unset.
 */
export function setting(name: Name): Setting | undefined {
  return settings[name] ?? readOne(undefined, name);
}

/** A whole number within the setting's range. @throws Error naming the setting, unit and range. */
export function whole(
  name: "requestTimeoutMs" | "maxRetries" | "retryBudgetMs" | "requestBurst",
): number | undefined {
  const s = setting(name);
  if (!s) return undefined;
  const { unit, min, max, hint = "" } = SETTINGS[name].number;
  const n = /^\s*\d+\s*$/.test(s.value) ? Number(s.value) : NaN;
  if (!(n >= min && n <= max)) {
    throw new Error(
      `${s.from} must be a whole number of ${unit} from ${min} to ${max}${hint}, got ${JSON.stringify(s.value)}`,
    );
  }
  return n;
}

/**
 * `service:maxRequestsPerSecond`: a number of requests per second above 0 and at most 10,000
 * (fractions allowed: `0.5` is one request every 2 seconds).
 * @throws Error naming the setting, unit and range.
 */
export function requestsPerSecond(): number | undefined {
  const s = setting("maxRequestsPerSecond");
  if (!s) return undefined;
  const n = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/.test(s.value) ? Number(s.value) : NaN;
  if (!(n > 0 && n <= 10_000)) {
    throw new Error(
      `${s.from} must be a number of requests per second above 0 and at most 10000, got ${JSON.stringify(s.value)}`,
    );
  }
  return n;
}
