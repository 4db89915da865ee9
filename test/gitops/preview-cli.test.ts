/**
 * `service-drift preview` (gitops/preview-cli.ts) in process: its options wherever they are
 * given, the guard's flags checked before anything runs, exit code 1 with the error in every
 * format. The preview itself runs through the engine in test/e2e/resource-options.test.ts.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { main } from "../../gitops/cli";
import { capture as io } from "../helpers/cli";
import { loadedWith } from "../helpers/loaded-modules";

const preview = (args: string[], env: Record<string, string> = {}) => {
  const run = io(env);
  return main(["node", "service-drift", "preview", ...args], run.cli).then((code) => ({ code, ...run.out }));
};

describe("service-drift preview (in process)", () => {
  let empty: string;
  beforeAll(() => (empty = fs.mkdtempSync(path.join(os.tmpdir(), "preview-cli-"))));
  afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));

  it("an operation --fail-on does not know exits 1 naming the flag and the operations, in every format", async () => {
    const text = await preview(["--stack", "dev", "--cwd", empty, "--fail-on", "replace,destroy"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe("");
    expect(text.stderr).toBe(
      'service-drift preview: --fail-on: "destroy" is not an operation; use one or more of create, update, replace, delete (e.g. --fail-on replace,delete).\n',
    );
    const json = await preview(["--stack", "dev", "--cwd", empty, "--json", "--fail-on", "destroy"]);
    expect(JSON.parse(json.stdout)).toEqual({
      error: expect.stringMatching(/^--fail-on: "destroy"/),
      exitCode: 1,
    });
    const md = await preview([
      "--stack",
      "dev",
      "--cwd",
      empty,
      "--format",
      "markdown",
      "--fail-on",
      "destroy",
    ]);
    expect(md.stdout).toMatch(/^\*\*The preview failed\*\* \(exit code 1\): --fail-on: "destroy"/);
  });

  it("--fail-on-type or --fail-on-name without --fail-on exits 1: they only narrow it", async () => {
    const run = await preview(["--stack", "dev", "--cwd", empty, "--fail-on-type", "EventDestination"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--fail-on-type and --fail-on-name narrow --fail-on/);
  });

  it("the stack from --stack before or after the subcommand's name, else PULUMI_STACK; none exits 1", async () => {
    const noProject = `service-drift preview: No Pulumi project in ${empty} (no Pulumi.yaml): pass --cwd <project folder>.\n`;
    expect((await preview(["--stack", "dev", "--cwd", empty])).stderr).toBe(noProject);
    const before = io();
    expect(
      await main(["node", "service-drift", "--stack", "dev", "--cwd", empty, "preview"], before.cli),
    ).toBe(1);
    expect(before.out.stderr).toBe(noProject);
    expect((await preview(["--cwd", empty], { PULUMI_STACK: "dev" })).stderr).toBe(noProject);
    const none = await preview(["--cwd", empty]);
    expect([none.code, none.stderr]).toEqual([
      1,
      "service-drift preview: Missing --stack <name> (or PULUMI_STACK): which stack to preview (e.g. --stack dev).\n",
    ]);
  });

  it("--help names the guard's flags without loading the Automation API", async () => {
    let out = "";
    const { loaded } = await loadedWith(["@pulumi/pulumi/automation"], async () => {
      const run = io();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const cli = require("../../gitops/cli") as typeof import("../../gitops/cli");
      expect(await cli.main(["node", "service-drift", "preview", "--help"], run.cli)).toBe(0);
      out = run.out.stdout;
    });
    expect(loaded).toEqual([]);
    for (const f of [
      "--fail-on <ops>",
      "--fail-on-type <types>",
      "--fail-on-name <names>",
      "--format <format>",
    ])
      expect(out).toContain(f);
  });
});

describe("service-drift preview's flags (in process)", () => {
  let empty: string;
  beforeAll(() => (empty = fs.mkdtempSync(path.join(os.tmpdir(), "preview-flags-"))));
  afterAll(() => fs.rmSync(empty, { recursive: true, force: true }));
  const noProject = (dir: string) =>
    `No Pulumi project in ${dir} (no Pulumi.yaml): pass --cwd <project folder>.`;

  it("--help: every option with its description, choices and default (words as printed, whatever the width)", async () => {
    const run = io();
    expect(await main(["node", "service-drift", "preview", "--help"], run.cli)).toBe(0);
    expect(run.out.stdout.replace(/\s+/g, " ").trim()).toBe(
      [
        "Usage: service-drift preview [options]",
        "Summary of `pulumi preview` per resource (create, update, replace, delete; changed inputs before and after, secrets masked) and a guard. Exit code 0: the guard passes (or none); 2: it refuses; 1: error.",
        "Options:",
        "-s, --stack <name> stack to preview, e.g. dev (default: env PULUMI_STACK)",
        `-C, --cwd <dir> folder of the Pulumi project (Pulumi.yaml) (default: "${process.cwd()}")`,
        '--format <format> text (a table), json (one document) or markdown (a PR comment) (choices: "text", "json", "markdown", default: "text")',
        "--json the same as --format json",
        "--fail-on <ops> refuse these operations: create, update, replace, delete (comma-separated)",
        "--fail-on-type <types> only for these resource types, e.g. EventDestination (comma-separated)",
        "--fail-on-name <names> only for these resource names (comma-separated)",
        "--policy-pack <dir> run this policy pack in the preview (repeatable)",
        "--policy-pack-config <file> JSON config of the --policy-pack of the same position (repeatable)",
        "-h, --help display help for command",
      ].join(" "),
    );
  });

  it("the guard's lists: comma-separated and repeated, spaces around an item and empty items ignored (the guard is accepted, the run goes on to the project)", async () => {
    const run = await preview([
      "--stack",
      "dev",
      "--cwd",
      empty,
      "--fail-on",
      " create , ,delete",
      "--fail-on",
      "update,",
      "--fail-on-type",
      "EventDestination, ",
      "--fail-on-name",
      " audit",
    ]);
    expect([run.code, run.stdout, run.stderr]).toEqual([
      1,
      "",
      `service-drift preview: ${noProject(empty)}\n`,
    ]);
    // An empty list (a CI variable left empty, `--fail-on "$FAIL_ON"`) refuses nothing and is accepted.
    const none = await preview(["--stack", "dev", "--cwd", empty, "--fail-on", ""]);
    expect([none.code, none.stderr]).toEqual([1, `service-drift preview: ${noProject(empty)}\n`]);
  });

  it("an option given both to service-drift and to preview: preview's own wins; one given to service-drift only counts", async () => {
    const elsewhere = path.join(empty, "elsewhere");
    const both = io();
    const code = await main(
      [
        "node",
        "service-drift",
        "--cwd",
        elsewhere,
        "--format",
        "json",
        "preview",
        "--stack",
        "dev",
        "--cwd",
        empty,
        "--format",
        "markdown",
      ],
      both.cli,
    );
    expect([code, both.out.stdout]).toEqual([
      1,
      `**The preview failed** (exit code 1): ${noProject(empty)}\n`,
    ]);
    const parentOnly = io();
    expect(
      await main(
        ["node", "service-drift", "--json", "preview", "--stack", "dev", "--cwd", empty],
        parentOnly.cli,
      ),
    ).toBe(1);
    expect(JSON.parse(parentOnly.out.stdout)).toEqual({ error: noProject(empty), exitCode: 1 });
  });
});
