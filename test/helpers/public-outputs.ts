/**
 * A resource's outputs as a program sees them: without Pulumi-internal properties (names starting
 * with `__`, e.g. the key stamp of provider/impl/keyStamp.ts), which the SDKs expose as no output
 * and functions (invokes) do not return.
 */
export function publicOutputs<T extends object>(props: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(props ?? {}).filter(([k]) => !k.startsWith("__"))) as Partial<T>;
}
