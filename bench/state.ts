/**
 * Benchmark of the state: bytes of the exported state and of the serialized provider
 * (`__provider`) per resource, for each resource type of this package (one of each deployed)
 * and the floor's (bench/fixtures/floor).
 *
 * @packageDocumentation
 */
import { fixture, type Engine } from "./engine";
import { bytes, configure, exportedResources, withEmulator, type ExportedResource } from "./stacks";
import { summarize, type Summary } from "./stats";

/** Bytes of one resource type's state (benchmark 2). */
export interface StateTypeResult {
  /** Type token, e.g. `pulumi-nodejs:dynamic/service:EventSubscription`. */
  type: string;
  /** Bytes of the resource in the exported state (compact JSON: URN, inputs, outputs, …). */
  stateBytes: Summary;
  /** Bytes of the serialized provider, the `__provider` output (one copy). */
  providerBytes: Summary;
  /** Bytes of every copy of `__provider` in the resource (inputs and outputs). */
  providerBytesAllCopies: Summary;
}

/** Results of {@link benchState}. */
export interface StateResults {
  /** One entry per type of this package, then the floor's provider for comparison. */
  types: StateTypeResult[];
}

/**
 * Runs benchmark 2: deploys one resource of each type of this package (an `EventDestination`, an
 * `EventSubscription`, an `AbuseReport`) and one floor resource, `runs` times, and measures
 * their exported state.
 *
 * @throws Error when a deployment fails or a type is missing from the state.
 */
export async function benchState(
  engine: Engine,
  opts: { runs: number; log: (line: string) => void },
): Promise<StateResults> {
  const samples = new Map<string, { state: number[]; provider: number[]; all: number[] }>();
  const record = (r: ExportedResource) => {
    const provider = r.outputs?.__provider;
    if (typeof provider !== "string") throw new Error(`${r.urn}: no __provider output`);
    const s = samples.get(r.type) ?? { state: [], provider: [], all: [] };
    s.state.push(bytes(r));
    s.provider.push(bytes(provider));
    s.all.push(bytes(provider) + (typeof r.inputs?.__provider === "string" ? bytes(r.inputs.__provider) : 0));
    samples.set(r.type, s);
  };
  await withEmulator(async (emu) => {
    for (let run = 0; run < opts.runs; run++) {
      for (const variant of ["real", "floor"] as const) {
        const stack = await engine.newStack(
          fixture(variant === "real" ? "deploy" : "floor"),
          `state-${variant}-r${run}`,
        );
        try {
          await configure(stack, variant, 1, emu);
          if (variant === "real") await stack.setConfig("reports", { value: "1" });
          await stack.up();
          const resources = await exportedResources(stack);
          // The floor's subscription stands for its provider (both floor types share one).
          for (const r of resources) {
            if (variant === "real" && r.type.startsWith("pulumi-nodejs:dynamic/service:")) record(r);
            if (variant === "floor" && r.type === "pulumi-nodejs:dynamic/floor:EventSubscription") record(r);
          }
          await stack.destroy();
        } finally {
          await engine.removeStack(stack);
        }
      }
      opts.log(`state: run ${run + 1}/${opts.runs}`);
    }
  });
  const wanted = ["EventDestination", "EventSubscription", "AbuseReport"].map(
    (t) => `pulumi-nodejs:dynamic/service:${t}`,
  );
  for (const t of wanted) if (!samples.has(t)) throw new Error(`state: no resource of type ${t}`);
  const order = [...wanted, "pulumi-nodejs:dynamic/floor:EventSubscription"];
  return {
    types: order.map((type) => {
      const s = samples.get(type)!;
      return {
        type,
        stateBytes: summarize(s.state),
        providerBytes: summarize(s.provider),
        providerBytesAllCopies: summarize(s.all),
      };
    }),
  };
}
