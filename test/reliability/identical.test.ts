/**
 * The property test of parallel lost creates: resources the service cannot tell apart, created
 * side by side: a stack declaring several event destinations with identical values and several
 * event subscriptions with identical values, deployed by the real engine at its default
 * parallelism and at `--parallel 16`, and by the native SDK through two providers of one account
 * (the default and an explicit one: two plugin processes, test/fixtures/processes), through every
 * fault the emulator injects, with shares drawn from the seed ({@link drawFaults}): connection
 * resets before the handler (nothing made) and after it (made, answer lost), 500, 502 and 503
 * before the handler and after it (made, answer an error), 429 and 503 with `Retry-After`, bodies
 * cut mid-way (made), and answers held beyond the client's timeout (made; the provider's
 * `SERVICE_REQUEST_TIMEOUT_MS` is {@link CLIENT_TIMEOUT_MS}, the hold {@link SLOW_MS}).
 *
 * Odd seeds run against a service that ignores `Idempotency-Key`, so that every lost create is
 * resolved by a lookup; even seeds against one that honours keys, and only those also hold
 * requests *before* the handler beyond the client's timeout (`slow`: the create commits after
 * the client gave up). Against a service that ignores keys such a create can commit after the
 * lookup found nothing, and the create sent again makes a second resource: the limit
 * docs/reliability.md states (item 4 of "Design of ambiguous creates"), which this test does not
 * exercise.
 *
 * Whatever the interleaving, the end is the same: as many resources on the service as declared,
 * each ID held by exactly one resource in the state (no shared ID, no duplicate, no orphan),
 * within {@link MAX_UPS} `up` runs. A run may fail with the clear error of a create that failed
 * twice and made nothing; the next `up` goes on.
 *
 * Seeds: 2 per deployment in `npm test`; `RELIABILITY_LONG=1` runs 20 per deployment (or
 * `IDENTICAL_SEEDS=<n>`), and writes the figures to `.pulumi-state/reliability-figures/`.
 */
import * as path from "path";
import { FAULT_SHARES, type FaultConfig } from "service-contract";
import { FAULT_OUTCOMES, seededRandom } from "../../packages/emulator/faults";
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
/** The one error a failed `up` may show (besides the engine's summary): a create that made nothing. */
const NOTHING_CREATED = /^error: .*the create failed twice .* nothing was created/;
/**
 * `up` runs within which every seed converges (docs/reliability.md): a run may fail with a clear
 * error (a create that failed twice); the next goes on.
 */
const MAX_UPS = 6;
/** The provider's request timeout in these runs (`SERVICE_REQUEST_TIMEOUT_MS`), in **milliseconds**. */
const CLIENT_TIMEOUT_MS = 2000;
/** How long a `slow` request or a `slow-after` answer is held, in **milliseconds**: beyond {@link CLIENT_TIMEOUT_MS}. */
const SLOW_MS = 3000;

/** A share member of the fault configuration. */
type Share = (typeof FAULT_SHARES)[number];
/** A range of shares: from `min` to `max`. */
type ShareRange = [min: number, max: number];

/** The same `range` for each of `shares`. */
function sameRange<K extends Share>(shares: readonly K[], range: ShareRange): Record<K, ShareRange> {
  return Object.fromEntries(shares.map((share) => [share, range])) as Record<K, ShareRange>;
}

/**
 * The share of each fault a seed may draw: from `min` to `max`. The error statuses answered
 * before the handler share one range, those answered after it another, the two holds a third.
 */
const SHARE_RANGES: Record<Share, ShareRange> = {
  reset: [0.06, 0.14],
  resetAfter: [0.1, 0.18],
  ...sameRange(["status500", "status502", "status503", "status429"], [0.01, 0.04]),
  ...sameRange(["status500After", "status502After", "status503After"], [0.02, 0.05]),
  truncate: [0.02, 0.06],
  ...sameRange(["slowAfter", "slow"], [0.01, 0.03]),
};

/**
 * The faults of `seed`: whether the service honours `Idempotency-Key` (even seeds), and a share
 * of every fault, drawn from its range of {@link SHARE_RANGES} by a generator seeded with `seed`
 * (`slow`, the hold before the handler, only when keys are honoured); the emulator draws each
 * request's fault with `seed` too. The shares add up to at most 0.75.
 */
function drawFaults(seed: number): { keysHonoured: boolean; faults: FaultConfig } {
  const keysHonoured = seed % 2 === 0;
  const random = seededRandom(seed * 7919 + 17);
  const faults: FaultConfig = { seed, slowMs: SLOW_MS };
  for (const share of FAULT_SHARES) {
    const [min, max] = SHARE_RANGES[share];
    const value = Math.round((min + random() * (max - min)) * 1000) / 1000;
    if (share !== "slow" || keysHonoured) faults[share] = value;
  }
  return { keysHonoured, faults };
}

/** What one seed ended with. */
interface SeedFigures {
  parallel: string;
  seed: number;
  /** The service honoured `Idempotency-Key`. */
  keysHonoured: boolean;
  /** The fault configuration drawn for the seed. */
  config: FaultConfig;
  ups: number;
  /** The last `up` succeeded. */
  converged: boolean;
  /**
   * The errors of failed `up`s other than a create that failed twice and made nothing (the runs
   * stop at the first), by `up`.
   */
  unexpected: string[];
  /** Requests of each injected fault (request log `fault`: `reset`, `reset-after`, `500-after`, …). */
  faults: Record<string, number>;
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
  const { keysHonoured, faults: config } = drawFaults(seed);
  const em = await startEmulator({ idempotencyKeys: keysHonoured });
  const counts = parallel.counts ?? COUNTS;
  const stack = await createStack(`identical-p${parallel.name}-s${seed}`, em, counts, {
    program: parallel.program,
  });
  try {
    await stack.ok(["config", "set", "identical", "true"]);
    em.app.emulator.setFaults(config);
    let ups = 0;
    let adopted = 0;
    let resent = 0;
    let converged = false;
    const unexpected: string[] = [];
    while (!converged && ups < MAX_UPS) {
      // Every provider process of the run (the explicit provider too) times out at CLIENT_TIMEOUT_MS.
      const r = await stack.run([...UP, ...parallel.args], {
        env: { SERVICE_REQUEST_TIMEOUT_MS: String(CLIENT_TIMEOUT_MS) },
      });
      ups++;
      writeOutput(`identical-p${parallel.name}-s${seed}-up${ups}`, r);
      const d = diagnostics(r);
      adopted += d.adopted;
      resent += d.resent;
      converged = r.code === 0;
      if (converged) break;
      // Each failure is the clear error of a create that failed twice and made nothing, beside
      // the engine's own summary line; any other error is kept (and fails the test, each line on
      // its own, once the seed's IDs are counted), and ends the seed's runs.
      const causes = d.errors.filter((e) => e !== "error: update failed");
      if (causes.length === 0) unexpected.push(`up ${ups} failed with no error of a resource`);
      unexpected.push(...causes.filter((e) => !NOTHING_CREATED.test(e)).map((e) => `up ${ups}: ${e}`));
      if (unexpected.length > 0) break;
    }
    em.app.emulator.setFaults({});
    const faults: Record<string, number> = {};
    for (const { fault } of em.store.requests()) if (fault !== null) faults[fault] = (faults[fault] ?? 0) + 1;
    const state = await stack.exportState();
    const ids = stateIds(state);
    const live = emulatorContents(em);
    const held = [...ids.destinations, ...ids.subscriptions];
    const liveIds = [...live.destinations, ...live.subscriptions].map((x) => x.id);
    // The two-provider program declares its counts once per provider.
    const declared = (counts.destinations + counts.subscriptions) * (parallel.program ? 2 : 1);
    const sharedIds = held.length - new Set(held).size;
    const orphans = liveIds.filter((id) => !held.includes(id)).length;
    // What a person needs to tell what went wrong: the state, and the request log with its faults.
    if (unexpected.length > 0 || sharedIds > 0 || orphans > 0 || ids.pending > 0) {
      writeFigures(`identical-p${parallel.name}-s${seed}-state`, state);
      writeFigures(`identical-p${parallel.name}-s${seed}-requests`, em.store.requests());
    }
    expect(ids.pending).toBe(0);
    return {
      parallel: parallel.name,
      seed,
      keysHonoured,
      config,
      ups,
      converged,
      faults,
      adopted,
      resent,
      unexpected,
      declared,
      live: liveIds.length,
      sharedIds,
      orphans,
      duplicates: Math.max(0, liveIds.length - declared),
    };
  } finally {
    stack.dispose();
    await em.close();
  }
}

/** The faults whose request was carried out, its answer lost or an error: the lost creates. */
const AFTER_COMMIT = ["reset-after", "500-after", "502-after", "503-after", "truncate", "slow", "slow-after"];

describe("identical resources created side by side through every injected fault (real engine, real emulator)", () => {
  const all: SeedFigures[] = [];

  afterAll(() => {
    if (all.length === 0) return;
    const file = writeFigures("identical", all);
    const sum = (k: keyof SeedFigures) => all.reduce((n, f) => n + (f[k] as number), 0);
    const byFault = Object.values(FAULT_OUTCOMES)
      .map((o) => `${o} ${all.reduce((n, f) => n + (f.faults[o] ?? 0), 0)}`)
      .join(", ");
    const upsPerSeed = all.map((f) => f.ups);
    console.log(
      `identical resources: ${all.length} seeds (${[...PARALLELISM, TWO_PROVIDERS].map((p) => p.name).join(", ")}; ` +
        `${all.filter((f) => f.keysHonoured).length} with keys honoured), ` +
        `${sum("declared")} resources declared, ${sum("ups")} ups (at most ${Math.max(...upsPerSeed)} for one seed; ` +
        `seeds converged in 1/2/3+ ups: ${[1, 2].map((n) => upsPerSeed.filter((u) => u === n).length).join("/")}/${upsPerSeed.filter((u) => u >= 3).length}), ` +
        `faults injected: ${byFault}; ` +
        `${sum("adopted")} adoptions, ${sum("resent")} creates sent again; ` +
        `duplicates ${sum("duplicates")}, orphans ${sum("orphans")}, shared IDs ${sum("sharedIds")} (${file})`,
    );
  });

  for (const parallel of [...PARALLELISM, TWO_PROVIDERS]) {
    it(
      `${parallel.program ? parallel.name : `parallelism ${parallel.name}`}, ${SEEDS} seeds: as many distinct IDs on the service as declared, each held once in the state, within ${MAX_UPS} ups`,
      async () => {
        const figures: SeedFigures[] = [];
        for (let seed = 1; seed <= SEEDS; seed++) {
          const f = await deploySeed(parallel, seed);
          figures.push(f);
          all.push(f);
          expect({
            seed,
            unexpected: f.unexpected,
            converged: f.converged,
            live: f.live,
            sharedIds: f.sharedIds,
            orphans: f.orphans,
          }).toEqual({
            seed,
            unexpected: [],
            converged: true,
            live: f.declared,
            sharedIds: 0,
            orphans: 0,
          });
        }
        // The scenario is only meaningful if lost creates happened and were resolved by lookups.
        const lost = figures.reduce(
          (n, f) => n + AFTER_COMMIT.reduce((m, o) => m + (f.faults[o] ?? 0), 0),
          0,
        );
        expect(lost).toBeGreaterThan(0);
        expect(figures.reduce((n, f) => n + f.adopted, 0)).toBeGreaterThan(0);
      },
      SEEDS * 4 * 60_000,
    );
  }
});
