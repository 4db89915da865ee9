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
