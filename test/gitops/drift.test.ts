/**
 * Drift analysis of engine events, secret masking and redaction, and the report table (gitops/drift.ts, gitops/format.ts), without an engine; the reads announced to the providers; runDriftReport on a stack of a local backend (selected and its imported state exported by the Pulumi CLI), the engine's refresh and preview stubbed: the report, its progress, the reads announced during the refresh only, the errors of a failed step.
 */
import {
  analyzePreviewEvents,
  analyzeRefreshEvents,
  diffProperties,
  expectedReads,
  maskSecrets,
  redact,
  type DriftReport,
} from "../../gitops/drift";
import { formatReport } from "../../gitops/format";
import { MASKED_SECRET as SECRET, outputsEvent, preEvent } from "../helpers/gitops";

const SUB = "pulumi-nodejs:dynamic/service:EventSubscription";
const DEST = "pulumi-nodejs:dynamic/service:EventDestination";

describe("drift analysis of refresh events", () => {
  it("reports changed properties (lists in any order), deletions, and ignores same results and providers", () => {
    const old = { description: "a", destinationIds: ["ed_1", "ed_2"], __provider: "x", uri: "u" };
    const events = [
      outputsEvent("update", SUB, "multi", old, {
        ...old,
        description: "b",
        destinationIds: ["ed_2", "ed_1"],
      }),
      outputsEvent("delete", SUB, "gone", old, undefined),
      outputsEvent("same", SUB, "fine", old, { ...old, destinationIds: ["ed_2", "ed_1"] }),
      outputsEvent("update", "pulumi:providers:pulumi-nodejs", "default", { k: 1 }, { k: 2 }),
    ];
    const { checked, resources } = analyzeRefreshEvents(events);
    expect(checked).toBe(3);
    expect(resources).toEqual([
      {
        name: "multi",
        type: "EventSubscription",
        typeToken: SUB,
        urn: `urn:pulumi:dev::proj::${SUB}::multi`,
        id: "id-multi",
        status: "changed",
        properties: [{ property: "description", before: "a", after: "b", secret: false }],
      },
      expect.objectContaining({ name: "gone", status: "deleted", properties: [] }),
    ]);
  });

  it("a change the provider sees but no visible value explains is reported on the secret properties", () => {
    const old = { description: "d", target: SECRET };
    const { resources } = analyzeRefreshEvents([outputsEvent("update", DEST, "dest", old, { ...old })]);
    expect(resources[0].properties).toEqual([
      { property: "target", before: "[secret]", after: "[secret]", secret: true },
    ]);
  });

  it("masks nested secrets and never returns their ciphertext", () => {
    expect(maskSecrets({ a: [SECRET, 1] })).toEqual({ value: { a: ["[secret]", 1] }, secret: true });
    const diff = diffProperties({ x: { inner: SECRET, n: 1 } }, { x: { inner: SECRET, n: 2 } });
    expect(diff).toEqual([
      {
        property: "x",
        before: { inner: "[secret]", n: 1 },
        after: { inner: "[secret]", n: 2 },
        secret: true,
      },
    ]);
  });

  it("pending changes merge the steps of a replacement and leave out unchanged resources", () => {
    const pre = (
      op: string,
      name: string,
      oldIn?: Record<string, unknown>,
      newIn?: Record<string, unknown>,
    ) => preEvent(op, SUB, name, oldIn, newIn);
    const changes = analyzePreviewEvents([
      pre("same", "a"),
      pre("update", "b", { description: "x", target: SECRET }, { description: "y", target: SECRET }),
      pre("create-replacement", "c", { urls: ["1"] }, { urls: ["2"] }),
      pre("replace", "c", { urls: ["1"] }, { urls: ["2"] }),
      pre("delete-replaced", "c"),
      pre("create", "d"),
    ]);
    expect(changes.map((c) => [c.name, c.op, c.properties])).toEqual([
      ["b", "update", ["description"]],
      ["c", "replace", ["urls"]],
      ["d", "create", []],
    ]);
  });

  it("redact removes known secrets and bearer tokens", () => {
    expect(redact("key sk_abc123 and Bearer tok_zz9 here", ["sk_abc123"])).toBe(
      "key [redacted] and Bearer [redacted] here",
    );
  });

  it("the table shows drift and pending changes apart", () => {
    const report: DriftReport = {
      stack: "dev",
      workDir: "/p",
      drift: true,
      checkedResources: 2,
      resources: [
        {
          name: "multi",
          type: "EventSubscription",
          typeToken: SUB,
          urn: "u",
          id: "esb_1",
          status: "changed",
          properties: [{ property: "description", before: "a", after: "b", secret: false }],
        },
        {
          name: "gone",
          type: "EventSubscription",
          typeToken: SUB,
          urn: "u2",
          id: "esb_2",
          status: "deleted",
          properties: [],
        },
      ],
      ignored: [],
      pendingChanges: {
        present: true,
        summary: { update: 1 },
        resources: [
          { name: "dest", type: "EventDestination", urn: "u3", op: "update", properties: ["metadata"] },
        ],
      },
      exitCode: 2,
    };
    const text = formatReport(report);
    expect(text).toMatch(/multi\s+EventSubscription\s+esb_1\s+changed\s+description\s+"a"\s+"b"/);
    expect(text).toMatch(/gone\s+EventSubscription\s+esb_2\s+deleted/);
    expect(text).toMatch(
      /PROGRAM CHANGES NOT YET DEPLOYED[^\n]*\n[^\n]*\n\s+update\s+dest\s+EventDestination\s+metadata/,
    );
    expect(text).toMatch(/exit code 2/);
  });
});

describe("the reads announced to the providers before the refresh", () => {
  it("counts the event subscriptions and destinations of the state by ID prefix, through either door", () => {
    const deployment = {
      resources: [
        { type: "pulumi:pulumi:Stack", custom: false, urn: "s" },
        { type: "pulumi:providers:service", custom: true, id: "5f1c0d8e-provider" },
        { type: "pulumi:providers:pulumi-nodejs", custom: true, id: "esb_looks_like_one" },
        { type: "service:index:EventDestination", custom: true, id: `ed_${"A".repeat(27)}` },
        { type: SUB, custom: true, id: `esb_${"A".repeat(27)}` },
        { type: "service:index:EventSubscription", custom: true, id: `esb_${"B".repeat(27)}` },
        { type: SUB, custom: true, id: "pending-create-0f1e2d3c" },
        { type: "service:index:AbuseReport", custom: true, id: `abrp_${"C".repeat(27)}` },
      ],
    };
    expect(expectedReads(deployment)).toEqual({ esb_: 2, ed_: 1 });
    expect(expectedReads({})).toEqual({});
    expect(expectedReads(undefined)).toEqual({});
  });
});

describe("the reads announced: what is not read", () => {
  it("leaves out non-custom resources, resources without a string ID, and empty entries", () => {
    const deployment = {
      resources: [
        null,
        { type: "my:index:Component", custom: false, id: `esb_${"D".repeat(27)}` },
        { type: SUB, custom: true },
        { type: SUB, custom: true, id: 42 },
        { type: DEST, custom: true, id: `ed_${"E".repeat(27)}` },
      ],
    };
    expect(expectedReads(deployment)).toEqual({ ed_: 1 });
  });
});

// Imported here rather than at the top so that the tests above keep their place in the file
// (Stryker's incremental mode re-runs the mutants of a test that moved).
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Stack, type EngineEvent, type PreviewResult, type PulumiCommand } from "@pulumi/pulumi/automation";
import { DriftError, runDriftReport, type DriftPhase } from "../../gitops/drift";
import { EXPECTED_READS_ENV } from "../../provider/impl/reads/listReads";
import { engineEnv, freshBackend, pulumiCommand, requirePulumi } from "../helpers/pulumi";
import { useTempDir } from "../helpers/temp-dir";

describe("runDriftReport, the engine's operations stubbed", () => {
  const tmp = useTempDir("drift-report-");
  const STACK_URN = "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev";
  const PROVIDER = "urn:pulumi:dev::proj::pulumi:providers:pulumi-nodejs::default";
  const urn = (type: string, name: string) => `urn:pulumi:dev::proj::${type}::${name}`;
  const resource = (type: string, name: string, id: string, extra: Record<string, unknown> = {}) => ({
    urn: urn(type, name),
    custom: true,
    id,
    type,
    parent: STACK_URN,
    provider: `${PROVIDER}::p1`,
    inputs: {},
    outputs: {},
    ...extra,
  });
  let project: string;
  let opts: { stack: string; cwd: string; env: Record<string, string>; pulumiCommand: PulumiCommand };

  beforeAll(async () => {
    const env = engineEnv(freshBackend("drift-report"));
    const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
    project = path.join(tmp(), "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: proj\nruntime: yaml\n");
    execFileSync(pulumi, ["stack", "init", "dev"], { cwd: project, env, stdio: "pipe" });
    const state = JSON.parse(execFileSync(pulumi, ["stack", "export"], { cwd: project, env }).toString()) as {
      deployment: Record<string, unknown>;
    };
    state.deployment.resources = [
      { urn: STACK_URN, custom: false, type: "pulumi:pulumi:Stack" },
      { urn: PROVIDER, custom: true, id: "p1", type: "pulumi:providers:pulumi-nodejs", parent: STACK_URN },
      resource(SUB, "sub", `esb_${"A".repeat(27)}`, { ignoreChanges: ["description"] }),
      resource(SUB, "gone", `esb_${"B".repeat(27)}`),
      resource(DEST, "dest", `ed_${"C".repeat(27)}`),
    ];
    const file = path.join(tmp(), "state.json");
    fs.writeFileSync(file, JSON.stringify(state));
    execFileSync(pulumi, ["stack", "import", "--file", file], { cwd: project, env, stdio: "pipe" });
    opts = { stack: "dev", cwd: project, env, pulumiCommand: await pulumiCommand() };
  }, 60_000);

  /** What the stubbed operations saw: the reads announced, and the refresh's `runProgram`. */
  interface Seen {
    op: string;
    reads: string | undefined;
    runProgram?: boolean;
  }

  /**
   * Stubs the refresh and the preview of every stack: each sends `events` and then resolves with
   * `summary`, or rejects with `error`. Returns what they saw and the stack they ran on.
   */
  function stubEngine(
    refresh: { events: EngineEvent[]; error?: Error },
    preview: { events: EngineEvent[]; summary?: Record<string, number>; error?: Error },
  ): { seen: Seen[]; stacks: Stack[] } {
    const seen: Seen[] = [];
    const stacks: Stack[] = [];
    const result = (summary: Record<string, number>) =>
      ({ stdout: "", stderr: "", changeSummary: summary }) as PreviewResult;
    jest.spyOn(Stack.prototype, "previewRefresh").mockImplementation(async function (this: Stack, o) {
      stacks.push(this);
      seen.push({
        op: "refresh",
        reads: this.workspace.envVars[EXPECTED_READS_ENV],
        runProgram: o?.runProgram,
      });
      for (const e of refresh.events) o?.onEvent?.(e);
      if (refresh.error) throw refresh.error;
      return result({ same: 4 });
    });
    jest.spyOn(Stack.prototype, "preview").mockImplementation(async function (this: Stack, o) {
      seen.push({ op: "preview", reads: this.workspace.envVars[EXPECTED_READS_ENV] });
      for (const e of preview.events) o?.onEvent?.(e);
      if (preview.error) throw preview.error;
      return result(preview.summary ?? {});
    });
    return { seen, stacks };
  }

  afterEach(() => jest.restoreAllMocks());

  const diagnostic = (
    message: string,
    resourceUrn?: string,
    severity: "error" | "warning" = "error",
  ): EngineEvent => ({
    sequence: 1,
    timestamp: 0,
    diagnosticEvent: { message, color: "raw", severity, ...(resourceUrn ? { urn: resourceUrn } : {}) },
  });
  /** Outputs of the resources of the state, as the refresh sees them (live values). */
  const old = { description: "a", uri: "https://one.example" };

  it("drift and pending changes: the report, the steps announced, the reads announced to the refresh only", async () => {
    const { seen } = stubEngine(
      {
        events: [
          outputsEvent("update", SUB, "sub", old, { description: "b", uri: "https://two.example" }),
          outputsEvent("delete", SUB, "gone", old, undefined),
          outputsEvent("same", DEST, "dest", old, old),
          outputsEvent("same", "pulumi:providers:pulumi-nodejs", "default", {}, {}),
        ],
      },
      {
        events: [preEvent("update", DEST, "dest", { description: "x" }, { description: "y" })],
        summary: { same: 2, update: 1 },
      },
    );
    const phases: DriftPhase[] = [];
    const report = await runDriftReport({ ...opts, onProgress: (p) => phases.push(p) });
    expect(phases).toEqual(["select", "refresh", "preview", "done"]);
    expect(seen).toEqual([
      { op: "refresh", reads: JSON.stringify({ esb_: 2, ed_: 1 }), runProgram: true },
      { op: "preview", reads: undefined },
    ]);
    const base = (type: string, name: string, id: string) => ({
      name,
      type: type.slice(type.lastIndexOf(":") + 1),
      typeToken: type,
      urn: `urn:pulumi:dev::proj::${type}::${name}`,
      id,
    });
    expect(report).toEqual({
      stack: "dev",
      workDir: project,
      drift: true,
      checkedResources: 3,
      resources: [
        {
          ...base(SUB, "sub", "id-sub"),
          status: "changed",
          properties: [
            { property: "uri", before: "https://one.example", after: "https://two.example", secret: false },
          ],
        },
        { ...base(SUB, "gone", "id-gone"), status: "deleted", properties: [] },
      ],
      ignored: [
        {
          ...base(SUB, "sub", "id-sub"),
          ignoreChanges: ["description"],
          properties: [{ property: "description", before: "a", after: "b", secret: false }],
        },
      ],
      pendingChanges: {
        present: true,
        summary: { same: 2, update: 1 },
        resources: [
          {
            name: "dest",
            type: "EventDestination",
            urn: urn(DEST, "dest"),
            op: "update",
            properties: ["description"],
          },
        ],
      },
      exitCode: 2,
    });
  });

  it("no drift, nothing pending: exit code 0; a state that cannot be read announces no reads and ignores nothing", async () => {
    const { seen } = stubEngine(
      { events: [outputsEvent("same", SUB, "sub", old, old), outputsEvent("same", DEST, "dest", old, old)] },
      { events: [preEvent("same", DEST, "dest", old, old)], summary: { same: 3 } },
    );
    const report = await runDriftReport(opts);
    expect(seen.map((s) => s.reads)).toEqual([JSON.stringify({ esb_: 2, ed_: 1 }), undefined]);
    expect(report).toMatchObject({
      drift: false,
      checkedResources: 2,
      resources: [],
      ignored: [],
      pendingChanges: { present: false, summary: { same: 3 }, resources: [] },
      exitCode: 0,
    });

    jest.restoreAllMocks();
    const unread = stubEngine(
      { events: [outputsEvent("update", SUB, "sub", old, { ...old, description: "b" })] },
      { events: [] },
    );
    jest.spyOn(Stack.prototype, "exportStack").mockRejectedValue(new Error("no state"));
    const changed = await runDriftReport(opts);
    expect(unread.seen.map((s) => s.reads)).toEqual([undefined, undefined]);
    expect(changed).toMatchObject({
      drift: true,
      ignored: [],
      resources: [{ name: "sub", status: "changed", properties: [{ property: "description" }] }],
      pendingChanges: { present: false, summary: {}, resources: [] },
      exitCode: 2,
    });
  });

  it("a failed refresh: a DriftError naming the step and the stack with the engine's errors; no preview, reads withdrawn", async () => {
    const { seen, stacks } = stubEngine(
      {
        events: [diagnostic("reading: HTTP 500 Internal Server Error\n", urn(SUB, "sub"))],
        error: new Error("code: 255\n stdout: \n stderr: error: not shown\n err?: x\n"),
      },
      { events: [] },
    );
    const phases: DriftPhase[] = [];
    const run = runDriftReport({ ...opts, onProgress: (p) => phases.push(p) });
    await expect(run).rejects.toBeInstanceOf(DriftError);
    await expect(run).rejects.toThrow(
      new DriftError(
        'The refresh (preview only) that reads the live resources of stack "dev" failed:\n' +
          "  sub: reading: HTTP 500 Internal Server Error",
      ),
    );
    expect(phases).toEqual(["select", "refresh"]);
    expect(seen.map((s) => s.op)).toEqual(["refresh"]);
    expect(stacks[0].workspace.envVars[EXPECTED_READS_ENV]).toBeUndefined();
  });

  it("a failed preview: a DriftError naming the step and the stack with the CLI's stderr", async () => {
    stubEngine(
      { events: [] },
      {
        events: [diagnostic("a warning only, not an error\n", undefined, "warning")],
        error: new Error("code: 255\n stdout: \n stderr: error: the program failed\n err?: x\n"),
      },
    );
    const phases: DriftPhase[] = [];
    const run = runDriftReport({ ...opts, onProgress: (p) => phases.push(p) });
    await expect(run).rejects.toThrow(
      new DriftError('The preview of the program of stack "dev" failed:\n  error: the program failed'),
    );
    await expect(run).rejects.toHaveProperty("name", "DriftError");
    expect(phases).toEqual(["select", "refresh", "preview"]);
  });
});
