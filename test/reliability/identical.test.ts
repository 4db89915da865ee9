/**
 * Resources the service cannot tell apart, created side by side: a stack declaring several event
 * destinations with identical values and several event subscriptions with identical values,
 * deployed by the real engine at its default parallelism and at `--parallel 16`, and by the
 * native SDK through two providers of one account (the default and an explicit one: two plugin
 * processes, test/fixtures/processes), through
 * connection resets before the handler (nothing made) and after it (made, answer lost), against
 * a service that ignores `Idempotency-Key` so that every lost create is resolved by a lookup.
 *
 * Whatever the interleaving, the end is the same: as many resources on the service as declared,
 * each ID held by exactly one resource in the state (no shared ID, no duplicate, no orphan).
 * A run may fail with the clear error of a create that failed twice and made nothing; the next
 * `up` goes on.
 *
 * Seeds: 2 per parallelism in `npm test`; `RELIABILITY_LONG=1` runs 20 per parallelism (or
 * `IDENTICAL_SEEDS=<n>`), and writes the figures to `.pulumi-state/reliability-figures/`.
 */
import * as path from "path";
import { startEmulator } from "../helpers/emulator";
import {
  LONG,
  createStack,
  diagnostics,
  emulatorContents,
  stateIds,
  writeFigures,
  writeOutput,
} from "../helpers/reliability";

const COUNTS = { destinations: 3, subscriptions: 8 };
const SEEDS = Number(process.env.IDENTICAL_SEEDS ?? (LONG ? 20 : 2));
/** How a seed is deployed: the engine's parallelism, and the program (default: the reliability program's). */
interface Deployment {
  name: string;
  args: string[];
  program?: string;
  counts?: { destinations: number; subscriptions: number };
}
const PARALLELISM: Deployment[] = [
  { name: "default", args: [] },
  { name: "16", args: ["--parallel", "16"] },
];
/**
 * Two plugin processes: identical resources through the default provider and an explicit one of
 * the same account (counts per provider).
 */
const TWO_PROVIDERS: Deployment = {
  name: "two-providers",
  args: [],
  program: path.join(__dirname, "..", "fixtures", "processes"),
  counts: { destinations: 2, subscriptions: 4 },
};
const UP = ["up", "--yes", "--skip-preview", "--non-interactive"];
/** `up` runs allowed: a run may fail with a clear error (a create that failed twice); the next goes on. */
const MAX_UPS = 6;

/** What one seed ended with. */
interface SeedFigures {
  parallel: string;
  seed: number;
  ups: number;
  /** The last `up` succeeded. */
  converged: boolean;
  faults: { reset: number; resetAfter: number };
  adopted: number;
  resent: number;
  /** Resources declared, and what the service and the state hold at the end. */
  declared: number;
  live: number;
  /** IDs held by two or more resources of the state. */
  sharedIds: number;
  /** Resources of the service that the state does not hold. */
  orphans: number;
  /** Resources of the service beyond those declared. */
  duplicates: number;
}

/** Deploys the identical stack with faults under `seed` until an `up` succeeds; returns the figures. */
async function deploySeed(parallel: Deployment, seed: number): Promise<SeedFigures> {
  const em = await startEmulator({ idempotencyKeys: false });
  const counts = parallel.counts ?? COUNTS;
  const stack = await createStack(`identical-p${parallel.name}-s${seed}`, em, counts, {
    program: parallel.program,
  });
  try {
    await stack.ok(["config", "set", "identical", "true"]);
    em.app.emulator.setFaults({ reset: 0.2, resetAfter: 0.25, seed });
    let ups = 0;
    let adopted = 0;
    let resent = 0;
    let converged = false;
    while (!converged && ups < MAX_UPS) {
      const r = await stack.run([...UP, ...parallel.args]);
      ups++;
      writeOutput(`identical-p${parallel.name}-s${seed}-up${ups}`, r);
      const d = diagnostics(r);
      adopted += d.adopted;
      resent += d.resent;
      converged = r.code === 0;
      if (converged) break;
      // Each failure is the clear error of a create that failed twice and made nothing, beside
      // the engine's own summary line; any other error fails the test, each line on its own.
      const causes = d.errors.filter((e) => e !== "error: update failed");
      expect(causes.length).toBeGreaterThan(0);
      for (const e of causes) expect(e).toMatch(/^error: .*the create failed twice .* nothing was created/);
    }
    em.app.emulator.setFaults({});
    const faults = em.store.requests().map((q) => q.fault);
    const ids = stateIds(await stack.exportState());
    const live = emulatorContents(em);
    const held = [...ids.destinations, ...ids.subscriptions];
    const liveIds = [...live.destinations, ...live.subscriptions].map((x) => x.id);
    // The two-provider program declares its counts once per provider.
    const declared = (counts.destinations + counts.subscriptions) * (parallel.program ? 2 : 1);
    expect(ids.pending).toBe(0);
    return {
      parallel: parallel.name,
      seed,
      ups,
      converged,
      faults: {
        reset: faults.filter((f) => f === "reset").length,
        resetAfter: faults.filter((f) => f === "reset-after").length,
      },
      adopted,
      resent,
      declared,
      live: liveIds.length,
      sharedIds: held.length - new Set(held).size,
      orphans: liveIds.filter((id) => !held.includes(id)).length,
      duplicates: Math.max(0, liveIds.length - declared),
    };
  } finally {
    stack.dispose();
    await em.close();
  }
}

describe("identical resources created side by side through resets, keys ignored (real engine, real emulator)", () => {
  const all: SeedFigures[] = [];

  afterAll(() => {
    if (all.length === 0) return;
    const file = writeFigures("identical", all);
    const sum = (k: keyof SeedFigures) => all.reduce((n, f) => n + (f[k] as number), 0);
    console.log(
      `identical resources: ${all.length} seeds (${[...PARALLELISM, TWO_PROVIDERS].map((p) => p.name).join(", ")}), ` +
        `${sum("declared")} resources declared, ${sum("ups")} ups, ` +
        `${all.reduce((n, f) => n + f.faults.reset, 0)} resets before and ${all.reduce((n, f) => n + f.faults.resetAfter, 0)} after the handler, ` +
        `${sum("adopted")} adoptions, ${sum("resent")} creates sent again; ` +
        `duplicates ${sum("duplicates")}, orphans ${sum("orphans")}, shared IDs ${sum("sharedIds")} (${file})`,
    );
  });

  for (const parallel of [...PARALLELISM, TWO_PROVIDERS]) {
    it(
      `${parallel.program ? parallel.name : `parallelism ${parallel.name}`}, ${SEEDS} seeds: as many distinct IDs on the service as declared, each held once in the state`,
      async () => {
        const figures: SeedFigures[] = [];
        for (let seed = 1; seed <= SEEDS; seed++) {
          const f = await deploySeed(parallel, seed);
          figures.push(f);
          all.push(f);
          expect({
            seed,
            converged: f.converged,
            live: f.live,
            sharedIds: f.sharedIds,
            orphans: f.orphans,
          }).toEqual({
            seed,
            converged: true,
            live: f.declared,
            sharedIds: 0,
            orphans: 0,
          });
        }
        // The scenario is only meaningful if lost creates happened and were resolved by lookups.
        expect(figures.reduce((n, f) => n + f.faults.resetAfter, 0)).toBeGreaterThan(0);
        expect(figures.reduce((n, f) => n + f.adopted, 0)).toBeGreaterThan(0);
      },
      SEEDS * 4 * 60_000,
    );
  }
});
