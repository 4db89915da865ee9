/**
 * Upgrades: a stack deployed by an earlier release is taken over by today's code with no change.
 * For each release recorded under test/upgrade/<version>/ (test/upgrade/record.ts) and each door,
 * today's emulator is started on the service data that release left (same account, IDs, creation
 * times and secrets), the recorded state is imported into a fresh stack of the same program
 * (test/upgrade/program, unchanged), and with today's package and plugin:
 *
 * - `pulumi preview --expect-no-changes` plans nothing but `same` steps,
 * - `pulumi up --expect-no-changes` changes nothing,
 * - `pulumi refresh --expect-no-changes` finds no difference between the state and the service.
 *
 * The dynamic door's state runs the serialized providers of the release, which load today's
 * `pulumi-service/provider/impl/*` through the program folder's node_modules (the repository's own
 * workspace link); the native door's runs today's plugin (bin/, dist/) and SDK.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent, OpMap, Stack } from "@pulumi/pulumi/automation";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { freshBackend, localStack } from "../helpers/pulumi";
import {
  DOORS,
  loadRecording,
  RECORDING,
  recordedVersions,
  rewriteBaseUrl,
  writeServiceDatabase,
  type Door,
  type Recording,
} from "../helpers/upgrade";

jest.setTimeout(600_000);

const REPO = path.resolve(__dirname, "../..");
const PROGRAM = path.join(__dirname, "program");
const KINDS = ["EventDestination", "EventSubscription", "AbuseReport"];

/** A step of a deployment other than `same`: what the test reports when one shows up. */
interface Step {
  op: string;
  urn: string;
  diffs?: string[];
}

/**
 * Whether a planned step is allowed by an upgrade: none is, but for one. The native door's default
 * provider is a resource named for the plugin's version and download URL (`default_0_1_0`, then
 * `default_0_1_0_github_/api.github.com/pulumi-service` once the schema named a
 * pluginDownloadURL, `default_<version>…` after a release): when either changes the engine creates
 * the new default provider and deletes the old one, and the resources follow it with no diff of
 * their own. The engine's display hides both steps and `--expect-no-changes` accepts them; a
 * user upgrading sees nothing either.
 */
function allowed(step: Step): boolean {
  return (
    (step.op === "create" || step.op === "delete") && /::pulumi:providers:service::default_/.test(step.urn)
  );
}

/**
 * Runs one engine operation, collecting its steps other than `same` (and `read`s: refresh's
 * steps are `refresh`, checked by `--expect-no-changes`), and fails with them listed when the
 * engine refuses (`--expect-no-changes`) or any step is not allowed.
 */
async function noChanges(
  run: (onEvent: (e: EngineEvent) => void) => Promise<{ changeSummary?: OpMap; stdout?: string }>,
): Promise<OpMap> {
  const steps: Step[] = [];
  const onEvent = (e: EngineEvent) => {
    const m = e.resourcePreEvent?.metadata;
    if (m && m.op !== "same") steps.push({ op: m.op, urn: m.urn, diffs: m.diffs });
  };
  let summary: OpMap | undefined;
  try {
    summary = (await run(onEvent)).changeSummary;
  } catch (e) {
    throw new Error(
      `the engine found changes:\n${JSON.stringify(steps, null, 2)}\n${e instanceof Error ? e.message : String(e)}`,
    );
  }
  const refused = steps.filter((s) => s.op !== "refresh" && !allowed(s));
  expect(refused).toEqual([]);
  return summary ?? {};
}

describe.each(recordedVersions())("a stack deployed by %s", (version) => {
  let recording: Recording;
  let emulator: RunningEmulator;
  let work: string;

  beforeAll(async () => {
    recording = loadRecording(version);
    work = path.join(freshBackend(`upgrade-${version}`), "work");
    fs.mkdirSync(work);
    const data = path.join(work, "service.db");
    writeServiceDatabase(recording.service, data);
    emulator = await startEmulator({ data, apiKeys: [RECORDING.apiKey] });
  });

  afterAll(async () => {
    await emulator?.close();
    if (work) fs.rmSync(path.dirname(work), { recursive: true, force: true });
  });

  it("is served by today's emulator as it was recorded (same IDs, fields and URIs but the base URL)", async () => {
    const wire = rewriteBaseUrl(recording.service.wire, recording.service.recorded.baseUrl, emulator.url);
    for (const [collection, items] of Object.entries(wire)) {
      for (const item of items) {
        const res = await fetch(`${emulator.url}/${collection}/${String(item.id)}`, {
          headers: { authorization: `Bearer ${RECORDING.apiKey}`, "service-version": "2" },
        });
        expect(res.status).toBe(200);
        // Today's answer may carry fields added since; the recorded ones keep their values.
        expect(await res.json()).toMatchObject(item);
      }
    }
  });

  describe.each(DOORS)("through the %s door", (door: Door) => {
    let stack: Stack;
    let backend: string;
    /** The outputs of each resource (by URN, providers left out) just after the import. */
    let imported: Map<string, Record<string, unknown>>;

    /**
     * Each resource's outputs in the stack's state, secrets decrypted (`pulumi stack export
     * --show-secrets`: a secret stays marked as one, with its plaintext), by URN; the providers and
     * the dynamic door's serialized provider (`__provider`, rewritten by each operation) left out.
     */
    let outputsNow: () => Map<string, Record<string, unknown>>;

    beforeAll(async () => {
      // The program as recorded, in a folder below the repository so that its pulumi-service is
      // today's package (node_modules/pulumi-service, the workspace link), with the plugin path
      // made absolute (today's bin/).
      const dir = path.join(work, door);
      fs.mkdirSync(dir);
      fs.copyFileSync(path.join(PROGRAM, "index.ts"), path.join(dir, "index.ts"));
      const project = fs
        .readFileSync(path.join(PROGRAM, "Pulumi.yaml"), "utf8")
        .replace(/path: \.\.\/\.\.\/\.\.\/bin/, `path: ${path.join(REPO, "bin")}`);
      expect(project).toContain(`path: ${path.join(REPO, "bin")}`);
      fs.writeFileSync(path.join(dir, "Pulumi.yaml"), project);
      // The stack's config as recorded (its encryption salt and secret config), and its state:
      // both name the recording's emulator (`service:baseUrl`; the `uri` outputs, the dynamic
      // door's provider config, the native door's default provider inputs), rewritten here to
      // the test's emulator. A user upgrading keeps the same service and rewrites nothing.
      const { baseUrl } = recording.service.recorded;
      fs.writeFileSync(
        path.join(dir, `Pulumi.${door}.yaml`),
        recording.configs[door].split(baseUrl).join(emulator.url),
      );
      backend = freshBackend(`upgrade-${version}-${door}`);
      let env: Record<string, string>;
      ({ stack, env } = await localStack(dir, door, backend, {
        PULUMI_CONFIG_PASSPHRASE: RECORDING.passphrase,
      }));
      await stack.importStack(rewriteBaseUrl(recording.states[door], baseUrl, emulator.url));
      outputsNow = () => {
        const text = execFileSync("pulumi", ["stack", "export", "--show-secrets", "--stack", door], {
          cwd: dir,
          env,
          encoding: "utf8",
        });
        const resources = (
          JSON.parse(text) as {
            deployment: { resources: { urn: string; type: string; outputs?: Record<string, unknown> }[] };
          }
        ).deployment.resources;
        return new Map(
          resources
            .filter((r) => !r.type.startsWith("pulumi:providers:"))
            .map((r) => {
              const { __provider: _code, ...outputs } = r.outputs ?? {};
              return [r.urn, outputs];
            }),
        );
      };
      imported = outputsNow();
    });

    afterAll(async () => {
      // Nothing to destroy: the emulator's data goes with the test's folder, the stack with its backend.
      if (backend) fs.rmSync(backend, { force: true, recursive: true });
    });

    it("holds every resource of the recording", async () => {
      const exported = await stack.exportStack();
      const kinds = (exported.deployment.resources as { type: string }[]).map((r) => r.type.split(":").pop());
      for (const kind of KINDS) expect(kinds).toContain(kind);
    });

    it("previews no change and no replacement", async () => {
      const summary = await noChanges((onEvent) =>
        stack.preview({ expectNoChanges: true, diff: true, onEvent }),
      );
      // Every resource of the state but the providers (the summary leaves them out).
      const resources = recording.states[door].deployment.resources as { type: string }[];
      expect(summary.same).toBe(resources.filter((r) => !r.type.startsWith("pulumi:providers:")).length);
    });

    it("up changes nothing", async () => {
      const result = await noChanges((onEvent) =>
        stack
          .up({ expectNoChanges: true, onEvent })
          .then((r) => ({ changeSummary: r.summary.resourceChanges })),
      );
      expect(Object.keys(result).filter((op) => op !== "same")).toEqual([]);
    });

    it("refresh finds no difference, and leaves every recorded output as it was", async () => {
      await noChanges((onEvent) =>
        stack
          .refresh({ expectNoChanges: true, onEvent })
          .then((r) => ({ changeSummary: r.summary.resourceChanges })),
      );
      // The engine's refresh diff is the provider's (inputs and the managed fields): an output
      // renamed or reshaped by today's read passes it, so compare the outputs themselves. Outputs
      // added since the recording are allowed; a program reading a recorded one must still find it.
      const now = outputsNow();
      expect([...now.keys()].sort()).toEqual([...imported.keys()].sort());
      // By URN, so that a failure names the resource.
      expect(Object.fromEntries(now)).toMatchObject(Object.fromEntries(imported));
    });
  });
});
