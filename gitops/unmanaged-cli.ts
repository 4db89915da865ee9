/**
 * `service-drift unmanaged`: the command line of the unmanaged check (gitops/unmanaged.ts).
 *
 * ```text
 * service-drift unmanaged --stack [DIR:]STACK [--stack …] [--backend-url [DIR=]URL …]
 *     [--base-url URL] [--api-key-env VAR …] [--exclude-id ID …] [--exclude-description-prefix TEXT …] [--import-file PATH]
 *     [--format text|json|markdown] [--json]
 * ```
 *
 * - `--stack [DIR:]STACK` (repeatable, at least one): a stack whose state counts, in the project
 *   folder DIR (default: the current directory); read with `pulumi stack export` there, so on the
 *   backend `pulumi` uses in DIR (`PULUMI_BACKEND_URL`, else the project's `backend.url`, else
 *   the login).
 * - `--backend-url [DIR=]URL` (repeatable): the backend of the stacks in project folder DIR (of
 *   every stack without `DIR=`), as `PULUMI_BACKEND_URL` for their `pulumi stack export`, so
 *   stacks of several backends are read in one run.
 * - The account: the API key in `SERVICE_API_KEY`, the base URL `--base-url` or
 *   `SERVICE_BASE_URL`. `--api-key-env VAR` (repeatable) lists instead the accounts whose keys
 *   are in those variables, each named by its variable in the output (keys never are printed).
 * - Exit codes: 0 nothing unmanaged, 2 unmanaged resources, 1 error (message on stderr; with
 *   `--format json` also `{ "error": "…", "exitCode": 1 }` on stdout).
 *
 * Loads the check, the Automation API and the client only when it runs.
 *
 * @packageDocumentation
 */
import * as path from "path";
import { Command } from "commander";
import { withFormatOptions } from "./format-option";
import { progressWriter } from "service-cli-kit";
import { printFailure, printResult, redact, type CliIo } from "./io";
import type { parseStackRef, ServiceAccount, StackRef, UnmanagedPhase } from "./unmanaged";

/** Options of `service-drift unmanaged` as commander parses them. */
export interface UnmanagedFlags {
  stack?: string[];
  backendUrl?: string[];
  baseUrl?: string;
  apiKeyEnv?: string[];
  excludeId?: string[];
  excludeDescriptionPrefix?: string[];
  importFile?: string;
  format: "text" | "json" | "markdown";
  json?: boolean;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/**
 * The accounts of the flags and environment: `--api-key-env` variables, else `SERVICE_API_KEY`.
 * @throws Error naming the missing variable or base URL.
 */
export function accountsOf(
  flags: Pick<UnmanagedFlags, "baseUrl" | "apiKeyEnv">,
  env: Record<string, string | undefined>,
): ServiceAccount[] {
  const baseUrl = flags.baseUrl ?? env.SERVICE_BASE_URL;
  if (!baseUrl) throw new Error("No base URL: pass --base-url <url> or set SERVICE_BASE_URL.");
  const vars = flags.apiKeyEnv?.length ? flags.apiKeyEnv : ["SERVICE_API_KEY"];
  return vars.map((name) => {
    const apiKey = env[name];
    if (!apiKey) throw new Error(`No API key: set ${name} to the key of the account to list.`);
    return { name, baseUrl, apiKey };
  });
}

const STEPS: Record<UnmanagedPhase, string> = {
  states: "reading the stacks' states",
  list: "listing account",
  done: "done",
};

/**
 * The stacks of `--stack` with the backends of `--backend-url` (see the module comment).
 * @throws UnmanagedError for a `--backend-url DIR=URL` whose DIR names no `--stack`'s folder.
 */
export function stackRefsOf(
  flags: Pick<UnmanagedFlags, "stack" | "backendUrl">,
  cwd: string,
  parse: typeof parseStackRef,
): StackRef[] {
  const refs = (flags.stack ?? []).map((s) => parse(s, cwd));
  for (const spec of flags.backendUrl ?? []) {
    const eq = spec.indexOf("=");
    const scheme = spec.indexOf("://");
    const dir = eq >= 0 && (scheme < 0 || eq < scheme) ? path.resolve(cwd, spec.slice(0, eq)) : undefined;
    const url = dir === undefined ? spec : spec.slice(eq + 1);
    const chosen = refs.filter((r) => dir === undefined || r.cwd === dir);
    if (dir !== undefined && chosen.length === 0)
      throw new Error(`--backend-url ${dir}=…: no --stack is in the folder ${dir}.`);
    for (const r of chosen) r.env = { ...r.env, PULUMI_BACKEND_URL: url };
  }
  return refs;
}

/** Runs the check with `flags`; prints the report in its format. @returns the exit code. */
export async function unmanaged(flags: UnmanagedFlags, io: CliIo): Promise<number> {
  const format = flags.json ? "json" : flags.format;
  const keyVars = flags.apiKeyEnv?.length ? flags.apiKeyEnv : ["SERVICE_API_KEY"];
  const secrets = keyVars.map((v) => io.env[v] ?? "");
  try {
    const accounts = accountsOf(flags, io.env);
    const { parseStackRef, runUnmanagedCheck } = await import("./unmanaged");
    const { formatUnmanagedMarkdown, formatUnmanagedText } = await import("./unmanaged-format");
    const write = progressWriter(io, "service-drift unmanaged");
    const report = await runUnmanagedCheck({
      stacks: stackRefsOf(flags, process.cwd(), parseStackRef),
      accounts,
      exclude: { ids: flags.excludeId ?? [], descriptionPrefixes: flags.excludeDescriptionPrefix ?? [] },
      ...(flags.importFile !== undefined ? { importFile: path.resolve(flags.importFile) } : {}),
      env: io.env as Record<string, string>,
      onProgress: write && ((phase, detail) => write(detail ? `${STEPS[phase]} ${detail}` : STEPS[phase])),
    });
    return await printResult(io, format, report, {
      text: formatUnmanagedText,
      markdown: formatUnmanagedMarkdown,
    });
  } catch (err) {
    const message = redact(err instanceof Error ? err.message : String(err), secrets);
    return printFailure(io, format, "service-drift unmanaged", "The unmanaged check", message);
  }
}

/**
 * The `unmanaged` subcommand of `service-drift`; `setCode` receives its exit code.
 */
export function unmanagedCommand(io: CliIo, setCode: (code: number) => void): Command {
  return withFormatOptions(new Command("unmanaged"))
    .description(
      "List the event subscriptions and destinations of the account that are in none of the given stacks' " +
        "states (abuse reports cannot be listed). Exit code 0: none; 2: some; 1: error.",
    )
    .option(
      "-s, --stack <[dir:]stack>",
      "a stack whose state counts, in project folder dir (repeatable)",
      collect,
    )
    .option(
      "--backend-url <[dir=]url>",
      "backend of the stacks in project folder dir, or of every stack (repeatable; default: as pulumi finds it)",
      collect,
    )
    .option("--base-url <url>", "base URL of the service (default: SERVICE_BASE_URL)")
    .option(
      "--api-key-env <var>",
      "list the account whose API key is in this variable (repeatable; default: SERVICE_API_KEY)",
      collect,
    )
    .option("--exclude-id <id>", "leave this resource out on purpose (repeatable)", collect)
    .option(
      "--exclude-description-prefix <text>",
      "leave out resources whose description starts with text (repeatable)",
      collect,
    )
    .option("--import-file <path>", "write the unmanaged resources as a `pulumi import --file` file")
    .action(async (flags: UnmanagedFlags) => {
      setCode(await unmanaged(flags, io));
    });
}
