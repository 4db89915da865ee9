/**
 * The test run's own Pulumi home, temporary folder and backends folder
 * (test/helpers/global-setup.ts, global-teardown.ts): engines the tests start keep their
 * credentials, workspaces and plugins there, never in this user's `~/.pulumi`, their temporary
 * files in the run's, their stacks in a folder of the run, and the folders are gone when the run
 * ends, as are the stack settings files the run wrote beside the programs: a run leaves nothing
 * in the system's temporary folder, the checkout or the home folder.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RUN_DIR_ENV, RUN_STATE_ENV, SYSTEM_TMP_ENV, systemTmpdir, TMP_VARS } from "../helpers/global-setup";
import { freshBackend, requirePulumi } from "../helpers/pulumi";
import { SETTINGS_ROOT_ENV } from "../helpers/stack-settings";
import { pulumiEnv } from "../../scripts/pulumi-env";

const REPO_ROOT = path.resolve(__dirname, "../..");
const JEST = path.join(REPO_ROOT, "node_modules/jest/bin/jest.js");

/**
 * Writes `<dir>/jest.config.js`: the `*.test.js` files of `dir`, run with this repository's
 * global setup and teardown (test/helpers/global-setup.ts, global-teardown.ts).
 */
function writeJestConfig(dir: string): void {
  const config = {
    rootDir: dir,
    testMatch: ["**/*.test.js"],
    globalSetup: path.join(REPO_ROOT, "test/helpers/global-setup.ts"),
    globalTeardown: path.join(REPO_ROOT, "test/helpers/global-teardown.ts"),
    transform: {
      "^.+\\.ts$": [require.resolve("ts-jest"), { tsconfig: path.join(REPO_ROOT, "tsconfig.json") }],
    },
  };
  fs.writeFileSync(path.join(dir, "jest.config.js"), `module.exports = ${JSON.stringify(config)};`);
}

/**
 * Runs jest on `dir` with the configuration {@link writeJestConfig} wrote there and environment
 * `env` (its report on stderr), for at most 120 s; returns what `spawnSync` returns.
 */
function runScratchJest(dir: string, env: NodeJS.ProcessEnv) {
  return spawnSync(process.execPath, [JEST, "--config", path.join(dir, "jest.config.js"), "--useStderr"], {
    cwd: dir,
    encoding: "utf8",
    env,
    timeout: 120_000,
  });
}

/** The environment variable naming the file where the scenario's test writes its {@link Scenario}. */
const REPORT_ENV = "RUN_HOME_SCENARIO_REPORT";

/**
 * What the scenario of {@link SCENARIO_TEST} saw: its temporary folder (`os.tmpdir()`), the file
 * it wrote there, the engine's log files there (`pulumi.<host>.<user>.log.<level>.<time>.<pid>`),
 * the names in that folder when it ended, and its run's folder of backends (in the checkout's
 * `.pulumi-state/`, which `git status` shows as one ignored folder).
 */
interface Scenario {
  tmp: string;
  state: string;
  written: string;
  engineLogs: string[];
  inTmp: string[];
}

/**
 * A test file for a scratch jest run: writes a file in the temporary folder, then, with the
 * project's CLI on `PATH`, makes stack `run-home-scenario` of a one-line JavaScript program (in
 * the run's backends folder, where it resolves the checkout's `@pulumi/pulumi`) and previews it
 * with the engine's log on (`-v=3`: log files in the temporary folder); writes its
 * {@link Scenario} to the file named by {@link REPORT_ENV}.
 */
const SCENARIO_TEST = `
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
test("writes temporary files and previews a program", () => {
  const written = path.join(os.tmpdir(), "run-home-scenario-" + process.pid);
  fs.writeFileSync(written, "x");
  const program = path.join(process.env.${RUN_STATE_ENV}, "program");
  const backend = path.join(process.env.${RUN_STATE_ENV}, "backend");
  fs.mkdirSync(program);
  fs.mkdirSync(backend);
  fs.writeFileSync(path.join(program, "Pulumi.yaml"), "name: run-home-scenario\\nruntime: nodejs\\n");
  fs.writeFileSync(path.join(program, "index.js"), 'exports.stack = require("@pulumi/pulumi").getStack();\\n');
  const pulumi = (...args) => {
    const r = spawnSync("pulumi", args, {
      cwd: program,
      encoding: "utf8",
      env: { ...process.env, PULUMI_BACKEND_URL: "file://" + backend },
    });
    if (r.status !== 0) throw new Error("pulumi " + args.join(" ") + ": " + r.stdout + r.stderr);
    return r;
  };
  pulumi("stack", "init", "run-home-scenario");
  const engine = pulumi("preview", "--non-interactive", "-v=3").pid;
  const inTmp = fs.readdirSync(os.tmpdir());
  const engineLogs = inTmp.filter((name) => name.startsWith("pulumi.") && name.endsWith("." + engine));
  fs.writeFileSync(process.env.${REPORT_ENV}, JSON.stringify({ tmp: os.tmpdir(), state: process.env.${RUN_STATE_ENV}, written, engineLogs, inTmp }));
  expect(engineLogs).not.toEqual([]);
});
`;

/**
 * The untracked and ignored entries of the checkout (`git status --porcelain --ignored`, `??` and
 * `!!` lines), but the stack settings files of other stacks: those come and go with the runs of
 * other test files meanwhile, as do the changes of tracked files being edited.
 */
function leftInCheckout(): string[] {
  const status = spawnSync("git", ["status", "--porcelain", "--ignored"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
  });
  expect(status.status).toBe(0);
  return status.stdout
    .split("\n")
    .filter((line) => /^(\?\?|!!) /.test(line))
    .filter(
      (line) => !/[ /]Pulumi\.[^/]+\.yaml$/.test(line) || line.endsWith("Pulumi.run-home-scenario.yaml"),
    );
}

/**
 * The names in the home folder and in its `.pulumi`, for both homes when `$HOME` is not the user
 * database's (the engine's `--local` backend is the latter's), as `<folder>/<name>` lines.
 */
function homeListing(): string[] {
  const homes = [...new Set([os.homedir(), os.userInfo().homedir])];
  return homes
    .flatMap((home) => [home, path.join(home, ".pulumi")])
    .filter((folder) => fs.existsSync(folder))
    .flatMap((folder) => fs.readdirSync(folder).map((name) => `${folder}/${name}`))
    .sort();
}

describe("the test run's Pulumi home", () => {
  it("is a fresh folder of this run under the system's temporary folder, named in PULUMI_HOME", () => {
    const home = process.env.PULUMI_HOME!;
    expect(path.dirname(home)).toBe(process.env[RUN_DIR_ENV]);
    expect(path.basename(home)).toBe("pulumi-home");
    expect(path.dirname(path.dirname(home))).toBe(systemTmpdir());
    expect(path.basename(path.dirname(home))).toMatch(/^pulumi-service-run-\w{6}$/);
    expect(fs.statSync(home).isDirectory()).toBe(true);
  });

  it("gives the run a temporary folder of its own, <run folder>/tmp, named in TMPDIR, TMP and TEMP", () => {
    const tmp = path.join(process.env[RUN_DIR_ENV]!, "tmp");
    for (const name of TMP_VARS) expect(process.env[name]).toBe(tmp);
    expect(os.tmpdir()).toBe(tmp);
    expect(fs.statSync(tmp).isDirectory()).toBe(true);
    // The run folder itself is the system's temporary folder's, as it was before the setup.
    expect(systemTmpdir()).toBe(process.env[SYSTEM_TMP_ENV]);
    expect(path.dirname(process.env[RUN_DIR_ENV]!)).toBe(systemTmpdir());
    const child = spawnSync(process.execPath, ["-e", 'process.stdout.write(require("node:os").tmpdir())'], {
      encoding: "utf8",
    });
    expect(child.stdout).toBe(tmp);
  });

  it("holds the run's engine backends in a folder of the run inside .pulumi-state", () => {
    const state = process.env[RUN_STATE_ENV]!;
    expect(path.dirname(state)).toBe(path.join(REPO_ROOT, ".pulumi-state"));
    expect(path.basename(state)).toMatch(/^run-\w{6}$/);
    const backend = freshBackend("run-home");
    expect(backend).toBe(path.join(state, `run-home-${process.pid}`));
    expect(fs.readdirSync(backend)).toEqual([]);
  });

  it("keeps the engine's login (credentials.json), which ~/.pulumi does not receive", () => {
    const backend = fs.mkdtempSync(path.join(os.tmpdir(), "run-home-backend-"));
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "run-home-project-"));
    const userHome = path.join(os.userInfo().homedir, ".pulumi");
    const credentials = path.join(userHome, "credentials.json");
    const before = fs.existsSync(credentials) ? fs.statSync(credentials).mtimeMs : undefined;
    try {
      const env: NodeJS.ProcessEnv = pulumiEnv(requirePulumi());
      delete env.PULUMI_BACKEND_URL; // the login below names the backend
      const login = spawnSync("pulumi", ["login", `file://${backend}`], {
        env,
        encoding: "utf8",
        cwd: project,
      });
      expect(login.stderr).toBe("");
      expect(login.stdout).toContain(`(file://${backend})`);
      const saved = JSON.parse(
        fs.readFileSync(path.join(process.env.PULUMI_HOME!, "credentials.json"), "utf8"),
      );
      expect(saved.current).toBe(`file://${backend}`);
      expect(fs.existsSync(credentials) ? fs.statSync(credentials).mtimeMs : undefined).toBe(before);
    } finally {
      fs.rmSync(backend, { recursive: true, force: true });
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it("is removed when the run ends, whatever its outcome", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-home-jest-"));
    try {
      fs.writeFileSync(
        path.join(dir, "home.test.js"),
        'const fs = require("node:fs");\n' +
          'test("writes in its home", () => { fs.writeFileSync(process.env.PULUMI_HOME + "/left", "x"); fs.writeFileSync(process.env.PULUMI_SERVICE_TEST_STATE_DIR + "/left", "x"); console.log("HOME=" + process.env.PULUMI_HOME + " STATE=" + process.env.PULUMI_SERVICE_TEST_STATE_DIR); throw new Error("fails"); });',
      );
      writeJestConfig(dir);
      const env = { ...process.env };
      delete env.PULUMI_HOME;
      const run = runScratchJest(dir, env);
      expect(run.status).toBe(1);
      const used = /HOME=(\S+)/.exec(run.stdout + run.stderr)?.[1];
      expect(used).toMatch(new RegExp(`^${systemTmpdir()}/pulumi-service-run-\\w{6}/pulumi-home$`));
      expect(used).not.toBe(process.env.PULUMI_HOME);
      expect(fs.existsSync(path.dirname(used!))).toBe(false);
      const state = /STATE=(\S+)/.exec(run.stdout + run.stderr)?.[1];
      expect(state).toMatch(new RegExp(`^${path.join(REPO_ROOT, ".pulumi-state")}/run-\\w{6}$`));
      expect(state).not.toBe(process.env[RUN_STATE_ENV]);
      expect(fs.existsSync(state!)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it("leaves no stack settings file (Pulumi.<stack>.yaml) of its own beside the programs, and keeps those it found", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-home-settings-"));
    try {
      // A checkout of its own (SETTINGS_ROOT_ENV): this run's programs are left alone.
      const kept = path.join(dir, "examples", "typescript", "multi-env", "Pulumi.dev.yaml");
      const program = path.join(dir, "test", "fixtures", "program");
      fs.mkdirSync(path.dirname(kept), { recursive: true });
      fs.mkdirSync(program, { recursive: true });
      fs.writeFileSync(kept, "config: {}\n");
      fs.writeFileSync(path.join(program, "Pulumi.yaml"), "name: program\n");
      fs.writeFileSync(
        path.join(dir, "settings.test.js"),
        'const fs = require("node:fs");\n' +
          `test("sets a stack's config", () => { fs.writeFileSync(${JSON.stringify(path.join(program, "Pulumi.e2e.yaml"))}, "config: {}\\n"); });`,
      );
      writeJestConfig(dir);
      const runJest = () => runScratchJest(dir, { ...process.env, [SETTINGS_ROOT_ENV]: dir }).status;
      // While another run of the same programs goes on (a live process), its files may be in use: kept.
      const other = fs.mkdtempSync(path.join(REPO_ROOT, ".pulumi-state", "run-"));
      fs.writeFileSync(path.join(other, "run.json"), JSON.stringify({ pid: process.pid, root: dir }));
      try {
        expect(runJest()).toBe(0);
        expect(fs.readdirSync(program).sort()).toEqual(["Pulumi.e2e.yaml", "Pulumi.yaml"]);
      } finally {
        fs.rmSync(other, { recursive: true, force: true });
      }
      fs.rmSync(path.join(program, "Pulumi.e2e.yaml"));
      expect(runJest()).toBe(0);
      expect(fs.readdirSync(program)).toEqual(["Pulumi.yaml"]);
      expect(fs.readFileSync(kept, "utf8")).toBe("config: {}\n");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);

  it("leaves nothing in the system's temporary folder, the checkout or the home folder after a scenario that writes temporary files and runs the engine", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "run-home-scenario-"));
    const report = path.join(dir, "report.json");
    let seen: Scenario | undefined;
    try {
      fs.writeFileSync(path.join(dir, "scenario.test.js"), SCENARIO_TEST);
      writeJestConfig(dir);
      // As a run started from a shell: no run of its own yet, the system's temporary folder.
      const env: NodeJS.ProcessEnv = { ...pulumiEnv(requirePulumi()), [REPORT_ENV]: report };
      for (const name of [
        RUN_DIR_ENV,
        RUN_STATE_ENV,
        SYSTEM_TMP_ENV,
        "PULUMI_HOME",
        "PULUMI_BACKEND_URL",
        ...TMP_VARS,
      ])
        delete env[name];
      env.TMPDIR = systemTmpdir();
      const systemBefore = new Set(fs.readdirSync(systemTmpdir()));
      const checkoutBefore = leftInCheckout();
      const homeBefore = homeListing();
      const run = runScratchJest(dir, env);
      expect({ status: run.status, output: run.status === 0 ? "" : run.stderr }).toEqual({
        status: 0,
        output: "",
      });
      seen = JSON.parse(fs.readFileSync(report, "utf8")) as Scenario;
      // The scenario's temporary folder was its run's, in the system's, and went with the run.
      expect(seen.tmp).toMatch(new RegExp(`^${systemTmpdir()}/pulumi-service-run-\\w{6}/tmp$`));
      expect(path.dirname(seen.written)).toBe(seen.tmp);
      expect(seen.engineLogs.length).toBeGreaterThan(0);
      expect(fs.existsSync(path.dirname(seen.tmp))).toBe(false);
      // Nothing the scenario put in its temporary folder (its file, the engine's logs) is new in the
      // system's; entries of other processes at work meanwhile are not the scenario's.
      const gained = fs.readdirSync(systemTmpdir()).filter((name) => !systemBefore.has(name));
      expect(gained.filter((name) => seen!.inTmp.includes(name))).toEqual([]);
      expect(fs.existsSync(seen.state)).toBe(false);
      expect(leftInCheckout()).toEqual(checkoutBefore);
      expect(homeListing()).toEqual(homeBefore);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      // What a run without a temporary folder of its own left in the system's.
      if (seen && path.dirname(seen.written) === systemTmpdir())
        for (const name of [path.basename(seen.written), ...seen.engineLogs])
          fs.rmSync(path.join(systemTmpdir(), name), { force: true });
    }
  }, 150_000);
});
