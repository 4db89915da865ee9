/**
 * The preview summary through the real engine, in process (gitops/preview.ts runPreviewSummary
 * and `service-drift preview`, gitops/preview-cli.ts): Pulumi YAML programs without any provider
 * plugin (a preview takes the engine under a second) on a local file backend, and a policy pack
 * of two rules written here (a stack rule, mandatory unless its config says otherwise, and an
 * advisory rule of every resource). What a merge check sees: the summary, the guard's verdict,
 * the violations, exit code 2 for a refusal (the guard's or a mandatory violation's) and a failed
 * preview as an error naming the stack and the engine's message. test/e2e/policy.test.ts runs
 * the package's own policy pack on the service's resources.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { main } from "../../gitops/cli";
import { PreviewError, runPreviewSummary, type PreviewSummary } from "../../gitops/preview";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { capture } from "../helpers/cli";
import { engineEnv, freshBackend, pulumiCommand, requirePulumi } from "../helpers/pulumi";
import { useTempDir } from "../helpers/temp-dir";

const tmp = useTempDir("preview-run-");
const STACK_TYPE = "pulumi:pulumi:Stack";

/**
 * The policy pack: `no-stack` refuses every stack (or throws, with `crash: true` in its config),
 * `every-resource` notes every resource.
 */
const PACK_SOURCE = `const { PolicyPack } = require("@pulumi/policy");
new PolicyPack("mini-pack", {
  policies: [
    {
      name: "no-stack",
      description: "Stacks are refused here.",
      enforcementLevel: "mandatory",
      configSchema: { properties: { crash: { type: "boolean" } } },
      validateStack: (args, report) => {
        if (args.getConfig().crash) throw new Error("the rule crashed");
        report("this stack is refused");
      },
    },
    {
      name: "every-resource",
      description: "Every resource is noted.",
      enforcementLevel: "advisory",
      validateResource: (args, report) => report("resource " + args.name + " noted"),
    },
  ],
});
`;

let env: Record<string, string>;
let project: string;
let broken: string;
let pack: string;
let advisoryConfig: string;
let mandatoryConfig: string;
let crashConfig: string;
let backend: string;

const urnOf = (stack: string, proj = "preview-run") =>
  `urn:pulumi:${stack}::${proj}::${STACK_TYPE}::${proj}-${stack}`;

beforeAll(() => {
  backend = freshBackend("preview-run");
  env = engineEnv(backend);
  const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
  const cli = (cwd: string, ...args: string[]) =>
    execFileSync(pulumi, [...args, "--non-interactive"], { cwd, env, stdio: "pipe" });
  // An empty program: a stack never deployed creates only its Stack resource; once deployed, nothing.
  project = path.join(tmp(), "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: preview-run\nruntime: yaml\n");
  cli(project, "stack", "init", "fresh");
  cli(project, "stack", "init", "deployed");
  cli(project, "up", "--yes", "--stack", "deployed");
  // A program whose preview fails: a reference to a stack that does not exist.
  broken = path.join(tmp(), "broken");
  fs.mkdirSync(broken);
  fs.writeFileSync(
    path.join(broken, "Pulumi.yaml"),
    [
      "name: preview-broken",
      "runtime: yaml",
      "resources:",
      "  ref:",
      "    type: pulumi:pulumi:StackReference",
      "    properties:",
      "      name: organization/preview-broken/nope",
      "",
    ].join("\n"),
  );
  cli(broken, "stack", "init", "dev");
  pack = path.join(tmp(), "pack");
  fs.mkdirSync(pack);
  fs.writeFileSync(path.join(pack, "PulumiPolicy.yaml"), "runtime: nodejs\n");
  fs.writeFileSync(path.join(pack, "package.json"), '{ "name": "mini-pack", "version": "0.0.1" }\n');
  fs.writeFileSync(path.join(pack, "index.js"), PACK_SOURCE);
  fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(pack, "node_modules"), "dir");
  advisoryConfig = path.join(tmp(), "advisory.json");
  fs.writeFileSync(advisoryConfig, JSON.stringify({ "no-stack": { enforcementLevel: "advisory" } }));
  mandatoryConfig = path.join(tmp(), "mandatory.json");
  fs.writeFileSync(mandatoryConfig, JSON.stringify({ "every-resource": { enforcementLevel: "mandatory" } }));
  crashConfig = path.join(tmp(), "crash.json");
  fs.writeFileSync(
    crashConfig,
    JSON.stringify({ "no-stack": { enforcementLevel: "advisory", crash: true } }),
  );
}, 60_000);

afterAll(() => {
  if (backend) fs.rmSync(backend, { recursive: true, force: true });
});

/** The Stack resource a never-deployed stack of `project` creates, as the summary lists it. */
const stackCreated = (stack: string) => ({
  name: `preview-run-${stack}`,
  type: "Stack",
  typeToken: STACK_TYPE,
  urn: urnOf(stack),
  id: "",
  op: "create",
  replaceReasons: [],
  properties: [],
});

test("runPreviewSummary: the resources to change and the guard's refusal (exit code 2); a deployed stack has none, its guard passes (0)", async () => {
  const pulumi = await pulumiCommand();
  const refused = await runPreviewSummary({
    stack: "fresh",
    cwd: project,
    env,
    pulumiCommand: pulumi,
    guard: { failOn: ["create"], types: ["Stack"] },
  });
  expect(refused).toEqual<PreviewSummary>({
    stack: "fresh",
    workDir: project,
    changes: true,
    summary: { create: 1 },
    resources: [stackCreated("fresh")],
    guard: {
      failOn: ["create"],
      types: ["Stack"],
      names: [],
      refused: [{ name: "preview-run-fresh", type: "Stack", urn: urnOf("fresh"), op: "create" }],
    },
    policyViolations: [],
    exitCode: 2,
  });
  const unchanged = await runPreviewSummary({
    stack: "deployed",
    cwd: project,
    env,
    pulumiCommand: pulumi,
    guard: { failOn: ["create", "delete"] },
  });
  expect(unchanged).toEqual<PreviewSummary>({
    stack: "deployed",
    workDir: project,
    changes: false,
    summary: { same: 1 },
    resources: [],
    guard: { failOn: ["create", "delete"], types: [], names: [], refused: [] },
    policyViolations: [],
    exitCode: 0,
  });
}, 60_000);

test("runPreviewSummary with a policy pack: a mandatory violation is a refusal (exit code 2), not a failure; a rule that throws or another error fails the preview", async () => {
  const pulumi = await pulumiCommand();
  const summary = await runPreviewSummary({
    stack: "fresh",
    cwd: project,
    env,
    pulumiCommand: pulumi,
    policyPacks: [pack],
  });
  expect(summary.exitCode).toBe(2);
  expect(summary.guard).toBeNull();
  expect(summary.resources).toEqual([stackCreated("fresh")]);
  expect(summary.policyViolations).toEqual([
    {
      policyPack: "mini-pack",
      policy: "every-resource",
      enforcementLevel: "advisory",
      name: "preview-run-fresh",
      urn: urnOf("fresh"),
      message: "resource preview-run-fresh noted",
    },
    {
      policyPack: "mini-pack",
      policy: "no-stack",
      enforcementLevel: "mandatory",
      name: "preview-run-fresh",
      urn: urnOf("fresh"),
      message: "this stack is refused",
    },
  ]);

  const allMandatory = await runPreviewSummary({
    stack: "fresh",
    cwd: project,
    env,
    pulumiCommand: pulumi,
    policyPacks: [pack],
    policyPackConfigs: [mandatoryConfig],
  });
  expect([allMandatory.exitCode, allMandatory.policyViolations.map((v) => v.enforcementLevel)]).toEqual([
    2,
    ["mandatory", "mandatory"],
  ]);

  // A rule that throws fails the preview (its error tied to no resource), beside an advisory violation.
  const crashed = runPreviewSummary({
    stack: "fresh",
    cwd: project,
    env,
    pulumiCommand: pulumi,
    policyPacks: [pack],
    policyPackConfigs: [crashConfig],
  });
  await expect(crashed).rejects.toBeInstanceOf(PreviewError);
  await expect(crashed).rejects.toThrow(
    /^The preview of the program of stack "fresh" failed:\n {2}Error validating resource with policy 'no-stack' from policy pack 'mini-pack@v0\.0\.1':\n {2}Error: the rule crashed\n/,
  );

  // A reference to a missing stack fails the preview; a mandatory violation beside it does not hide that.
  const failed = runPreviewSummary({
    stack: "dev",
    cwd: broken,
    env,
    pulumiCommand: pulumi,
    policyPacks: [pack],
    policyPackConfigs: [mandatoryConfig],
  });
  await expect(failed).rejects.toBeInstanceOf(PreviewError);
  await expect(failed).rejects.toThrow(
    new PreviewError(
      'The preview of the program of stack "dev" failed:\n  ref: Preview failed: unknown stack "organization/preview-broken/nope"\n  preview failed',
    ),
  );
}, 60_000);

test("service-drift preview: --policy-pack with its --policy-pack-config and the guard's flags, the text whole; no guard flag, no guard", async () => {
  const run = capture(env);
  const code = await main(
    [
      "node",
      "service-drift",
      "preview",
      "--stack",
      "fresh",
      "--cwd",
      project,
      "--policy-pack",
      pack,
      "--policy-pack-config",
      advisoryConfig,
      "--fail-on",
      "create",
      "--fail-on-name",
      "other",
    ],
    run.cli,
  );
  expect(run.out.stderr).toBe("");
  expect(run.out.stdout).toBe(
    [
      `Preview of stack "fresh" (${project}): 1 to create.`,
      "",
      "  OP      RESOURCE           TYPE   ID  PROPERTY  BEFORE (STATE)  AFTER (PROGRAM)",
      "  create  preview-run-fresh  Stack  -   -",
      "",
      "Policy violations:",
      "  LEVEL     POLICY          RESOURCE                   MESSAGE",
      "  advisory  every-resource  preview-run-fresh (Stack)  resource preview-run-fresh noted",
      "  advisory  no-stack        preview-run-fresh (Stack)  this stack is refused",
      "",
      "Guard (create named other): passes (exit code 0).",
      "",
    ].join("\n"),
  );
  expect(code).toBe(0);

  const plain = capture(env);
  expect(
    await main(
      ["node", "service-drift", "preview", "--stack", "deployed", "--cwd", project, "--json"],
      plain.cli,
    ),
  ).toBe(0);
  expect(JSON.parse(plain.out.stdout)).toEqual({
    stack: "deployed",
    workDir: project,
    changes: false,
    summary: { same: 1 },
    resources: [],
    guard: null,
    policyViolations: [],
    exitCode: 0,
  });
}, 60_000);
