/**
 * gitops/unmanaged-cli.ts in process: the accounts from the environment, the stacks and their
 * backends from the flags, bad command lines exiting 1 with the key never printed, and `--help`
 * answering without loading the Automation API or the client.
 */
import * as path from "node:path";
import { main } from "../../gitops/cli";
import { accountsOf, stackRefsOf } from "../../gitops/unmanaged-cli";
import { parseStackRef } from "../../gitops/unmanaged";
import { capture } from "../helpers/cli";
import { loadedWith } from "../helpers/loaded-modules";

const KEY = "sk_unmanaged_cli_unit_0123456789";

describe("service-drift unmanaged (in process)", () => {
  it("accounts: SERVICE_API_KEY by default, else one per --api-key-env variable; a missing one is named", () => {
    const env = { SERVICE_API_KEY: KEY, PROD_KEY: "sk_prod_1234567", SERVICE_BASE_URL: "http://127.0.0.1:1" };
    expect(accountsOf({}, env)).toEqual([
      { name: "SERVICE_API_KEY", baseUrl: "http://127.0.0.1:1", apiKey: KEY },
    ]);
    expect(accountsOf({ apiKeyEnv: ["PROD_KEY"], baseUrl: "https://x.example" }, env)).toEqual([
      { name: "PROD_KEY", baseUrl: "https://x.example", apiKey: "sk_prod_1234567" },
    ]);
    expect(() => accountsOf({ apiKeyEnv: ["DEV_KEY"] }, env)).toThrow(/set DEV_KEY/);
    expect(() => accountsOf({}, { SERVICE_API_KEY: KEY })).toThrow(/--base-url/);
  });

  it("stacks: [DIR:]STACK; --backend-url DIR=URL sets the backend of that folder's stacks, a bare URL of all", () => {
    const refs = stackRefsOf(
      {
        stack: ["a:dev", "b:prod", "qa"],
        backendUrl: ["file:///all", "b=postgres://db.example/state?sslmode=require"],
      },
      "/work",
      parseStackRef,
    );
    expect(refs).toEqual([
      { stack: "dev", cwd: path.resolve("/work/a"), env: { PULUMI_BACKEND_URL: "file:///all" } },
      {
        stack: "prod",
        cwd: path.resolve("/work/b"),
        env: { PULUMI_BACKEND_URL: "postgres://db.example/state?sslmode=require" },
      },
      { stack: "qa", cwd: "/work", env: { PULUMI_BACKEND_URL: "file:///all" } },
    ]);
    expect(() =>
      stackRefsOf({ stack: ["a:dev"], backendUrl: ["c=file:///x"] }, "/work", parseStackRef),
    ).toThrow(/no --stack is in the folder/);
  });

  it("a bad command line exits 1 naming the problem; --json prints the error document; the key is never printed", async () => {
    const none = capture({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: "http://127.0.0.1:1" });
    expect(await main(["node", "service-drift", "unmanaged", "--json"], none.cli)).toBe(1);
    expect(JSON.parse(none.out.stdout)).toEqual({
      error: expect.stringMatching(/No stack given/),
      exitCode: 1,
    });
    const badId = capture({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: "http://127.0.0.1:1" });
    expect(
      await main(["node", "service-drift", "unmanaged", "--stack", "dev", "--exclude-id", KEY], badId.cli),
    ).toBe(1);
    expect(badId.out.stderr).toMatch(/--exclude-id .*: not an esb_… or ed_… ID/);
    expect(badId.out.stderr + badId.out.stdout).not.toContain(KEY);
    const noKey = capture({ SERVICE_BASE_URL: "http://127.0.0.1:1" });
    expect(await main(["node", "service-drift", "unmanaged", "--stack", "dev"], noKey.cli)).toBe(1);
    expect(noKey.out.stderr).toMatch(/set SERVICE_API_KEY/);
  });

  it("--help answers without loading the Automation API or the client", async () => {
    const { loaded } = await loadedWith(["@pulumi/pulumi/automation", "zod"], async () => {
      const help = capture();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const cli = require("../../gitops/cli") as typeof import("../../gitops/cli");
      expect(await cli.main(["node", "service-drift", "unmanaged", "--help"], help.cli)).toBe(0);
      expect(help.out.stdout).toMatch(/--exclude-description-prefix <text>/);
    });
    expect(loaded).toEqual([]);
  });

  it("--help: the description and every option's text", async () => {
    const help = capture();
    expect(await main(["node", "service-drift", "unmanaged", "--help"], help.cli)).toBe(0);
    // Commander wraps at the terminal's width: compared with the line breaks as spaces.
    expect(help.out.stdout.replace(/\s+/g, " ")).toBe(
      [
        "Usage: service-drift unmanaged [options]",
        "List the event subscriptions and destinations of the account that are in none of the given stacks' states (abuse reports cannot be listed). Exit code 0: none; 2: some; 1: error.",
        "Options:",
        '--format <format> text (a table), json (one document) or markdown (a comment) (choices: "text", "json", "markdown", default: "text")',
        "--json the same as --format json",
        "-s, --stack <[dir:]stack> a stack whose state counts, in project folder dir (repeatable)",
        "--backend-url <[dir=]url> backend of the stacks in project folder dir, or of every stack (repeatable; default: as pulumi finds it)",
        "--base-url <url> base URL of the service (default: SERVICE_BASE_URL)",
        "--api-key-env <var> list the account whose API key is in this variable (repeatable; default: SERVICE_API_KEY)",
        "--exclude-id <id> leave this resource out on purpose (repeatable)",
        "--exclude-description-prefix <text> leave out resources whose description starts with text (repeatable)",
        "--import-file <path> write the unmanaged resources as a `pulumi import --file` file",
        "-h, --help display help for command ",
      ].join(" "),
    );
  });

  it("stacks: no --backend-url leaves each stack's backend to pulumi; `=URL` is the current folder's; a URL's own `=` is not a folder's", () => {
    const parse = (stack: string[], backendUrl?: string[]) =>
      stackRefsOf({ stack, ...(backendUrl ? { backendUrl } : {}) }, "/work", parseStackRef);
    expect(parse(["a:dev", "qa"])).toEqual([
      { stack: "dev", cwd: path.resolve("/work/a") },
      { stack: "qa", cwd: "/work" },
    ]);
    expect(parse(["a:dev", "qa"], ["=file:///here"])).toEqual([
      { stack: "dev", cwd: path.resolve("/work/a") },
      { stack: "qa", cwd: "/work", env: { PULUMI_BACKEND_URL: "file:///here" } },
    ]);
    const pg = "postgres://db.example/state?sslmode=require";
    expect(parse(["a:dev", "qa"], [pg])).toEqual([
      { stack: "dev", cwd: path.resolve("/work/a"), env: { PULUMI_BACKEND_URL: pg } },
      { stack: "qa", cwd: "/work", env: { PULUMI_BACKEND_URL: pg } },
    ]);
    // DIR= before a value that has no scheme: still the folder's (pulumi says what is wrong with the URL).
    expect(parse(["a:dev", "qa"], ["a=state-bucket"])).toEqual([
      { stack: "dev", cwd: path.resolve("/work/a"), env: { PULUMI_BACKEND_URL: "state-bucket" } },
      { stack: "qa", cwd: "/work" },
    ]);
    // No stack: nothing to give a backend to (the check then says that no stack is given).
    expect(parse([], ["file:///all"])).toEqual([]);
  });

  it("repeated --exclude-id are all checked; an empty --exclude-description-prefix is refused; the error on stderr and in Markdown", async () => {
    const env = { SERVICE_API_KEY: KEY, SERVICE_BASE_URL: "http://127.0.0.1:1" };
    const good = `ed_${"1".repeat(27)}`;
    const ids = capture(env);
    const args = ["node", "service-drift", "unmanaged", "--stack", "dev"];
    expect(await main([...args, "--exclude-id", good, "--exclude-id", "ed_bad"], ids.cli)).toBe(1);
    expect(ids.out).toEqual({
      stdout: "",
      stderr:
        'service-drift unmanaged: --exclude-id "ed_bad": not an esb_… or ed_… ID (prefix + 27 letters or digits).\n',
    });
    const prefix = capture(env);
    expect(
      await main([...args, "--exclude-description-prefix", "", "--format", "markdown"], prefix.cli),
    ).toBe(1);
    expect(prefix.out).toEqual({
      stdout:
        "**The unmanaged check failed** (exit code 1): --exclude-description-prefix: the prefix is empty (it would exclude everything).\n",
      stderr:
        "service-drift unmanaged: --exclude-description-prefix: the prefix is empty (it would exclude everything).\n",
    });
  });

  it("a whole run: the stack read on its --backend-url, the account listed, exclusions, the import file, the JSON report, progress on a terminal", async () => {
    const fs = await import("node:fs");
    const os = await import("node:os");
    const { execFileSync } = await import("node:child_process");
    const { startEmulator } = await import("../helpers/emulator");
    const { engineEnv, freshBackend, requirePulumi } = await import("../helpers/pulumi");
    const { ServiceClient } = await import("../../client");
    const { ABUSE_REPORTS_NOT_CHECKED } = await import("../../gitops/unmanaged");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "unmanaged-cli-"));
    const emulator = await startEmulator({ apiKeys: [KEY] });
    const client = new ServiceClient({ apiKey: KEY, baseUrl: emulator.url });
    try {
      const target = {
        kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/r" } }, streamArn: "arn:aws:kinesis:s" },
      };
      const hand = await client.eventDestinations.create({ description: "by hand", target });
      const lab = await client.eventDestinations.create({ description: "[lab] one", target });
      const ok = await client.eventSubscriptions.create({
        description: "[ok] two",
        sources: [{ type: "ip_policy_created.v0" }],
        destinationIds: [lab.id],
      });
      const backend = freshBackend("unmanaged-cli");
      const { PULUMI_BACKEND_URL: _, ...env } = engineEnv(backend);
      const project = path.join(dir, "project");
      fs.mkdirSync(project);
      fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: unmanaged-cli\nruntime: nodejs\n");
      execFileSync(path.join(requirePulumi().dirs[0], "pulumi"), ["stack", "init", "dev"], {
        cwd: project,
        env: engineEnv(backend),
        stdio: "pipe",
      });
      const file = path.join(dir, "import.json");
      const run = capture({ ...env, SERVICE_API_KEY: KEY, SERVICE_BASE_URL: emulator.url });
      run.cli.stderrIsTTY = true;
      const code = await main(
        [
          "node",
          "service-drift",
          "unmanaged",
          "--stack",
          `${project}:dev`,
          "--backend-url",
          `file://${backend}`,
          "--exclude-description-prefix",
          "[lab]",
          "--exclude-description-prefix",
          "[ok]",
          "--import-file",
          file,
          "--json",
        ],
        run.cli,
      );
      expect(run.out.stderr.replace(/\[\d+\.\d s\]/g, "[…]")).toBe(
        [
          "service-drift unmanaged: […] reading the stacks' states",
          "service-drift unmanaged: […] listing account SERVICE_API_KEY",
          "service-drift unmanaged: […] done",
          "",
        ].join("\n"),
      );
      expect(code).toBe(2);
      expect(JSON.parse(run.out.stdout)).toEqual({
        accounts: [
          {
            name: "SERVICE_API_KEY",
            baseUrl: emulator.url,
            listed: { eventSubscription: 1, eventDestination: 2 },
            managed: 0,
            excluded: 2,
            unmanaged: 1,
          },
        ],
        stacks: [{ stack: "dev", workDir: project, resources: 0 }],
        unmanaged: [
          {
            account: "SERVICE_API_KEY",
            kind: "eventDestination",
            type: "service:index:EventDestination",
            id: hand.id,
            description: "by hand",
            createdAt: hand.createdAt,
          },
        ],
        excluded: [
          { account: "SERVICE_API_KEY", kind: "eventDestination", id: lab.id, by: "description" },
          { account: "SERVICE_API_KEY", kind: "eventSubscription", id: ok.id, by: "description" },
        ],
        notChecked: [{ kind: "abuseReport", reason: ABUSE_REPORTS_NOT_CHECKED }],
        found: true,
        importFile: file,
        exitCode: 2,
      });
      expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
        resources: [{ type: "service:index:EventDestination", name: "byHand", id: hand.id }],
      });
    } finally {
      await client.close();
      await emulator.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("service-drift unmanaged, with its modules loaded inside the test", () => {
  // Loaded afresh inside the test: Stryker's per-test coverage then counts the module's constants
  // (the repeatable flags' collector, the steps' text) as this test's, not as those of the load
  // at the top of this file. The check's module is stubbed with the parser loaded at the top, not
  // loaded again: its constants (and those of the modules it loads) stay those of the tests that
  // check them.
  afterEach(() => jest.dontMock("../../gitops/unmanaged"));

  it("each repeatable flag keeps every value given, in order; a terminal sees each step's own text", async () => {
    jest.resetModules(); // a fresh registry, in which the check below is stubbed
    const calls: import("../../gitops/unmanaged").UnmanagedOptions[] = [];
    jest.doMock("../../gitops/unmanaged", () => ({
      parseStackRef,
      runUnmanagedCheck: async (opts: import("../../gitops/unmanaged").UnmanagedOptions) => {
        calls.push(opts);
        opts.onProgress?.("states");
        opts.onProgress?.("list", "DEV_KEY");
        opts.onProgress?.("done");
        return { found: false, exitCode: 0 };
      },
    }));
    await jest.isolateModulesAsync(async () => {
      const cli = await import("../../gitops/cli");
      const env = {
        DEV_KEY: "sk_dev_0123456789",
        PROD_KEY: "sk_prod_0123456789",
        SERVICE_BASE_URL: "http://x",
      };
      const run = capture(env);
      run.cli.stderrIsTTY = true;
      const [d1, d2] = [`ed_${"1".repeat(27)}`, `esb_${"2".repeat(27)}`];
      const args = ["node", "service-drift", "unmanaged", "--stack", "a:dev", "--stack", "qa"];
      args.push("--backend-url", "file:///all", "--backend-url", "a=file:///a");
      args.push(
        "--api-key-env",
        "DEV_KEY",
        "--api-key-env",
        "PROD_KEY",
        "--exclude-id",
        d1,
        "--exclude-id",
        d2,
      );
      args.push("--exclude-description-prefix", "[lab]", "--exclude-description-prefix", "[ok]", "--json");
      expect(await cli.main(args, run.cli)).toBe(0);
      expect(calls).toHaveLength(1);
      expect(calls[0].stacks).toEqual([
        { stack: "dev", cwd: path.resolve("a"), env: { PULUMI_BACKEND_URL: "file:///a" } },
        { stack: "qa", cwd: process.cwd(), env: { PULUMI_BACKEND_URL: "file:///all" } },
      ]);
      expect(calls[0].accounts.map((a) => a.name)).toEqual(["DEV_KEY", "PROD_KEY"]);
      expect(calls[0].exclude).toEqual({ ids: [d1, d2], descriptionPrefixes: ["[lab]", "[ok]"] });
      expect(run.out.stderr.replace(/\[\d+\.\d s\]/g, "[s]").split("\n")).toEqual([
        "service-drift unmanaged: [s] reading the stacks' states",
        "service-drift unmanaged: [s] listing account DEV_KEY",
        "service-drift unmanaged: [s] done",
        "",
      ]);
    });
  });
});

describe("--backend-url: where the folder ends", () => {
  it("a value that starts with `://` has no folder: its `=` is the URL's own", () => {
    const refs = stackRefsOf({ stack: ["dev"], backendUrl: ["://state=1"] }, "/work", parseStackRef);
    expect(refs).toEqual([{ stack: "dev", cwd: "/work", env: { PULUMI_BACKEND_URL: "://state=1" } }]);
  });
});
