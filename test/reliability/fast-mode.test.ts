/**
 * Fast mode: `pulumi up` with the engine's `PULUMI_EXPERIMENTAL=true PULUMI_SKIP_CHECKPOINTS=true`
 * (no checkpoint after each step, only the final state), killed with SIGKILL at a random point,
 * then recovered. 300 event subscriptions and 5 event destinations (the reliability program,
 * test/fixtures/reliability), a fresh emulator (20 ms of latency per request, so that creates are
 * in flight at the kill) and stack per seed.
 *
 * The kill leaves nothing of the run in the state: no resource, no pending operation (asserted),
 * while the service holds every create that was acknowledged, and more (the provider process
 * outlives the CLI). Recovery, as docs/reliability.md gives it:
 *
 * 1. `pulumi cancel` — the killed run left its lock;
 * 2. `pulumi stack export --show-secrets`, `service-recover --since <start of the killed run>
 *    --found found.json` (nothing pending to settle; it lists what the service made since then
 *    that the stack holds nowhere, into found.json), `pulumi stack import`;
 * 3. `pulumi up --refresh` with `SERVICE_ADOPT_FROM=found.json`, in fast mode too: each create
 *    first adopts an unclaimed resource of that file with exactly its values.
 *
 * The result must be exactly the declared resources, each once, all in the state (no orphan,
 * no duplicate), every resource the killed run made adopted (none made again), and a following
 * preview must show no change. Figures go to `.pulumi-state/reliability-figures/fast-mode.json`.
 *
 * The short variant runs 2 seeds; `RELIABILITY_LONG=1` runs 8.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { seededRandom } from "../../packages/emulator/faults";
import type { ExportedStack } from "../../gitops/recovery";
import {
  cancelAndRecover,
  emulatorContents,
  expectConverged,
  finalUp,
  killUpThenPlugins,
  LONG,
  recoveryAdoptions,
  SKIP_CHECKPOINTS_ENV,
  stateIds,
  UP,
  withReliabilityStack,
  writeRunFigures,
} from "../helpers/reliability";

/** The declared resources: 305, plus the stack and the default provider. */
const COUNTS = { destinations: 5, subscriptions: 300 };
const DECLARED = COUNTS.destinations + COUNTS.subscriptions;
const SEEDS = LONG ? [1, 2, 3, 4, 5, 6, 7, 8] : [1, 2];
const results: Record<string, unknown>[] = [];

describe("pulumi up with skipped checkpoints, killed with SIGKILL, then recovered (real engine, real emulator)", () => {
  afterAll(() => {
    const file = writeRunFigures("fast-mode", COUNTS, results);
    console.log(`reliability figures: ${file}\n${JSON.stringify(results)}`);
  });

  it.each(SEEDS)(
    "seed %i: killed at a random point; cancel, service-recover --since, up --refresh with SERVICE_ADOPT_FROM converge",
    async (seed) => {
      const random = seededRandom(seed);
      // Killed after 10–290 acknowledged creates (drawn from the seed); the plugins at once (odd
      // seeds) or 1.5 s later (even seeds: the provider finishes what was in flight).
      const killAfter = 10 + Math.floor(random() * 281);
      const graceMs = seed % 2 === 0 ? 1500 : 0;
      await withReliabilityStack(`fast-${seed}`, { faults: { latencyMs: 20, seed } }, COUNTS, async (run) => {
        const { em, stack, t, timed } = run;

        // 1. The fast up, killed. The start is taken before the CLI starts, as a pipeline would.
        const since = new Date().toISOString();
        const killed = await killUpThenPlugins(run, `fast-${seed}`, {
          killAfter,
          graceMs,
          env: SKIP_CHECKPOINTS_ENV,
        });
        expect(killed.ackedAtKill).toBeGreaterThanOrEqual(killAfter);

        // 2. What the kill left: nothing of the run in the state, its creates on the service.
        const afterKill = await stack.exportState();
        const inState = stateIds(afterKill);
        expect(inState).toEqual({ subscriptions: [], destinations: [], pending: 0 });
        const live = emulatorContents(em);
        const onService = live.subscriptions.length + live.destinations.length;
        expect(onService).toBeGreaterThanOrEqual(killed.ackedAtKill);
        expect(onService).toBeLessThan(DECLARED);

        // 3. Recovery: the lock, then service-recover, then up --refresh adopting.
        const foundFile = path.join(stack.backend, "found.json");
        const { recover, fixed, importFixed } = await cancelAndRecover(run, `fast-${seed}`, [
          "--since",
          since,
          "--found",
          foundFile,
        ]);
        const found = recover.stderr.split("\n").filter((l) => l.startsWith("found "));
        // Everything the killed run made, and nothing else, is listed.
        expect(found.map((l) => l.split(/\s+/)[2]).sort()).toEqual(
          [...live.subscriptions, ...live.destinations].map((r) => r.id).sort(),
        );
        expect(recover.stderr).toContain(`SERVICE_ADOPT_FROM=${foundFile} pulumi up --refresh`);
        const foundJson = JSON.parse(readFileSync(foundFile, "utf8")) as { resources: { id: string }[] };
        expect(foundJson.resources.map((r) => r.id).sort()).toEqual(
          found.map((l) => l.split(/\s+/)[2]).sort(),
        );
        const written = JSON.parse(readFileSync(fixed, "utf8")) as ExportedStack;
        expect(stateIds(written)).toEqual(inState);
        await importFixed();

        const { up, createdByFinalUp } = await finalUp(run, `fast-${seed}`, "up --refresh (adopting)", () =>
          stack.run([...UP, "--refresh"], {
            env: { ...SKIP_CHECKPOINTS_ENV, SERVICE_ADOPT_FROM: foundFile },
          }),
        );
        expect({ code: up.code, tail: up.code === 0 ? "" : up.stdout.slice(-3000) + up.stderr }).toEqual({
          code: 0,
          tail: "",
        });
        const adopted = recoveryAdoptions(up);

        // 4. Exactly the declared resources, all in the state; every one the killed run made
        //    adopted, none made twice; nothing left to do.
        const final = await stack.exportState();
        expectConverged(em, final, COUNTS);
        expect(adopted.sort()).toEqual([...live.subscriptions, ...live.destinations].map((r) => r.id).sort());
        expect(createdByFinalUp).toBe(DECLARED - onService);
        await timed("preview --expect-no-changes", () =>
          stack.ok(["preview", "--expect-no-changes", "--non-interactive"]),
        );
        const ids = stateIds(final);
        const liveAfter = emulatorContents(em);
        const allLive = [...liveAfter.subscriptions, ...liveAfter.destinations];
        results.push({
          seed,
          killAfterCreates: killAfter,
          pluginsKilledAfterMs: graceMs,
          acknowledgedAtKill: killed.ackedAtKill,
          leftoverEngineProcessesKilled: killed.leftovers.length,
          afterKill: { inState: 0, pendingOperations: 0, onService, foundByServiceRecover: found.length },
          recovery: { adopted: adopted.length, createdByFinalUp },
          final: {
            inState: ids.subscriptions.length + ids.destinations.length,
            onService: allLive.length,
            duplicates: allLive.length - new Set(allLive.map((r) => r.description)).size,
            orphans: allLive.filter((r) => ![...ids.subscriptions, ...ids.destinations].includes(r.id))
              .length,
          },
          seconds: t,
        });
      });
    },
    300_000,
  );
});
