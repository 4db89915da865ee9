/**
 * Deploy through faults. `pulumi up` (the real engine, the project's CLI,
 * `--parallel 10`) of 50 event subscriptions and 5 event destinations against the emulator
 * injecting 503 (10 %, `Retry-After: 1`), 429 (5 %, `Retry-After: 1`), connection resets before
 * the handler (2 %) and 100 ms of latency on every request. Some runs add `reset-after` (5 %:
 * the create is committed, then the connection is destroyed — the ambiguous case), once with a
 * server that honours `Idempotency-Key` and once with one that ignores it (the provider then
 * finds what its lost creates made).
 *
 * Each run must either succeed, or fail with a clear error and then succeed on a second `up`
 * with the faults still on. At the end the emulator holds exactly the declared resources — one
 * per declared description, no duplicate, no orphan — and they are exactly the IDs in the
 * stack's state. Figures (faults counted from the request log, retries, outcomes, durations) go
 * to `.pulumi-state/reliability-figures/faults.json` and the test's output.
 *
 * One run adds an outage: every request answered 503 from the 20th create until that `up` ends,
 * which must fail with a clear error (and leave nothing behind) before a second `up` succeeds.
 *
 * The short variant (always on) runs four seeds; `RELIABILITY_LONG=1` runs thirteen.
 */
import type { FaultConfig } from "../../packages/emulator";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import {
  COUNTS,
  createStack,
  diagnostics,
  expectConverged,
  LONG,
  requestFigures,
  stateIds,
  writeFigures,
  writeOutput,
  type TestStack,
} from "../helpers/reliability";

const BASE_FAULTS: FaultConfig = { status503: 0.1, status429: 0.05, reset: 0.02, latencyMs: 100 };

interface Run {
  seed: number;
  /** Share of `reset-after` faults (0: none). */
  resetAfter: number;
  /** Whether the emulator honours `Idempotency-Key`. */
  idempotencyKeys: boolean;
  /**
   * An outage during the first `up`: once {@link OUTAGE_AFTER} creates were answered, every
   * request is answered 503 (with `Retry-After`) until that `up` ends, which it must do with a
   * clear error; the second `up`, with the run's faults back on, must succeed.
   */
  outage?: boolean;
}

/** Creates answered before the outage of an outage run starts. */
const OUTAGE_AFTER = 20;

const SHORT_RUNS: Run[] = [
  { seed: 1, resetAfter: 0, idempotencyKeys: true },
  { seed: 2, resetAfter: 0.05, idempotencyKeys: true },
  { seed: 3, resetAfter: 0.05, idempotencyKeys: false },
  { seed: 13, resetAfter: 0, idempotencyKeys: true, outage: true },
];
const LONG_RUNS: Run[] = [
  ...SHORT_RUNS,
  { seed: 4, resetAfter: 0, idempotencyKeys: true },
  { seed: 5, resetAfter: 0.05, idempotencyKeys: true },
  { seed: 6, resetAfter: 0.05, idempotencyKeys: false },
  { seed: 7, resetAfter: 0, idempotencyKeys: false },
  { seed: 8, resetAfter: 0.05, idempotencyKeys: true },
  { seed: 9, resetAfter: 0.05, idempotencyKeys: false },
  { seed: 10, resetAfter: 0, idempotencyKeys: true },
  { seed: 11, resetAfter: 0.1, idempotencyKeys: true },
  { seed: 12, resetAfter: 0.1, idempotencyKeys: false },
  { seed: 14, resetAfter: 0, idempotencyKeys: false, outage: true },
];
const RUNS = LONG ? LONG_RUNS : SHORT_RUNS;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UP = ["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "10"];
const results: unknown[] = [];

describe("pulumi up through injected faults (real engine, real emulator)", () => {
  afterAll(() => {
    const file = writeFigures("faults", { variant: LONG ? "long" : "short", counts: COUNTS, runs: results });
    console.log(`reliability figures: ${file}\n${JSON.stringify(results)}`);
  });

  it.each(RUNS)(
    "seed $seed, reset-after $resetAfter, idempotency keys honoured: $idempotency, outage: $outage",
    async (run) => {
      const faults: FaultConfig = {
        ...BASE_FAULTS,
        seed: run.seed,
        ...(run.resetAfter ? { resetAfter: run.resetAfter } : {}),
      };
      let em: RunningEmulator | undefined;
      let stack: TestStack | undefined;
      try {
        em = await startEmulator({ idempotencyKeys: run.idempotencyKeys });
        stack = await createStack(`faults-${run.seed}`, em, COUNTS);
        em.app.emulator.setFaults(faults);
        const ups = [];
        for (let attempt = 1; attempt <= 2; attempt++) {
          const running = stack.run(UP);
          const outage = run.outage && attempt === 1;
          if (outage) {
            let ended = false;
            void running.then(() => (ended = true));
            const created = () =>
              em!.store.requests().filter((q) => q.method === "POST" && q.status === 201).length;
            while (!ended && created() < OUTAGE_AFTER) await sleep(20);
            em.app.emulator.setFaults({ status503: 1, latencyMs: BASE_FAULTS.latencyMs });
          }
          const r = await running;
          if (outage) {
            em.app.emulator.setFaults(faults);
            expect(r.code).not.toBe(0);
          }
          writeOutput(`faults-seed${run.seed}-up${attempt}`, r);
          const d = diagnostics(r);
          ups.push({
            code: r.code,
            seconds: r.ms / 1000,
            errors: d.errors.slice(0, 4).map((e) => e.slice(0, 300)),
            adopted: d.adopted,
            resent: d.resent,
          });
          if (r.code === 0) break;
          // A failed up must say why: the resource that failed, and the service's answer or what
          // the provider found.
          expect(d.errors.length).toBeGreaterThan(0);
          expect(r.stdout + r.stderr).toMatch(/(EventSubscription|EventDestination) \((sub|dest)-\d+\):/);
          expect(d.errors.join("\n")).toMatch(/failed with (429|503)|nothing was created|may or may not/);
        }
        expect(ups.at(-1)!.code).toBe(0);
        em.app.emulator.setFaults({});

        const state = await stack.exportState();
        expectConverged(em, state, COUNTS);
        const figures = requestFigures(em.store.requests(), COUNTS.subscriptions + COUNTS.destinations);
        results.push({
          seed: run.seed,
          injected: faults,
          idempotencyKeysHonoured: run.idempotencyKeys,
          outage: run.outage
            ? `every request answered 503 after ${OUTAGE_AFTER} creates, until the first up ended`
            : undefined,
          outcome:
            ups.length === 1 ? "first up succeeded" : "first up failed with a clear error, second succeeded",
          ups,
          ...figures,
          final: {
            subscriptions: stateIds(state).subscriptions.length,
            destinations: stateIds(state).destinations.length,
          },
        });
      } finally {
        stack?.dispose();
        await em?.close();
      }
    },
    600_000,
  );
});
