#!/usr/bin/env node
/**
 * `service-recover`: settles the pending creates an interrupted `pulumi up` left in a stack
 * (see gitops/recovery.ts and the README's Reliability section).
 *
 * ```text
 * pulumi stack export --show-secrets --file state.json
 * service-recover state.json fixed.json [--base-url URL] [--since TIME --found FILE]
 * pulumi stack import --file fixed.json
 * service-recover --version | --help
 * ```
 *
 * Reads the API key from `SERVICE_API_KEY` and the base URL from `--base-url` or
 * `SERVICE_BASE_URL` (the stack's `service:apiKey` / `service:baseUrl`). Prints one line per
 * pending operation on stderr (`adopt`, `clear` or `keep`, the URN, the ID, why) and writes the
 * edited stack to the output file. Exit codes ({@link EXIT_CODES}, docs/cli.md): 0 every pending
 * create was settled; 2 some are kept for a person to decide (listed; the output file is written
 * anyway); 1 error (nothing written). Both files hold the stack's secrets in clear: delete them
 * afterwards. `--version` (`-V`) prints the package's version; `--help` prints the usage on
 * stdout (exit 0).
 *
 * `--since TIME` (RFC 3339, when the interrupted run started) is for a run that skipped
 * checkpoints (`PULUMI_SKIP_CHECKPOINTS=true`), which leaves no pending create: it also lists, one
 * `found` line each on stderr, the event subscriptions and destinations the service made since
 * then that the stack holds nowhere (see `findUnrecorded` in gitops/recovery.ts), and with
 * `--found FILE` writes them to FILE as JSON (`{ "since", "resources": [{ "kind", "id",
 * "createdAt", "description" }] }`), for the `up` that adopts them:
 * `SERVICE_ADOPT_FROM=FILE pulumi up --refresh`. They do not change the exit code, and the output
 * stack does not hold them: only that `up` has the program's inputs, which say which resource is
 * which.
 *
 * @packageDocumentation
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Command } from "commander";
import { parseCommandLine, runAsProcess, wireCommand } from "service-cli-kit";
import { EXIT_CODES, packageVersion, processIo, type CliIo } from "./io";
import type { ExportedStack } from "./recovery";

/**
 * Runs `service-recover` with `argv` (as `process.argv`: node, script, arguments…).
 *
 * @returns the exit code ({@link EXIT_CODES}): 0 (every pending create settled, or after
 *   `--help` and `--version`), 2 (some kept for a person to decide), 1 (a bad command line).
 * @throws Error when the input is not an exported stack, or the service cannot be asked (the
 *   caller prints it and exits 1; nothing is written then).
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const program = wireCommand(new Command(), io)
    .name("service-recover")
    .description(
      "Settle the pending creates of an interrupted `pulumi up`: adopt the resources the service holds, clear the others",
    )
    .version(packageVersion())
    .argument("<exported>", "the stack, from `pulumi stack export --show-secrets --file <exported>`")
    .argument("<output>", "where to write the edited stack, for `pulumi stack import --file <output>`")
    .option("--base-url <url>", "base URL of the service (default: env SERVICE_BASE_URL)")
    .option(
      "--since <time>",
      "when the interrupted run started (RFC 3339): also list what the service made since then that the stack lacks (runs that skipped checkpoints)",
    )
    .option(
      "--found <file>",
      "with --since: write what was found to this file, for SERVICE_ADOPT_FROM=<file> pulumi up",
    );
  const stopped = await parseCommandLine(() => program.parse([...argv]));
  if (stopped !== undefined) return stopped;
  const [input, output] = program.args;
  const {
    baseUrl,
    since,
    found: foundFile,
  } = program.opts<{ baseUrl?: string; since?: string; found?: string }>();
  const sinceMs = since === undefined ? undefined : parseSince(since);
  if (foundFile !== undefined && since === undefined)
    throw new Error("--found needs --since (when the interrupted run started)");

  const stack = JSON.parse(readFileSync(input, "utf8")) as ExportedStack;
  if (!stack?.deployment) throw new Error(`${input} is not the output of \`pulumi stack export\``);
  // The client and the recovery (undici, zod) load once the command line is good: `--version`,
  // `--help` and a bad command line answer at once.
  const { ServiceClient } = await import("../client");
  const { applyRecovery, findUnrecorded, planRecovery } = await import("./recovery");
  const client = new ServiceClient({
    apiKey: io.env.SERVICE_API_KEY,
    baseUrl: baseUrl ?? io.env.SERVICE_BASE_URL,
    userAgent: "pulumi-service-recover",
  });
  try {
    const decisions = await planRecovery(stack, client);
    for (const d of decisions) {
      await io.stderr(`${d.action.padEnd(5)}  ${d.urn}${d.id ? `  ${d.id}` : ""}  (${d.reason})\n`);
    }
    writeFileSync(output, JSON.stringify(applyRecovery(stack, decisions), null, 2) + "\n", { mode: 0o600 });
    const counts = { adopt: 0, clear: 0, keep: 0 };
    for (const d of decisions) counts[d.action]++;
    await io.stderr(
      `service-recover: ${counts.adopt} adopted, ${counts.clear} cleared, ${counts.keep} kept; wrote ${output}\n`,
    );
    if (sinceMs !== undefined) {
      const found = await findUnrecorded(stack, client, sinceMs);
      for (const f of found) {
        await io.stderr(`found  ${f.kind} ${f.id}  made ${f.createdAt}  ${JSON.stringify(f.description)}\n`);
      }
      if (foundFile !== undefined) {
        writeFileSync(foundFile, JSON.stringify({ since, resources: found }, null, 2) + "\n");
      }
      await io.stderr(
        `service-recover: ${found.length} made on the service since ${since} that the stack does not hold` +
          (foundFile !== undefined
            ? `; wrote ${foundFile}: after \`pulumi stack import\`, \`SERVICE_ADOPT_FROM=${foundFile} pulumi up --refresh\` adopts those the program declares\n`
            : `; give --found FILE to write them for \`SERVICE_ADOPT_FROM=FILE pulumi up --refresh\`, which adopts those the program declares\n`),
      );
    }
    return decisions.some((d) => d.action === "keep" && d.operation === "creating")
      ? EXIT_CODES.attention
      : EXIT_CODES.ok;
  } finally {
    await client.close();
  }
}

/**
 * The value of `--since`: an RFC 3339 date and time with a zone.
 * @returns milliseconds since the Unix epoch.
 * @throws Error naming the option when the value is not one.
 */
function parseSince(value: string): number {
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/i.test(value)
    ? Date.parse(value)
    : NaN;
  if (Number.isNaN(ms)) {
    throw new Error(
      `--since must be an RFC 3339 date and time with a zone, such as 2026-11-24T13:47:00Z, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

// Runs only when the file is the process's entry point (`service-recover`), never under jest: the
// reliability scenarios (test/reliability/interrupted.test.ts) run the built command line.
// Stryker disable next-line all: the process entry point, see above
if (require.main === module) runAsProcess("service-recover", () => main(process.argv));
