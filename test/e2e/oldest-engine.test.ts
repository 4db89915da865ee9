/**
 * The oldest supported pairing, smoke-tested through both doors: the Pulumi engine
 * OLDEST_PULUMI_VERSION (built from tools/pulumi-oldest) running the program of
 * test/fixtures/native with `@pulumi/pulumi` of that same release (the floor of the packages'
 * peer range, which the lock file holds), against the real emulator. The rest of the suite runs
 * the newest engine, PULUMI_VERSION. Each door: `up` from empty, a preview without changes, an
 * update in place, a refresh of an out-of-band edit, and `destroy`.
 */
import { execFileSync } from "child_process";
import * as path from "path";
import { NotFoundError } from "../../client";
import { OLDEST_PULUMI_VERSION, PULUMI_VERSION } from "../../scripts/pulumi-env";
import {
  DOORS_PROGRAM,
  expectNoChangesPreview,
  expectUpChanges,
  startEngineStack,
  type EngineStack,
} from "../helpers/engine-stack";
import { readStoredState, requireOldestPulumi } from "../helpers/pulumi";
import { editMultiAndRefresh, expectMultiDeployed, streamAndDatadog } from "../helpers/stream-and-datadog";
import type { Spec } from "../fixtures/native";

const ENGINE_TIMEOUT = 600_000;
const AWS_SECRET = "aws-oldest-secret-access-key-6c1f02";
const DD_KEY = "dd-oldest-secret-key-93be4d";

describe(`the oldest supported pairing: engine and SDK v${OLDEST_PULUMI_VERSION}`, () => {
  it("the engine reports the oldest release, and the installed SDK is of the same release", () => {
    const out = execFileSync(path.join(requireOldestPulumi(), "pulumi"), ["version"], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "1" },
      encoding: "utf8",
    });
    expect(out.trim()).toBe(`v${OLDEST_PULUMI_VERSION}`);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect(require("@pulumi/pulumi/package.json").version).toBe(OLDEST_PULUMI_VERSION);
    // The pairing is not the suite's own: the rest runs a newer engine.
    expect(PULUMI_VERSION).not.toBe(OLDEST_PULUMI_VERSION);
  });

  describe.each(["native", "dynamic"] as const)("through the %s door", (door) => {
    let e2e: EngineStack;
    const { destinations, multi } = streamAndDatadog({
      awsAccessKeyId: "AKIAOLDESTEXAMPLE",
      ddApiKey: "secret:ddKey",
      description: "first",
    });
    const spec: Spec = {
      destinations,
      subscriptions: [multi],
      reports: [{ name: "report", args: { urls: ["https://phish.example.com/oldest"] } }],
    };

    beforeAll(async () => {
      e2e = await startEngineStack({
        workDir: DOORS_PROGRAM,
        stackName: `oldest-${door}`,
        backendName: `e2e-oldest-${door}`,
        cliDir: requireOldestPulumi(),
      });
      await e2e.stack.setConfig("door", { value: door });
      await e2e.stack.setConfig("awsSecret", { value: AWS_SECRET, secret: true });
      await e2e.stack.setConfig("ddKey", { value: DD_KEY, secret: true });
      await e2e.stack.setConfig("spec", { value: JSON.stringify(spec) });
    }, ENGINE_TIMEOUT);

    afterAll(async () => {
      await e2e?.close();
    });

    it(
      "up deploys from empty on the oldest engine; a preview after it has no changes",
      async () => {
        // The stack's CLI is the oldest one: first on the PATH its engine runs with.
        expect(execFileSync("pulumi", ["version"], { env: e2e.env, encoding: "utf8" }).trim()).toBe(
          `v${OLDEST_PULUMI_VERSION}`,
        );
        expect(e2e.stack.workspace.pulumiVersion).toBe(OLDEST_PULUMI_VERSION);
        await expectUpChanges(e2e, { create: 5 });
        await expectMultiDeployed(e2e, "first");
        await expectNoChangesPreview(e2e, 5);
        const checkpoint = readStoredState(e2e.backend);
        for (const secret of [AWS_SECRET, DD_KEY]) expect(checkpoint).not.toContain(secret);
      },
      ENGINE_TIMEOUT,
    );

    it(
      "a new description updates in place, keeping the ID; refresh takes an out-of-band edit",
      async () => {
        const before = (await e2e.outputs()).subscriptionIds.multi;
        spec.subscriptions[0].args.description = "second";
        await e2e.stack.setConfig("spec", { value: JSON.stringify(spec) });
        await expectUpChanges(e2e, { update: 1, same: 4 });
        await expectMultiDeployed(e2e, "second");
        expect((await e2e.outputs()).subscriptionIds.multi).toBe(before);
        await editMultiAndRefresh(e2e);
      },
      ENGINE_TIMEOUT,
    );

    it(
      "destroy deletes the destinations and the subscription from the service",
      async () => {
        const ids = await e2e.outputs();
        const destroy = await e2e.stack.destroy();
        expect(destroy.summary.resourceChanges).toEqual({ delete: 5 });
        for (const id of Object.values(ids.destinationIds))
          await expect(e2e.client.eventDestinations.get(id)).rejects.toBeInstanceOf(NotFoundError);
        await expect(e2e.client.eventSubscriptions.get(ids.subscriptionIds.multi)).rejects.toBeInstanceOf(
          NotFoundError,
        );
        // A report cannot be deleted: it leaves the stack and stays on the service.
        expect((await e2e.client.abuseReports.get(ids.reportIds.report)).id).toBe(ids.reportIds.report);
      },
      ENGINE_TIMEOUT,
    );
  });
});
