/**
 * The readable (table) form of a {@link DriftReport}, printed by `service-drift` without
 * `--json`. Values are shown as compact JSON, cut at 60 characters; secrets are
 * already `[secret]` in the report.
 *
 * @packageDocumentation
 */
import type { DriftReport } from "./drift";

const MAX_CELL = 60;

/** Compact JSON of a value for a table cell, cut to {@link MAX_CELL} characters. */
export function cell(value: unknown): string {
  const text =
    value === undefined
      ? "-"
      : typeof value === "string" && value === "[secret]"
        ? value
        : JSON.stringify(value);
  const oneLine = (text ?? "null").replace(/\s+/g, " ");
  return oneLine.length > MAX_CELL ? `${oneLine.slice(0, MAX_CELL - 1)}…` : oneLine;
}

/**
 * Lays out rows as columns separated by two spaces, the first row being the header.
 * @param rows - rows of cells (strings), all of the same length.
 */
export function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => [...r[i]].length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (i === r.length - 1 ? c : c + " ".repeat(widths[i] - [...c].length)))
        .join("  ")
        .trimEnd(),
    )
    .map((l) => `  ${l}`)
    .join("\n");
}

/** The whole report as text: drift first, then pending program changes, then the verdict. */
export function formatReport(report: DriftReport): string {
  const lines: string[] = [];
  lines.push(
    `Drift report of stack "${report.stack}" (${report.workDir})`,
    `${report.checkedResources} resource(s) compared with the service by a preview-only refresh; the state was not changed.`,
    "",
  );
  if (report.resources.length === 0) {
    lines.push("DRIFT: none — every resource matches its last deployment.");
  } else {
    lines.push(
      `DRIFT: ${report.resources.length} resource(s) changed outside Pulumi since the last deployment`,
    );
    const rows = [["RESOURCE", "TYPE", "ID", "STATUS", "PROPERTY", "LAST DEPLOYED", "LIVE"]];
    for (const r of report.resources) {
      if (r.status === "deleted") {
        rows.push([r.name, r.type, r.id, "deleted", "-", "(exists)", "(deleted out of band)"]);
        continue;
      }
      if (r.properties.length === 0) rows.push([r.name, r.type, r.id, "changed", "?", "", ""]);
      for (const p of r.properties) {
        rows.push([r.name, r.type, r.id, "changed", p.property, cell(p.before), cell(p.after)]);
      }
    }
    lines.push(table(rows));
  }
  lines.push("");
  const pending = report.pendingChanges;
  if (!pending.present) {
    lines.push("PROGRAM CHANGES NOT YET DEPLOYED (pulumi preview; not drift): none");
  } else {
    lines.push(
      `PROGRAM CHANGES NOT YET DEPLOYED (pulumi preview; not drift): ${pending.resources.length} resource(s)`,
    );
    const rows = [["OP", "RESOURCE", "TYPE", "PROPERTIES"]];
    for (const c of pending.resources) rows.push([c.op, c.name, c.type, c.properties.join(", ") || "-"]);
    lines.push(table(rows));
  }
  lines.push("");
  lines.push(
    report.drift
      ? `Result: drift found (exit code ${report.exitCode}). \`pulumi up --refresh\` restores the program's values and creates deleted resources again (declare a deleted adopted resource without adoptId first); to keep the live values instead, change the program, then \`pulumi refresh\`.`
      : `Result: no drift (exit code ${report.exitCode}).`,
  );
  return `${lines.join("\n")}\n`;
}

/** Text for a Markdown table cell: `|` escaped, line breaks as spaces, no raw HTML. */
export function mdCell(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/</g, "&lt;").replace(/\s+/g, " ");
}

/** A value as inline code in a Markdown table cell (compact JSON, cut at 60 characters). */
function mdValue(value: unknown): string {
  const text = cell(value).replace(/`/g, "'");
  return `\`${mdCell(text)}\``;
}

/**
 * The report as Markdown, ready to post as a pull-request or issue comment: a one-line verdict,
 * a table of the drifted resources (property, last deployed and live values; secrets stay
 * `[secret]`), the program's changes not yet deployed apart, and a collapsed section with the
 * details (stack, project folder, counts, what to do). Printed by `service-drift --format markdown`.
 */
export function formatMarkdown(report: DriftReport): string {
  const lines: string[] = [];
  const stack = mdCell(report.stack);
  const n = report.resources.length;
  lines.push(
    report.drift
      ? `**Drift in stack \`${stack}\`:** ${n} resource${n === 1 ? "" : "s"} changed outside Pulumi since the last deployment.`
      : `**No drift in stack \`${stack}\`:** all ${report.checkedResources} resources match their last deployment.`,
    "",
  );
  if (report.drift) {
    lines.push("| Resource | Type | Property | Last deployed | Live |", "| --- | --- | --- | --- | --- |");
    for (const r of report.resources) {
      const name = `**${mdCell(r.name)}** \`${mdCell(r.id)}\``;
      if (r.status === "deleted") {
        lines.push(`| ${name} | ${mdCell(r.type)} | *(resource)* | exists | **deleted** |`);
        continue;
      }
      if (r.properties.length === 0) lines.push(`| ${name} | ${mdCell(r.type)} | ? | | |`);
      for (const p of r.properties) {
        lines.push(
          `| ${name} | ${mdCell(r.type)} | \`${mdCell(p.property)}\` | ${mdValue(p.before)} | ${mdValue(p.after)} |`,
        );
      }
    }
    lines.push("");
  }
  const pending = report.pendingChanges;
  if (pending.present) {
    lines.push(
      `Program changes not yet deployed (not drift; \`pulumi up\` would apply them): ${pending.resources
        .map(
          (c) =>
            `${c.op} **${mdCell(c.name)}**${c.properties.length ? ` (${c.properties.map(mdCell).join(", ")})` : ""}`,
        )
        .join("; ")}.`,
      "",
    );
  }
  lines.push(
    "<details><summary>Details</summary>",
    "",
    `- Stack \`${stack}\`, project \`${mdCell(report.workDir)}\`.`,
    `- ${report.checkedResources} resources compared with the service by a preview-only refresh; the state was not changed.`,
    `- Exit code ${report.exitCode} (0: no drift, 2: drift, 1: the report failed).`,
    report.drift
      ? "- To restore the program's values: `pulumi up --refresh`. To keep the live values: change the program, then `pulumi refresh`."
      : "- Nothing to do.",
    "",
    "</details>",
  );
  return `${lines.join("\n")}\n`;
}
