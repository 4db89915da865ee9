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
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { seededRandom } from "../../packages/emulator/faults";
import type { ExportedStack } from "../../gitops/recovery";
import {
  createStack,
  emulatorContents,
  expectConverged,
  killEngineProcesses,
  killUpAfterCreates,
  LONG,
  recoveryAdoptions,
  runNode,
  SKIP_CHECKPOINTS_ENV,
  stateIds,
  stepTimer,
  UP,
  writeFigures,
  writeOutput,
  type TestStack,
} from "../helpers/reliability";

/** The declared resources: 305, plus the stack and the default provider. */
const COUNTS = { destinations: 5, subscriptions: 300 };
const DECLARED = COUNTS.destinations + COUNTS.subscriptions;
const SEEDS = LONG ? [1, 2, 3, 4, 5, 6, 7, 8] : [1, 2];
const RECOVER_CLI = path.join(REPO_ROOT, "dist", "gitops", "recover-cli.js");
const results: Record<string, unknown>[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("pulumi up with skipped checkpoints, killed with SIGKILL, then recovered (real engine, real emulator)", () => {
  afterAll(() => {
    const file = writeFigures("fast-mode", {
      variant: LONG ? "long" : "short",
      counts: COUNTS,
      runs: results,
    });
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
      let em: RunningEmulator | undefined;
      let stack: TestStack | undefined;
      const { t, timed } = stepTimer();
      try {
        em = await startEmulator({ faults: { latencyMs: 20, seed } });
        stack = await createStack(`fast-${seed}`, em, COUNTS);

        // 1. The fast up, killed. The start is taken before the CLI starts, as a pipeline would.
        const since = new Date().toISOString();
        const killed = await timed("up until killed", () =>
          killUpAfterCreates(stack!, em!, killAfter, SKIP_CHECKPOINTS_ENV),
        );
        writeOutput(`fast-${seed}-killed-up`, killed.result);
        expect(killed.result.signal).toBe("SIGKILL");
        expect(killed.ackedAtKill).toBeGreaterThanOrEqual(killAfter);
        if (graceMs > 0) await sleep(graceMs);
        const leftovers = killEngineProcesses(stack.backend);
        await sleep(500); // requests the service had already received finish

        // 2. What the kill left: nothing of the run in the state, its creates on the service.
        const afterKill = await stack.exportState();
        const inState = stateIds(afterKill);
        expect(inState).toEqual({ subscriptions: [], destinations: [], pending: 0 });
        const live = emulatorContents(em);
        const onService = live.subscriptions.length + live.destinations.length;
        expect(onService).toBeGreaterThanOrEqual(killed.ackedAtKill);
        expect(onService).toBeLessThan(DECLARED);

        // 3. Recovery: the lock, then service-recover, then up --refresh adopting.
        const cancel = await timed("cancel", () => stack!.run(["cancel", "--yes"]));
        expect(`${cancel.stdout}${cancel.stderr}`).toMatch(/canceled|cancelled/i);
        const exported = path.join(stack.backend, "exported.json");
        const fixed = path.join(stack.backend, "fixed.json");
        const foundFile = path.join(stack.backend, "found.json");
        await stack.ok(["stack", "export", "--show-secrets", "--file", exported]);
        const recover = await timed("service-recover", () =>
          runNode(RECOVER_CLI, [exported, fixed, "--since", since, "--found", foundFile], {
            ...process.env,
            SERVICE_API_KEY: em!.apiKeys[0],
            SERVICE_BASE_URL: em!.url,
          } as Record<string, string>),
        );
        writeOutput(`fast-${seed}-service-recover`, recover);
        expect(recover.code).toBe(0);
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
        await timed("stack import", () => stack!.ok(["stack", "import", "--file", fixed]));
        rmSync(exported, { force: true });
        rmSync(fixed, { force: true });

        const beforeFinalUp = em.store.requests().at(-1)?.seq ?? 0;
        const up = await timed("up --refresh (adopting)", () =>
          stack!.run([...UP, "--refresh"], {
            env: { ...SKIP_CHECKPOINTS_ENV, SERVICE_ADOPT_FROM: foundFile },
          }),
        );
        writeOutput(`fast-${seed}-up`, up);
        expect({ code: up.code, tail: up.code === 0 ? "" : up.stdout.slice(-3000) + up.stderr }).toEqual({
          code: 0,
          tail: "",
        });
        const createdByFinalUp = em.store
          .requests(beforeFinalUp)
          .filter((r) => r.method === "POST" && r.status === 201).length;
        const adopted = recoveryAdoptions(up);

        // 4. Exactly the declared resources, all in the state; every one the killed run made
        //    adopted, none made twice; nothing left to do.
        const final = await stack.exportState();
        expectConverged(em, final, COUNTS);
        expect(adopted.sort()).toEqual([...live.subscriptions, ...live.destinations].map((r) => r.id).sort());
        expect(createdByFinalUp).toBe(DECLARED - onService);
        await timed("preview --expect-no-changes", () =>
          stack!.ok(["preview", "--expect-no-changes", "--non-interactive"]),
        );
        const ids = stateIds(final);
        const liveAfter = emulatorContents(em);
        const allLive = [...liveAfter.subscriptions, ...liveAfter.destinations];
        results.push({
          seed,
          killAfterCreates: killAfter,
          pluginsKilledAfterMs: graceMs,
          acknowledgedAtKill: killed.ackedAtKill,
          leftoverEngineProcessesKilled: leftovers.length,
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
      } finally {
        stack?.dispose();
        await em?.close();
      }
    },
    300_000,
  );
});
