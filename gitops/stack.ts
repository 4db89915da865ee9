/**
 * What the Automation API commands of `service-drift` (the drift report, the preview summary)
 * share: finding the Pulumi CLI, selecting a stack of a project folder, and turning a failed
 * engine operation into a message for users that holds no secret.
 *
 * @packageDocumentation
 */
import * as fs from "fs";
import * as path from "path";
import { LocalWorkspace, PulumiCommand, type EngineEvent, type Stack } from "@pulumi/pulumi/automation";
import { nameOf } from "./events";
import { redact } from "./io";

/**
 * An error of the drift report (and of the other commands on a stack): its message is meant for
 * users and holds no secret (secret config values and `SERVICE_API_KEY` are removed, see
 * {@link redact}).
 */
export class DriftError extends Error {
  override name = "DriftError";
}

/** Removes Pulumi's color directives (`<{%reset%}>`) and ANSI escapes from a message. */
function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/<\{%[^%]*%\}>/g, "").replace(/\u001b\[[0-9;]*m/g, "");
}

/**
 * The Pulumi CLI to drive: the one this package's toolchain finds (`scripts/pulumi-env.js`: a
 * compatible `pulumi` on `PATH`, else the project's cache), else `pulumi` from `PATH`.
 *
 * @returns the command, and folders to put first on `PATH` (the language host and the
 *   dynamic-provider shim live next to the CLI).
 * @throws DriftError when no Pulumi CLI can be run.
 */
export async function findPulumiCommand(): Promise<{ command: PulumiCommand; pathDirs: string[] }> {
  const envModule = findToolchainModule();
  if (envModule) {
    const found = envModule.findPulumi() as { dirs: string[] } | null;
    if (found) {
      return {
        command: await PulumiCommand.get({ root: path.dirname(found.dirs[0]) }),
        pathDirs: found.dirs,
      };
    }
  }
  try {
    return { command: await PulumiCommand.get(), pathDirs: [] };
  } catch {
    throw new DriftError(
      "No Pulumi CLI found: install Pulumi v3.248 or newer and put `pulumi` on PATH (or run `node scripts/ensure-pulumi.js` in this package).",
    );
  }
}

/**
 * The `PATH` to run the Pulumi CLI with: `pathDirs` (from {@link findPulumiCommand}) first, then
 * `basePath` when it is set; an empty entry would stand for the current folder, so none is added.
 */
export function cliPath(pathDirs: readonly string[], basePath: string | undefined): string {
  return [...pathDirs, ...(basePath ? [basePath] : [])].join(path.delimiter);
}

/**
 * `scripts/pulumi-env.js` of this package (the toolchain's CLI), found from `from` (default: this
 * file's folder, in the sources or in `dist/`) and at most three folders up: a folder holding
 * both `scripts/pulumi-env.js` and `package.json`. Installed under a project's `node_modules`,
 * the package has none, and the project's own folder (four up from `dist/gitops/`) is not looked in.
 * @returns the loaded module, or undefined when none is found.
 */
export function findToolchainModule(from: string = __dirname): { findPulumi: () => unknown } | undefined {
  for (let dir = from, i = 0; i < 4; i += 1, dir = path.dirname(dir)) {
    const candidate = path.join(dir, "scripts", "pulumi-env.js");
    if (fs.existsSync(candidate) && fs.existsSync(path.join(dir, "package.json"))) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      return require(candidate) as { findPulumi: () => unknown };
    }
  }
  return undefined;
}

/** Secret values to keep out of every message: secret stack config values and `SERVICE_API_KEY`. */
async function secretsOf(
  stack: Stack | undefined,
  env: Record<string, string | undefined>,
): Promise<string[]> {
  const secrets = [env.SERVICE_API_KEY, process.env.SERVICE_API_KEY].filter((s): s is string => !!s);
  if (stack) {
    try {
      const config = await stack.getAllConfig();
      for (const v of Object.values(config)) if (v.secret && v.value) secrets.push(v.value);
    } catch {
      // No readable config: nothing more to hide.
    }
  }
  return secrets;
}

/** Error diagnostics of an operation, one line each, prefixed with the resource name. */
function errorDiagnostics(events: readonly EngineEvent[]): string[] {
  const lines: string[] = [];
  for (const e of events) {
    const d = e.diagnosticEvent;
    if (!d || d.severity !== "error") continue;
    const msg = plain(d.message).trim();
    if (!msg) continue;
    lines.push(d.urn ? `${nameOf(d.urn)}: ${msg}` : msg);
  }
  return [...new Set(lines)];
}

/** The useful part of an Automation API error: its stderr, else its message. */
function commandErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const m = /stderr:\s*([\s\S]*?)(?:\n\s*err\?:|$)/.exec(text);
  const body = (m ? m[1] : text).trim();
  return plain(body)
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "")
    .slice(0, 20)
    .join("\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}

/** Where and how to run a command on a stack: see {@link openStack}. */
export interface StackOptions {
  /** Stack name (as `pulumi stack ls` shows it), e.g. `dev`. */
  stack: string;
  /** The Pulumi project folder (holding `Pulumi.yaml`). Default: the current directory. */
  cwd?: string;
  /** Environment of the Pulumi CLI. Default: this process's environment. */
  env?: Record<string, string>;
  /** The Pulumi CLI to use. Default: see {@link findPulumiCommand}. */
  pulumiCommand?: PulumiCommand;
}

/** A selected stack, see {@link openStack}. */
export interface OpenedStack {
  /** The Automation API stack. */
  stack: Stack;
  /** Absolute path of the project folder. */
  workDir: string;
  /**
   * Throws the error for a failed `step` (e.g. "The preview of the program"): the engine's error
   * diagnostics among `events`, else the CLI's stderr, a hint on a 401, secrets removed.
   */
  fail(step: string, err: unknown, events: readonly EngineEvent[]): Promise<never>;
}

/**
 * Selects the stack `opts.stack` of the project in `opts.cwd` with the Pulumi CLI (see
 * {@link findPulumiCommand}), update checks off.
 *
 * @param makeError - the error to throw, from its message (default: a {@link DriftError}).
 * @throws that error when the folder holds no Pulumi project, no CLI is found or the stack cannot
 *   be selected (unknown stack, backend not reachable…); its message names the stack.
 */
export async function openStack(
  opts: StackOptions,
  makeError: (message: string) => Error = (m) => new DriftError(m),
): Promise<OpenedStack> {
  const workDir = path.resolve(opts.cwd ?? process.cwd());
  const baseEnv = opts.env ?? (process.env as Record<string, string>);
  if (!fs.existsSync(path.join(workDir, "Pulumi.yaml")) && !fs.existsSync(path.join(workDir, "Pulumi.yml"))) {
    throw makeError(`No Pulumi project in ${workDir} (no Pulumi.yaml): pass --cwd <project folder>.`);
  }
  let command = opts.pulumiCommand;
  let envVars: Record<string, string> = {};
  if (!command) {
    const found = await findPulumiCommand();
    command = found.command;
    if (found.pathDirs.length > 0) {
      envVars = { PATH: cliPath(found.pathDirs, baseEnv.PATH) };
    }
  }
  if (opts.env) envVars = { ...opts.env, ...envVars };
  envVars.PULUMI_SKIP_UPDATE_CHECK = "1";

  let stack: Stack | undefined;
  const fail = async (step: string, err: unknown, events: readonly EngineEvent[]): Promise<never> => {
    const diags = errorDiagnostics(events);
    let detail = diags.length > 0 ? diags.join("\n") : commandErrorText(err);
    if (/\b401\b/.test(detail)) {
      detail +=
        "\nThe service refused the API key: set a valid one with `pulumi config set --secret service:apiKey <key>`" +
        " (or SERVICE_API_KEY when the stack's config has none).";
    }
    const secrets = await secretsOf(stack, { ...baseEnv, ...envVars });
    throw makeError(redact(`${step} of stack "${opts.stack}" failed:\n${indent(detail)}`, secrets));
  };
  try {
    stack = await LocalWorkspace.selectStack(
      { stackName: opts.stack, workDir },
      { pulumiCommand: command, envVars },
    );
  } catch (err) {
    await fail("Selecting the stack", err, []);
  }
  return { stack: stack as Stack, workDir, fail };
}
