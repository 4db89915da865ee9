/**
 * The output options every check of `service-drift` takes: `--format text|json|markdown`
 * (default `text`) and `--json`, the same as `--format json`.
 *
 * @packageDocumentation
 */
import { Option, type Command } from "commander";

/** Adds `--format` and `--json` to `command`. @returns `command`, for chaining. */
export function withFormatOptions<C extends Command>(command: C): C {
  command.addOption(
    new Option("--format <format>", "text (a table), json (one document) or markdown (a comment)")
      .choices(["text", "json", "markdown"])
      .default("text"),
  );
  command.option("--json", "the same as --format json");
  return command;
}
