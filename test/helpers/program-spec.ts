/**
 * What the engine-test programs (test/fixtures/lifecycle, gitops-drift and native) share: the
 * parts of their stack config `spec` and the secrets it names. Loaded by those programs in the
 * engine's Node.js process, so it imports nothing.
 */

/** A subscription of a spec: its destinations by resource name, plus IDs from outside the program. */
export interface SpecSubscription {
  name: string;
  destinations: string[];
  extraDestinationIds?: string[];
  args: { sources: { type: string }[]; description?: string; metadata?: string; adoptId?: string };
}

/**
 * `value` with each string `"secret:NAME"`, at any depth, replaced by the secret stack config
 * NAME read from `config` (a program's `pulumi.Config`).
 */
export function withSecrets(config: { requireSecret(key: string): unknown }, value: unknown): unknown {
  if (typeof value === "string" && value.startsWith("secret:")) return config.requireSecret(value.slice(7));
  if (Array.isArray(value)) return value.map((v) => withSecrets(config, v));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withSecrets(config, v)]));
  }
  return value;
}
