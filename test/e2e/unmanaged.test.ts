/**
 * `service-drift unmanaged` (compiled, run as a child process) and `pulumi-service/gitops`'s
 * `runUnmanagedCheck` against stacks deployed by the real Pulumi engine on the real emulator, one
 * account: a dynamic-door stack (test/fixtures/native, TypeScript) in one file backend, a
 * native-door stack (a YAML program) in another, named by its project's `backend.url`; then a
 * destination and a subscription made by hand, and one more destination excluded on purpose by a
 * description prefix. The check lists exactly the two made by hand (exit 2), the library gives the
 * same document as `--format json`, and the bulk-import file it writes is imported into a third
 * stack (a YAML program, `pulumi import --file … --out`), whose generated code, added to the
 * program, previews with no changes; the check then finds nothing (exit 0). (A Python stack imports
 * the file as well, but this repository's stand-in Python language host generates no code:
 * tools/pulumi/pulumi-language-python.)
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { ServiceClient } from "../../client";
import { runUnmanagedCheck, type UnmanagedReport } from "../../gitops";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";
import { DOORS_PROGRAM } from "../helpers/engine-stack";
import { runDriftCli } from "../helpers/gitops";
import { configureService, freshBackend, localStack } from "../helpers/pulumi";

const ENGINE_TIMEOUT = 600_000;
const API_KEY = "sk_unmanaged_e2e_4f2a9c1d7b";
const ROLE = "arn:aws:iam::123456789012:role/unmanaged";
const STREAM = "arn:aws:kinesis:us-east-1:123456789012:stream/unmanaged";
const KINESIS = { kinesis: { auth: { role: { roleArn: ROLE } }, streamArn: STREAM } };
const MARKER = "[unmanaged-ok]";

/**
 * A YAML program of the native door, project `name`, with one destination (none when
 * `withDestination` is false: a program to import into).
 */
function yamlProject(dir: string, name: string, withDestination = true): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    [
      `name: ${name}`,
      "runtime: yaml",
      `plugins:\n  providers:\n    - name: service\n      path: ${path.join(REPO_ROOT, "bin")}`,
      ...(withDestination
        ? [
            "resources:",
            "  yamlDestination:",
            "    type: service:index:EventDestination",
            "    properties:",
            "      description: the YAML stack's destination",
            "      target:",
            `        kinesis: { auth: { role: { roleArn: "${ROLE}" } }, streamArn: "${STREAM}" }`,
          ]
        : []),
      "",
    ].join("\n"),
  );
}

describe("service-drift unmanaged (real engine, real emulator, child process and library)", () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  let tmp: string;
  let env: Record<string, string>;
  let yamlDir: string;
  let importDir: string;
  const made = { destination: "", subscription: "", excluded: "" };
  const managed: string[] = [];
  /** The backend folders of the YAML stacks (the dynamic stack's is PULUMI_BACKEND_URL's). */
  const backends = { yaml: "", imported: "" };
  let yamlDestination = "";
  const timings: Record<string, number> = {};

  /** The check's command line with `args` after the stacks; JSON output parsed. */
  async function check(label: string, stacks: string[], args: string[] = []) {
    const run = await runDriftCli(
      ["unmanaged", ...stacks.flatMap((s) => ["--stack", s]), ...backendFlags(stacks), ...args],
      env,
    );
    timings[label] = run.ms;
    return {
      ...run,
      json: args.includes("--json") ? (JSON.parse(run.stdout) as UnmanagedReport) : undefined,
    };
  }

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "unmanaged-e2e-"));
    emulator = await startEmulator({ apiKeys: [API_KEY] });
    client = new ServiceClient({ apiKey: API_KEY, baseUrl: emulator.url, maxRetries: 0 });
    // The dynamic-door stack, in the backend of PULUMI_BACKEND_URL.
    const dynamicBackend = freshBackend("e2e-unmanaged-dynamic");
    const dynamic = await localStack(DOORS_PROGRAM, "unmanaged", dynamicBackend);
    env = { ...dynamic.env, SERVICE_API_KEY: API_KEY, SERVICE_BASE_URL: emulator.url };
    await configureService(dynamic.stack, emulator.url, API_KEY);
    await dynamic.stack.setConfig("door", { value: "dynamic" });
    const spec = {
      destinations: [{ name: "d", args: { description: "dynamic destination", target: KINESIS } }],
      subscriptions: [
        { name: "s", destinations: ["d"], args: { sources: [{ type: "ip_policy_created.v0" }] } },
      ],
      reports: [],
    };
    await dynamic.stack.setConfig("spec", { value: JSON.stringify(spec), secret: true });
    // The native-door stack, in the backend its Pulumi.yaml names.
    yamlDir = path.join(tmp, "yaml");
    yamlProject(yamlDir, "unmanaged-yaml");
    backends.yaml = freshBackend("e2e-unmanaged-yaml");
    const yaml = await localStack(yamlDir, "unmanaged", backends.yaml);
    await configureService(yaml.stack, emulator.url, API_KEY);
    const [up1, up2] = await Promise.all([dynamic.stack.up(), yaml.stack.up()]);
    expect([up1.summary.result, up2.summary.result]).toEqual(["succeeded", "succeeded"]);
    for (const s of [dynamic.stack, yaml.stack])
      for (const r of (await s.exportStack()).deployment.resources as { id?: string; type: string }[])
        if (r.id && /^(esb|ed)_/.test(r.id)) managed.push(r.id);
    // The dynamic stack's destination and subscription, then the YAML stack's destination.
    expect(managed).toHaveLength(3);
    yamlDestination = managed[2];
    // Made by hand, outside every stack.
    made.destination = (
      await client.eventDestinations.create({ description: "Audit by hand", target: KINESIS })
    ).id;
    made.subscription = (
      await client.eventSubscriptions.create({
        description: "Sent by hand",
        sources: [{ type: "ip_policy_updated.v0" }],
        destinationIds: [made.destination],
      })
    ).id;
    made.excluded = (
      await client.eventDestinations.create({ description: `${MARKER} lab`, target: KINESIS })
    ).id;
  }, ENGINE_TIMEOUT);

  afterAll(async () => {
    console.log(`service-drift unmanaged run times (ms): ${JSON.stringify(timings)}`);
    await client?.close();
    await emulator?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const stacks = () => [`${DOORS_PROGRAM}:unmanaged`, `${yamlDir}:unmanaged`];
  /** The backends of the YAML stacks among `stacks`, `--backend-url DIR=URL`. */
  const backendFlags = (stacks: string[]) =>
    [
      [yamlDir, backends.yaml],
      [importDir, backends.imported],
    ].flatMap(([dir, backend]) =>
      stacks.includes(`${dir}:unmanaged`) ? ["--backend-url", `${dir}=file://${backend}`] : [],
    );
  const exclude = ["--exclude-description-prefix", MARKER];

  it(
    "two stacks on two backends: exit 2 listing exactly what was made by hand; the excluded one apart; the library's result is the JSON",
    async () => {
      const importFile = path.join(tmp, "import.json");
      const run = await check("json", stacks(), [...exclude, "--import-file", importFile, "--json"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(2);
      const report = run.json!;
      expect(report.unmanaged.map((r) => [r.kind, r.id, r.description])).toEqual([
        ["eventDestination", made.destination, "Audit by hand"],
        ["eventSubscription", made.subscription, "Sent by hand"],
      ]);
      expect(report.unmanaged[1].destinationIds).toEqual([made.destination]);
      expect(report.excluded).toEqual([
        { account: "SERVICE_API_KEY", kind: "eventDestination", id: made.excluded, by: "description" },
      ]);
      expect(report.stacks.map((s) => s.resources)).toEqual([2, 1]);
      expect(report.accounts[0]).toMatchObject({ managed: 3, excluded: 1, unmanaged: 2 });
      expect(report.notChecked[0].reason).toMatch(/abuse reports were not checked/);
      expect(run.stdout).not.toContain(API_KEY);

      const library = await runUnmanagedCheck({
        stacks: [
          { stack: "unmanaged", cwd: DOORS_PROGRAM },
          { stack: "unmanaged", cwd: yamlDir, env: { PULUMI_BACKEND_URL: `file://${backends.yaml}` } },
        ],
        accounts: [{ name: "SERVICE_API_KEY", baseUrl: emulator.url, apiKey: API_KEY }],
        exclude: { descriptionPrefixes: [MARKER] },
        importFile,
        env,
      });
      expect(library).toEqual(report);
    },
    ENGINE_TIMEOUT,
  );

  it(
    "text and markdown name the resources and say abuse reports were not checked; without the yaml stack its destination is unmanaged too",
    async () => {
      const text = await check("text", stacks(), exclude);
      expect(text.code).toBe(2);
      expect(text.stdout).toMatch(new RegExp(`destination +${made.destination} +\\S+ +Audit by hand`));
      expect(text.stdout).toMatch(
        new RegExp(`subscription +${made.subscription} +\\S+ +Sent by hand +${made.destination}`),
      );
      expect(text.stdout).toContain("Not checked: abuse reports were not checked");
      const md = await check("markdown", [stacks()[0]], [...exclude, "--format", "markdown"]);
      expect(md.code).toBe(2);
      expect(md.stdout).toMatch(/^\*\*Unmanaged resources:\*\* 3 resources/);
      expect(md.stdout).toContain(`| destination | \`${yamlDestination}\` |`);
      expect(md.stdout).toContain("Not checked: abuse reports were not checked");
    },
    ENGINE_TIMEOUT,
  );

  it(
    "the bulk-import file imports into a YAML stack with Pulumi's generated code; its next preview shows no changes; then nothing is unmanaged (exit 0)",
    async () => {
      importDir = path.join(tmp, "import");
      yamlProject(importDir, "unmanaged-import", false);
      backends.imported = freshBackend("e2e-unmanaged-import");
      const imp = await localStack(importDir, "unmanaged", backends.imported);
      await configureService(imp.stack, emulator.url, API_KEY);
      const generated = path.join(tmp, "generated.yaml");
      const cli = (...args: string[]) =>
        promisify(execFile)("pulumi", [...args, "--stack", "unmanaged", "--non-interactive"], {
          cwd: importDir,
          env: imp.env,
        });
      const imported = await cli(
        "import",
        "--file",
        path.join(tmp, "import.json"),
        "--yes",
        "--out",
        generated,
      );
      expect(imported.stdout).toMatch(/2 imported/);
      const program = fs.readFileSync(generated, "utf8");
      expect(program).toMatch(/^ {2}auditByHand:\n {4}type: service:EventDestination$/m);
      expect(program).toMatch(/^ {2}sentByHand:\n {4}type: service:EventSubscription$/m);
      expect(program).toContain("${auditByHand.id}");
      fs.appendFileSync(path.join(importDir, "Pulumi.yaml"), program);
      await cli("preview", "--expect-no-changes");

      const after = await check(
        "after import",
        [...stacks(), `${importDir}:unmanaged`],
        [...exclude, "--json"],
      );
      expect([after.code, after.json?.unmanaged, after.json?.accounts[0].managed]).toEqual([0, [], 5]);
    },
    ENGINE_TIMEOUT,
  );
});
