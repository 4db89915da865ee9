/**
 * `service-drift preview`: the preview summary and its guard on the command line.
 *
 * ```text
 * service-drift preview --stack dev [--cwd DIR] [--format text|json|markdown] [--json]
 *                       [--fail-on replace,delete] [--fail-on-type EventDestination,...]
 *                       [--fail-on-name audit,...]
 *                       [--policy-pack DIR [--policy-pack-config FILE]]...
 * ```
 *
 * Runs `pulumi preview` of the stack (`--stack`, else `PULUMI_STACK`; no refresh; nothing
 * changes) and prints each resource `pulumi up` would create, update, replace or delete with its
 * changed inputs, before (state) and after (program), secrets `[secret]`: a table (`text`), one
 * JSON document ({@link PreviewSummary}, `--format json` or `--json`), or a pull-request comment
 * (`markdown`). The guard: `--fail-on` lists operations (`create`, `update`, `replace`,
 * `delete`; comma-separated or repeated) to refuse, `--fail-on-type` and `--fail-on-name` narrow
 * it to resource types (`EventDestination` or a full type token) and names. `--policy-pack`
 * (repeatable) runs a policy pack in the preview, `--policy-pack-config` gives the config file of
 * each, in order: their violations are listed. Exit codes: 0 the guard passes (or none) and no
 * mandatory violation; 2 the guard refuses or a mandatory violation; 1 error (message on stderr, no secret; with
 * `--format json` also `{ "error": "…", "exitCode": 1 }` on stdout).
 *
 * @packageDocumentation
 */
import * as path from "path";
import { Option, type Command } from "commander";
import type { GuardOp, PreviewSummary } from "./preview";
import { messageOf, printFailure, printResult, redact, type CliIo } from "./io";

/** Options of `service-drift preview` as commander parses them. */
interface PreviewFlags {
  stack?: string;
  cwd?: string;
  json?: boolean;
  format: "text" | "json" | "markdown";
  failOn?: string[];
  failOnType?: string[];
  failOnName?: string[];
  policyPack?: string[];
  policyPackConfig?: string[];
}

/** Commander's parser of a repeatable option. */
function repeated(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Commander's parser of a comma-separated, repeatable list option. */
function list(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== ""),
  ];
}

/** Runs `service-drift preview` with parsed `flags`: the exit code (0, 2 or 1). */
export async function previewCommand(flags: PreviewFlags, io: CliIo): Promise<number> {
  const secrets = [io.env.SERVICE_API_KEY ?? ""];
  const format = flags.json ? "json" : flags.format;
  try {
    const stack = flags.stack ?? (io.env.PULUMI_STACK || undefined);
    if (!stack)
      throw new Error("Missing --stack <name> (or PULUMI_STACK): which stack to preview (e.g. --stack dev).");
    const { checkGuardRule, runPreviewSummary } = await import("./preview");
    const guard =
      flags.failOn || flags.failOnType || flags.failOnName
        ? checkGuardRule({
            failOn: (flags.failOn ?? []) as GuardOp[],
            types: flags.failOnType ?? [],
            names: flags.failOnName ?? [],
          })
        : undefined;
    const { formatPreview, formatPreviewMarkdown } = await import("./preview-format");
    const result: PreviewSummary = await runPreviewSummary({
      stack,
      cwd: path.resolve(flags.cwd ?? process.cwd()),
      env: io.env as Record<string, string>,
      guard,
      ...(flags.policyPack ? { policyPacks: flags.policyPack.map((p) => path.resolve(p)) } : {}),
      ...(flags.policyPackConfig
        ? { policyPackConfigs: flags.policyPackConfig.map((p) => path.resolve(p)) }
        : {}),
    });
    return await printResult(io, format, result, { markdown: formatPreviewMarkdown, text: formatPreview });
  } catch (err) {
    return printFailure(io, format, "service-drift preview", "The preview", redact(messageOf(err), secrets));
  }
}

/**
 * Adds the `preview` subcommand to `program` (the `service-drift` command); `done` receives its
 * exit code. The Automation API is loaded only when the command runs.
 */
export function addPreviewCommand(program: Command, io: CliIo, done: (code: number) => void): void {
  program
    .command("preview")
    .description(
      "Summary of `pulumi preview` per resource (create, update, replace, delete; changed inputs before " +
        "and after, secrets masked) and a guard. Exit code 0: the guard passes (or none); 2: it refuses; 1: error.",
    )
    .option("-s, --stack <name>", "stack to preview, e.g. dev (default: env PULUMI_STACK)")
    .option("-C, --cwd <dir>", "folder of the Pulumi project (Pulumi.yaml)", process.cwd())
    .addOption(
      new Option("--format <format>", "text (a table), json (one document) or markdown (a PR comment)")
        .choices(["text", "json", "markdown"])
        .default("text"),
    )
    .option("--json", "the same as --format json")
    .option(
      "--fail-on <ops>",
      "refuse these operations: create, update, replace, delete (comma-separated)",
      list,
    )
    .option(
      "--fail-on-type <types>",
      "only for these resource types, e.g. EventDestination (comma-separated)",
      list,
    )
    .option("--fail-on-name <names>", "only for these resource names (comma-separated)", list)
    .option("--policy-pack <dir>", "run this policy pack in the preview (repeatable)", repeated)
    .option(
      "--policy-pack-config <file>",
      "JSON config of the --policy-pack of the same position (repeatable)",
      repeated,
    )
    .action(async (flags: PreviewFlags, command: Command) => {
      done(await previewCommand(withParentFlags(flags, command), io));
    });
}

/**
 * `flags` with the options `service-drift` itself shares with `preview` (`--stack`, `--cwd`,
 * `--format`, `--json`) taken from the parent when given there: commander gives an option the
 * parent defines to the parent, before or after the subcommand's name.
 */
function withParentFlags(flags: PreviewFlags, command: Command): PreviewFlags {
  const parent = command.parent;
  if (!parent) return flags;
  const out: Record<string, unknown> = { ...flags };
  for (const [key, value] of Object.entries(parent.opts()))
    if (parent.getOptionValueSource(key) === "cli" && command.getOptionValueSource(key) !== "cli")
      out[key] = value;
  return out as unknown as PreviewFlags;
}
