/**
 * The text and Markdown forms of an {@link UnmanagedReport}, printed by `service-drift unmanaged`
 * (`--format text`, the default, and `--format markdown`). Descriptions are cut at 60 characters.
 *
 * @packageDocumentation
 */
import { cell, mdCell, table } from "./format";
import type { UnmanagedReport, UnmanagedResource } from "./unmanaged";

/** Short kind names as printed. */
const KIND = { eventSubscription: "subscription", eventDestination: "destination" } as const;

/** A description as a table cell: cut at 60 characters, `-` when empty. */
function describe(r: UnmanagedResource): string {
  return r.description === "" ? "-" : cell(r.description).replace(/^"|"$/g, "");
}

/** What a report counted, one line per account. */
function accountLines(report: UnmanagedReport): string[] {
  return report.accounts.map(
    (a) =>
      `Account ${a.name} (${a.baseUrl}): ${a.listed.eventDestination} destination(s) and ${a.listed.eventSubscription} ` +
      `subscription(s) listed; ${a.managed} managed, ${a.excluded} excluded on purpose, ${a.unmanaged} unmanaged.`,
  );
}

/** The stacks whose states were read, as one line. */
function stacksLine(report: UnmanagedReport): string {
  const list = report.stacks.map((s) => `${s.stack} (${s.resources})`).join(", ");
  return `Stacks read (subscriptions and destinations each manages): ${list}.`;
}

/** The whole report as text: the counts, a table of the unmanaged resources, the verdict. */
export function formatUnmanagedText(report: UnmanagedReport): string {
  const lines = ["Unmanaged check: resources of the account(s) in none of the stacks' states", ""];
  lines.push(...accountLines(report), stacksLine(report), "");
  if (report.unmanaged.length === 0) {
    lines.push("UNMANAGED: none");
  } else {
    lines.push(`UNMANAGED: ${report.unmanaged.length} resource(s)`);
    const rows = [["ACCOUNT", "KIND", "ID", "CREATED", "DESCRIPTION", "SENDS TO"]];
    for (const r of report.unmanaged) {
      rows.push([
        r.account,
        KIND[r.kind],
        r.id,
        r.createdAt,
        describe(r),
        r.destinationIds?.join(", ") ?? "-",
      ]);
    }
    lines.push(table(rows));
  }
  if (report.excluded.length > 0) {
    lines.push("", `EXCLUDED ON PURPOSE: ${report.excluded.map((e) => `${e.id} (by ${e.by})`).join(", ")}`);
  }
  lines.push("", ...report.notChecked.map((n) => `Not checked: ${n.reason}.`));
  if (report.importFile) lines.push(`Bulk-import file written: ${report.importFile} (pulumi import --file).`);
  lines.push(
    "",
    report.found
      ? `Result: ${report.unmanaged.length} unmanaged resource(s) (exit code ${report.exitCode}). Take them under management with \`pulumi import --file\`, delete them, or exclude them on purpose.`
      : `Result: nothing unmanaged (exit code ${report.exitCode}).`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * The report as Markdown, for an issue or a pull-request comment: a verdict, a table of the
 * unmanaged resources, and a collapsed section of details (accounts, stacks, exclusions, what was
 * not checked).
 */
export function formatUnmanagedMarkdown(report: UnmanagedReport): string {
  const n = report.unmanaged.length;
  const lines = [
    report.found
      ? `**Unmanaged resources:** ${n} resource${n === 1 ? "" : "s"} of the account in none of the stacks' states.`
      : "**No unmanaged resources:** every subscription and destination of the account is in a stack's state.",
    "",
  ];
  if (report.found) {
    lines.push(
      "| Account | Kind | ID | Created | Description | Sends to |",
      "| --- | --- | --- | --- | --- | --- |",
    );
    for (const r of report.unmanaged) {
      const to = r.destinationIds?.map((id) => `\`${id}\``).join(", ") ?? "";
      lines.push(
        `| ${mdCell(r.account)} | ${KIND[r.kind]} | \`${r.id}\` | ${r.createdAt} | ${mdCell(describe(r))} | ${to} |`,
      );
    }
    lines.push("");
  }
  lines.push(
    "<details><summary>Details</summary>",
    "",
    ...accountLines(report).map((l) => `- ${mdCell(l)}`),
    `- ${mdCell(stacksLine(report))}`,
    ...(report.excluded.length > 0
      ? [`- Excluded on purpose: ${report.excluded.map((e) => `\`${e.id}\` (by ${e.by})`).join(", ")}.`]
      : []),
    ...report.notChecked.map((x) => `- Not checked: ${mdCell(x.reason)}.`),
    `- Exit code ${report.exitCode} (0: nothing unmanaged, 2: unmanaged resources, 1: the check failed).`,
    "",
    "</details>",
  );
  return `${lines.join("\n")}\n`;
}
