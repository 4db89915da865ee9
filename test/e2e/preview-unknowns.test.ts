/**
 * A preview where every input of every resource (whole lists and objects, list elements, nested
 * fields) comes from another resource's output that is not known yet: the real engine hands the
 * providers' `check` (for creates) and `diff` (for resources already deployed) unknown values,
 * and the preview must succeed and show what will change. Program: test/fixtures/unknowns.
 */
import path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { freshBackend, localStack } from "../helpers/pulumi";

const program = path.join(__dirname, "..", "fixtures", "unknowns");
const ENGINE_TIMEOUT = 5 * 60_000;

describe("preview with inputs from outputs not known yet (real engine, real emulator)", () => {
  let emulator: RunningEmulator;
  let stack: Stack;

  beforeAll(async () => {
    emulator = await startEmulator({});
    ({ stack } = await localStack(program, "unknowns", freshBackend("e2e-unknowns")));
    await stack.setConfig("service:baseUrl", { value: emulator.url });
    await stack.setConfig("service:apiKey", { value: emulator.apiKeys[0], secret: true });
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    await stack?.destroy().catch(() => undefined);
    await stack?.workspace.removeStack("unknowns").catch(() => undefined);
    await emulator?.close();
  });

  it(
    "a preview of creates and of updates to deployed resources succeeds and shows the pending changes",
    async () => {
      // Creates with every input unknown: check sees unknowns (the preview of a fresh stack).
      await stack.setConfig("fromOutputs", { value: "true" });
      const fresh = await stack.preview();
      expect(fresh.changeSummary).toEqual({ create: 8 });

      // Deployed with plain values, then previewed with every input unknown: diff sees them.
      await stack.removeConfig("fromOutputs");
      const up = await stack.up();
      expect(up.summary.result).toBe("succeeded");
      expect(up.summary.resourceChanges).toEqual({ create: 7 });
      await stack.setConfig("fromOutputs", { value: "true" });
      const preview = await stack.preview();
      // The new source destination is created; each resource with an unknown input shows a
      // pending change: updates in place, and replacements for the abuse reports.
      expect(preview.changeSummary).toEqual({ create: 1, update: 4, replace: 2, same: 1 });

      // Once the values are known, they equal the deployed ones: the up changes nothing else.
      const after = await stack.up();
      expect(after.summary.resourceChanges).toEqual({ create: 1, same: 7 });
    },
    ENGINE_TIMEOUT,
  );
});
