/**
 * The test run's own Pulumi home and backends folder (test/helpers/global-setup.ts,
 * global-teardown.ts): engines the tests start keep their credentials, workspaces and plugins
 * there, never in this user's `~/.pulumi`, their stacks in a folder of the run, and both folders
 * are gone when the run ends, as are the stack settings files the run wrote beside the programs.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { RUN_DIR_ENV, RUN_STATE_ENV } from "../helpers/global-setup";
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

describe("the test run's Pulumi home", () => {
  it("is a fresh folder of this run under the system's temporary folder, named in PULUMI_HOME", () => {
    const home = process.env.PULUMI_HOME!;
    expect(path.dirname(home)).toBe(process.env[RUN_DIR_ENV]);
    expect(path.basename(home)).toBe("pulumi-home");
    expect(path.dirname(path.dirname(home))).toBe(os.tmpdir());
    expect(path.basename(path.dirname(home))).toMatch(/^pulumi-service-run-\w{6}$/);
    expect(fs.statSync(home).isDirectory()).toBe(true);
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
      const run = spawnSync(
        process.execPath,
        [JEST, "--config", path.join(dir, "jest.config.js"), "--useStderr"],
        {
          cwd: dir,
          encoding: "utf8",
          env,
          timeout: 120_000,
        },
      );
      expect(run.status).toBe(1);
      const used = /HOME=(\S+)/.exec(run.stdout + run.stderr)?.[1];
      expect(used).toMatch(new RegExp(`^${os.tmpdir()}/pulumi-service-run-\\w{6}/pulumi-home$`));
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
      const kept = path.join(dir, "examples", "multi-env", "Pulumi.dev.yaml");
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
      const runJest = () =>
        spawnSync(process.execPath, [JEST, "--config", path.join(dir, "jest.config.js")], {
          cwd: dir,
          encoding: "utf8",
          env: { ...process.env, [SETTINGS_ROOT_ENV]: dir },
          timeout: 120_000,
        }).status;
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
});
