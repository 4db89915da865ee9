/**
 * gitops/stack.ts, without deploying: the Pulumi CLI found (the toolchain's with its folders first
 * on PATH, else `pulumi` from PATH, else an error), a stack selected in a project folder on a
 * local file backend (Pulumi.yaml or Pulumi.yml; the CLI's environment; a folder without a project,
 * an unknown stack), and the message of a failed step (`fail`): the engine's error diagnostics,
 * else the CLI's stderr, as plain text, indented, at most 20 lines, a hint on a 401, and no secret
 * (secret stack config, SERVICE_API_KEY).
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { EngineEvent, PulumiCommand } from "@pulumi/pulumi/automation";
import { DriftError, findPulumiCommand, openStack, type OpenedStack } from "../../gitops/stack";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object itself, to stub findPulumi
import pulumiEnvModule = require("../../scripts/pulumi-env");
import { engineEnv, freshBackend, pulumiCommand, requirePulumi } from "../helpers/pulumi";
import { useTempDir } from "../helpers/temp-dir";

const tmp = useTempDir("gitops-stack-");

/** The secret config value of the stack `dev` of the project, and the API key of its environment. */
const CONFIG_SECRET = "sk_config_secret_4242";
const ENV_KEY = "sk_env_key_5678";
const PLAIN_URL = "http://plain.example:9000";

let env: Record<string, string>;
let command: PulumiCommand;
let project: string;
let opened: OpenedStack;

/** A diagnostic event of the engine. */
function diag(severity: "error" | "warning" | "info", message: string, urn?: string): EngineEvent {
  return {
    sequence: 1,
    timestamp: 0,
    diagnosticEvent: { message, color: "raw", severity, ...(urn ? { urn } : {}) },
  };
}

/** The error `opened.fail(step, err, events)` throws. */
async function failure(step: string, err: unknown, events: readonly EngineEvent[] = []): Promise<Error> {
  try {
    await opened.fail(step, err, events);
  } catch (e) {
    return e as Error;
  }
  throw new Error("fail() returned");
}

/** An error of the Automation API's CLI runs, as `CommandError` words its message. */
function commandError(stderr: string): Error {
  return new Error(
    `code: 255\n stdout: Previewing update (dev):\n stderr: ${stderr}\n err?: Error: exit 255\n`,
  );
}

beforeAll(async () => {
  const backend = freshBackend("gitops-stack");
  env = engineEnv(backend, { SERVICE_API_KEY: ENV_KEY });
  const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
  project = path.join(tmp(), "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: proj\nruntime: yaml\n");
  execFileSync(pulumi, ["stack", "init", "dev"], { cwd: project, env, stdio: "pipe" });
  execFileSync(pulumi, ["config", "set", "--secret", "service:apiKey", CONFIG_SECRET], { cwd: project, env });
  execFileSync(pulumi, ["config", "set", "service:baseUrl", PLAIN_URL], { cwd: project, env });
  command = await pulumiCommand();
  opened = await openStack({ stack: "dev", cwd: project, env, pulumiCommand: command });
}, 60_000);

describe("DriftError", () => {
  it("is an Error named DriftError (the command lines print its message alone)", () => {
    const e = new DriftError("m");
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe("DriftError");
    expect(String(e)).toBe("DriftError: m");
  });
});

describe("openStack", () => {
  it("a folder without Pulumi.yaml: a DriftError naming the folder, or the caller's error", async () => {
    const empty = path.join(tmp(), "empty");
    fs.mkdirSync(empty);
    const opts = { stack: "dev", cwd: empty, env, pulumiCommand: command };
    const message = `No Pulumi project in ${empty} (no Pulumi.yaml): pass --cwd <project folder>.`;
    const plain = openStack(opts);
    await expect(plain).rejects.toThrow(new DriftError(message));
    await expect(plain).rejects.toBeInstanceOf(DriftError);
    await expect(plain).rejects.toHaveProperty("name", "DriftError");
    class Custom extends Error {}
    const custom = openStack(opts, (m) => new Custom(m));
    await expect(custom).rejects.toBeInstanceOf(Custom);
    await expect(custom).rejects.toThrow(message);
  });

  it("selects the stack of a project in Pulumi.yml, from a relative folder, with the given CLI and environment", async () => {
    const yml = path.join(tmp(), "yml");
    fs.mkdirSync(yml);
    fs.writeFileSync(path.join(yml, "Pulumi.yml"), "name: ymlproj\nruntime: yaml\n");
    execFileSync(command.command, ["stack", "init", "dev"], { cwd: yml, env, stdio: "pipe" });
    const rel = path.relative(process.cwd(), yml);
    const s = await openStack({ stack: "dev", cwd: rel, env, pulumiCommand: command });
    expect(s.workDir).toBe(yml);
    expect(s.stack.name).toBe("dev");
    expect(s.stack.workspace.workDir).toBe(yml);
    expect(s.stack.workspace.pulumiCommand).toBe(command);
    // The caller's environment as given, update checks off: nothing else.
    expect(s.stack.workspace.envVars).toEqual({ ...env, PULUMI_SKIP_UPDATE_CHECK: "1" });
  });

  it("an unknown stack: a DriftError naming the stack, with the CLI's error", async () => {
    const missing = openStack({ stack: "nope", cwd: project, env, pulumiCommand: command });
    await expect(missing).rejects.toBeInstanceOf(DriftError);
    await expect(missing).rejects.toThrow(
      new DriftError(
        `Selecting the stack of stack "nope" failed:\n` +
          `  Command failed with exit code 6: ${command.command} stack select --stack nope --non-interactive\n` +
          `  error: no stack named 'nope' found`,
      ),
    );
  });

  it("without a CLI given: the toolchain's, its folders first on PATH", async () => {
    const dirs = requirePulumi().dirs;
    const found = await findPulumiCommand();
    expect(found.pathDirs).toEqual(dirs);
    expect(found.command.command).toBe(path.join(dirs[0], "pulumi"));

    const s = await openStack({ stack: "dev", cwd: project, env });
    expect(s.stack.workspace.pulumiCommand.command).toBe(path.join(dirs[0], "pulumi"));
    expect(s.stack.workspace.envVars).toEqual({
      ...env,
      PATH: [...dirs, env.PATH].join(path.delimiter),
      PULUMI_SKIP_UPDATE_CHECK: "1",
    });

    // An environment without PATH: the CLI's folders alone (no empty entry, which would be the current folder).
    const { PATH: _path, ...noPath } = env;
    const bare = await openStack({ stack: "dev", cwd: project, env: noPath });
    expect(bare.stack.workspace.envVars.PATH).toBe(dirs.join(path.delimiter));
    expect(bare.stack.name).toBe("dev");
  });

  it("without the toolchain's CLI: `pulumi` from PATH, no folders (the caller's PATH kept); none there: a DriftError", async () => {
    const cliDir = requirePulumi().dirs[0];
    const spy = jest.spyOn(pulumiEnvModule, "findPulumi").mockReturnValue(null);
    const savedPath = process.env.PATH;
    try {
      process.env.PATH = [cliDir, savedPath].join(path.delimiter);
      const found = await findPulumiCommand();
      expect(found.pathDirs).toEqual([]);
      expect(found.command.command).toBe("pulumi");
      // The stack selected with it, from an environment without PATH: nothing put on PATH.
      const { PATH: _path, ...noPath } = env;
      const s = await openStack({ stack: "dev", cwd: project, env: noPath });
      expect(s.stack.workspace.pulumiCommand.command).toBe("pulumi");
      expect(s.stack.workspace.envVars).toEqual({ ...noPath, PULUMI_SKIP_UPDATE_CHECK: "1" });

      process.env.PATH = path.join(tmp(), "no-such-folder");
      const none = findPulumiCommand();
      await expect(none).rejects.toBeInstanceOf(DriftError);
      await expect(none).rejects.toThrow(
        new DriftError(
          "No Pulumi CLI found: install Pulumi v3.248 or newer and put `pulumi` on PATH (or run `node scripts/ensure-pulumi.js` in this package).",
        ),
      );
    } finally {
      process.env.PATH = savedPath;
      spy.mockRestore();
    }
  });

  it("in an installed package (no scripts/pulumi-env.js above it): `pulumi` from PATH, no folders", async () => {
    const cliDir = requirePulumi().dirs[0];
    const realFs = jest.requireActual<typeof fs>("fs");
    const existsSync = realFs.existsSync;
    const toolchain = path.join("scripts", "pulumi-env.js");
    const spy = jest
      .spyOn(realFs, "existsSync")
      .mockImplementation((p) => !String(p).endsWith(toolchain) && existsSync(p));
    const savedPath = process.env.PATH;
    try {
      process.env.PATH = [cliDir, savedPath].join(path.delimiter);
      const found = await findPulumiCommand();
      expect(found.pathDirs).toEqual([]);
      expect(found.command.command).toBe("pulumi");
    } finally {
      process.env.PATH = savedPath;
      spy.mockRestore();
    }
  });
});

describe("the message of a failed step", () => {
  const URN = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/service:EventSubscription::sub";

  it("the error diagnostics, plain, each once, prefixed with the resource name; warnings and empty ones left out", async () => {
    const events: EngineEvent[] = [
      { sequence: 0, timestamp: 0, stdoutEvent: { message: "stdout line", color: "raw" } },
      diag("warning", "a warning\n", URN),
      diag("info", "some info\n"),
      diag("error", "<{%fg 1%}>boom<{%reset%}> \u001b[1;31mred\u001b[0m bold\n", URN),
      diag("error", "<{%reset%}>  \u001b[31m\u001b[0m\n", URN),
      diag("error", "<{%fg 1%}>boom<{%reset%}> \u001b[1;31mred\u001b[0m bold\n", URN),
      diag("error", "  an engine error  \n"),
    ];
    const e = await failure("The preview of the program", commandError("error: not shown"), events);
    expect(e).toBeInstanceOf(DriftError);
    expect(e.name).toBe("DriftError");
    expect(e.message).toBe(
      'The preview of the program of stack "dev" failed:\n  sub: boom red bold\n  an engine error',
    );
  });

  it("without error diagnostics: the CLI's stderr, plain, blank lines and trailing spaces left out", async () => {
    const e = await failure(
      "The refresh",
      commandError("error: first <{%reset%}>line   \n\n   second, indented\n\u001b[31mthird\u001b[0m\n"),
      [diag("warning", "only a warning", URN)],
    );
    expect(e.message).toBe(
      'The refresh of stack "dev" failed:\n  error: first line\n     second, indented\n  third',
    );
  });

  it("at most 20 lines of stderr; stderr to the end of the message when no err?: follows", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `line ${i + 1}`);
    const e = await failure("Step", new Error(`code: 1\n stdout: \n stderr: ${lines.join("\n")}`));
    expect(e.message).toBe(
      `Step of stack "dev" failed:\n${lines
        .slice(0, 20)
        .map((l) => `  ${l}`)
        .join("\n")}`,
    );
  });

  it("stderr right after `stderr:`, and before an `err?:` however indented", async () => {
    const e = await failure("Step", new Error("code: 1\n stdout: out\n stderr:boom\n    err?: exit 1"));
    expect(e.message).toBe('Step of stack "dev" failed:\n  boom');
  });

  it("an error without stderr, or not an Error: its whole text, trimmed", async () => {
    const e = await failure("Step", new Error("   spaced out\n\n  second  \n"));
    expect(e.message).toBe('Step of stack "dev" failed:\n  spaced out\n    second');
    const s = await failure("Step", "  a thrown string  ");
    expect(s.message).toBe('Step of stack "dev" failed:\n  a thrown string');
  });

  it("a 401: a hint on the API key", async () => {
    const e = await failure("The refresh", new Error("x"), [
      diag("error", "reading: HTTP 401 Unauthorized", URN),
      diag("error", "status 4010 is not one"),
    ]);
    expect(e.message).toBe(
      'The refresh of stack "dev" failed:\n' +
        "  sub: reading: HTTP 401 Unauthorized\n" +
        "  status 4010 is not one\n" +
        "  The service refused the API key: set a valid one with `pulumi config set --secret service:apiKey <key>`" +
        " (or SERVICE_API_KEY when the stack's config has none).",
    );
    const other = await failure("The refresh", new Error("HTTP 4010 and 1401"));
    expect(other.message).toBe('The refresh of stack "dev" failed:\n  HTTP 4010 and 1401');
  });

  it("secret config values and SERVICE_API_KEY are removed, plain config values kept", async () => {
    const e = await failure(
      "The refresh",
      commandError(`error: key ${CONFIG_SECRET} at ${PLAIN_URL} (env key ${ENV_KEY})`),
    );
    expect(e.message).toBe(
      `The refresh of stack "dev" failed:\n  error: key [redacted] at ${PLAIN_URL} (env key [redacted])`,
    );
    const d = await failure("The refresh", new Error("x"), [diag("error", `bad key ${CONFIG_SECRET}`, URN)]);
    expect(d.message).toBe('The refresh of stack "dev" failed:\n  sub: bad key [redacted]');
  });
});

// Imported here rather than at the top so that the tests above keep their lines (Stryker's
// incremental run tells tests apart by their place).
import { findToolchainModule } from "../../gitops/stack";

describe("the toolchain's CLI, looked for from the package's folder", () => {
  const root = path.resolve(__dirname, "..", "..");
  /** fs.existsSync answering `answer(p)` for the files of a toolchain, the real answer for the rest. */
  const existsWhere = (answer: (p: string) => boolean | undefined) => {
    const realFs = jest.requireActual<typeof fs>("fs");
    const existsSync = realFs.existsSync;
    return jest.spyOn(realFs, "existsSync").mockImplementation((p) => answer(String(p)) ?? existsSync(p));
  };

  it("found one folder up from the sources and two from dist/gitops", () => {
    expect(findToolchainModule(path.join(root, "gitops"))).toBe(pulumiEnvModule);
    expect(findToolchainModule(path.join(root, "dist", "gitops"))).toBe(pulumiEnvModule);
  });

  it("a scripts/pulumi-env.js without a package.json beside it is not a package's", () => {
    // Only the package's own toolchain file is left, without its package.json (a checkout that
    // holds this one, as the mutation run's sandbox does, has its own further up: hidden too).
    const own = path.join(root, "scripts", "pulumi-env.js");
    const spy = existsWhere((p) =>
      p === path.join(root, "package.json") ||
      (p.endsWith(path.join("scripts", "pulumi-env.js")) && p !== own)
        ? false
        : undefined,
    );
    try {
      expect(findToolchainModule(path.join(root, "gitops"))).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
  });

  it("installed in a project's node_modules: the project's own scripts/pulumi-env.js (four folders up) is not taken", () => {
    const project = path.join(path.parse(root).root, "home", "user", "infra");
    const files = [path.join(project, "scripts", "pulumi-env.js"), path.join(project, "package.json")];
    const spy = existsWhere((p) => (files.includes(p) ? true : p.startsWith(project) ? false : undefined));
    try {
      const installed = path.join(project, "node_modules", "pulumi-service", "dist", "gitops");
      expect(findToolchainModule(installed)).toBeUndefined();
    } finally {
      spy.mockRestore();
    }
  });
});
