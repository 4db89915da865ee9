/**
 * Resources the service cannot tell apart: a stack declaring several event destinations with
 * identical values, and several event subscriptions with identical values, deployed by the real
 * engine through connection resets (before the handler: nothing made; after it: made, answer
 * lost) against a service that ignores `Idempotency-Key`. A lost create's lookup must never
 * adopt a sibling's resource: at the end the service holds exactly as many resources as declared,
 * each ID in the state once.
 */
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { createStack, diagnostics, emulatorContents, stateIds, type TestStack } from "../helpers/reliability";

const COUNTS = { destinations: 3, subscriptions: 5 };
/** Sequential, so that each create's lookup sees what its siblings made before it. */
const UP = ["up", "--yes", "--skip-preview", "--non-interactive", "--parallel", "1"];
/** `up` runs allowed: a run may fail with a clear error (two lost creates in a row); the next goes on. */
const MAX_UPS = 6;

describe("identical resources through resets, keys ignored (real engine, real emulator)", () => {
  let em: RunningEmulator;
  let stack: TestStack | undefined;

  beforeAll(async () => {
    em = await startEmulator({ idempotencyKeys: false });
  });
  afterAll(async () => {
    stack?.dispose();
    await em.close();
  });

  it(
    "as many distinct IDs on the service as declared, none shared in the state",
    async () => {
      stack = await createStack("identical", em, COUNTS);
      await stack.ok(["config", "set", "identical", "true"]);
      em.app.emulator.setFaults({ reset: 0.2, resetAfter: 0.25, seed: 5 });
      const outcomes: string[] = [];
      let adopted = 0;
      for (let i = 0; i < MAX_UPS; i++) {
        const r = await stack.run(UP);
        const d = diagnostics(r);
        adopted += d.adopted;
        outcomes.push(r.code === 0 ? "succeeded" : `failed: ${d.errors.join(" | ").slice(0, 300)}`);
        if (r.code === 0) break;
        // Each failure is a clear error of a lost create, never something else.
        expect(d.errors.join("\n")).toMatch(/the create failed/);
      }
      em.app.emulator.setFaults({});
      const faults = em.store
        .requests()
        .filter((q) => q.fault !== null)
        .map((q) => q.fault);
      console.log(
        `identical resources: ${outcomes.length} up run(s) [${outcomes.join("; ")}]; ` +
          `faults hit ${faults.length} requests (${faults.filter((f) => f === "reset").length} reset, ` +
          `${faults.filter((f) => f === "reset-after").length} reset-after); ${adopted} lost create(s) resolved by adoption`,
      );
      expect(outcomes.at(-1)).toBe("succeeded");
      // The scenario is only meaningful if lost creates happened and some were adopted.
      expect(faults.filter((f) => f === "reset-after").length).toBeGreaterThan(0);
      expect(adopted).toBeGreaterThan(0);

      const ids = stateIds(await stack.exportState());
      const live = emulatorContents(em);
      expect(ids.pending).toBe(0);
      expect(new Set(ids.destinations).size).toBe(COUNTS.destinations);
      expect(new Set(ids.subscriptions).size).toBe(COUNTS.subscriptions);
      expect(live.destinations.map((x) => x.id).sort()).toEqual(ids.destinations);
      expect(live.subscriptions.map((x) => x.id).sort()).toEqual(ids.subscriptions);
    },
    15 * 60_000,
  );
});
