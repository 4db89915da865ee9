/**
 * The text and Markdown forms of a {@link PreviewSummary}, printed by `service-drift preview`
 * (`--format text`, the default, and `--format markdown`, a pull-request comment). Values are
 * compact JSON cut at 60 characters; secrets are already `[secret]` in the summary.
 *
 * @packageDocumentation
 */
import { cell, mdCell, mdValue, table } from "./format";
import type { GuardResult, PolicyViolation, PreviewResource, PreviewSummary } from "./preview";

/** Where a violation is: `phish (AbuseReport)`-like, from its URN; `the stack` without one. */
function placeOf(v: PolicyViolation): string {
  return v.urn ? `${v.name} (${v.urn.split("::")[2]?.split(":").pop() ?? ""})` : "the stack";
}

/** The engine's counts as words, changes first: `1 to replace, 4 unchanged`. */
function countsOf(s: PreviewSummary): string {
  const words: Record<string, string> = {
    create: "to create",
    update: "to update",
    replace: "to replace",
    delete: "to delete",
    same: "unchanged",
  };
  const order = ["create", "update", "replace", "delete"];
  const entries = Object.entries(s.summary).filter(([, n]) => (n ?? 0) > 0);
  entries.sort(([a], [b]) => (order.indexOf(a) + 1 || 9) - (order.indexOf(b) + 1 || 9));
  return entries.map(([op, n]) => `${n} ${words[op] ?? op}`).join(", ") || "nothing";
}

/** What the guard was asked: `replace, delete of EventDestination`. */
function ruleOf(g: GuardResult): string {
  const scope = [
    g.types.length > 0 ? `of type ${g.types.join(", ")}` : "",
    g.names.length > 0 ? `named ${g.names.join(", ")}` : "",
  ].filter((x) => x !== "");
  return `${g.failOn.join(", ")}${scope.length > 0 ? ` ${scope.join(" and ")}` : ""}`;
}

/** A value for a row: `-` where the resource has none (before a create, after a delete). */
function shown(r: PreviewResource, side: "before" | "after", value: unknown): unknown {
  return (side === "before" && r.op === "create") || (side === "after" && r.op === "delete")
    ? undefined
    : value;
}

/** The summary as text: the counts, a row per changed property, the guard's verdict. */
export function formatPreview(s: PreviewSummary): string {
  const lines = [`Preview of stack "${s.stack}" (${s.workDir}): ${countsOf(s)}.`, ""];
  if (s.resources.length === 0) lines.push("No changes: `pulumi up` would change nothing.", "");
  else {
    const rows = [["OP", "RESOURCE", "TYPE", "ID", "PROPERTY", "BEFORE (STATE)", "AFTER (PROGRAM)"]];
    for (const r of s.resources) {
      const head = [r.op, r.name, r.type, r.id || "-"];
      if (r.properties.length === 0) rows.push([...head, "-", "", ""]);
      for (const p of r.properties)
        rows.push([
          ...head,
          `${p.property}${r.replaceReasons.includes(p.property) ? " (forces replace)" : ""}`,
          cell(shown(r, "before", p.before)),
          cell(shown(r, "after", p.after)),
        ]);
    }
    lines.push(table(rows), "");
  }
  if (s.policyViolations.length > 0) {
    const rows = [["LEVEL", "POLICY", "RESOURCE", "MESSAGE"]];
    for (const v of s.policyViolations) rows.push([v.enforcementLevel, v.policy, placeOf(v), v.message]);
    lines.push("Policy violations:", table(rows), "");
  }
  const g = s.guard;
  if (g === null) lines.push(`Result: no guard (exit code ${s.exitCode}).`);
  else if (g.refused.length === 0) lines.push(`Guard (${ruleOf(g)}): passes (exit code ${s.exitCode}).`);
  else
    lines.push(
      `Guard (${ruleOf(g)}): REFUSED (exit code ${s.exitCode}): ${g.refused.map((r) => `${r.op} ${r.name} (${r.type})`).join("; ")}.`,
    );
  return `${lines.join("\n")}\n`;
}

/** A Markdown cell for a value a row does not have: empty. */
function mdShown(r: PreviewResource, side: "before" | "after", value: unknown): string {
  const v = shown(r, side, value);
  return v === undefined ? "" : mdValue(v);
}

/**
 * The summary as Markdown for a pull-request comment: a one-line verdict with the counts, a
 * table of the changed properties (operation, resource and ID, type, property, before in the
 * state, after in the program; a property that forces a replacement marked), the guard's
 * verdict, and the details folded.
 */
export function formatPreviewMarkdown(s: PreviewSummary): string {
  const stack = mdCell(s.stack);
  const g = s.guard;
  const refused = g !== null && g.refused.length > 0;
  const lines = [`**Preview of stack \`${stack}\`:** ${mdCell(countsOf(s))}.`, ""];
  if (s.resources.length > 0) {
    lines.push(
      "| Operation | Resource | Type | Property | Before (state) | After (program) |",
      "| --- | --- | --- | --- | --- | --- |",
    );
    for (const r of s.resources) {
      const head = `| **${mdCell(r.op)}** | **${mdCell(r.name)}**${r.id ? ` \`${mdCell(r.id)}\`` : ""} | ${mdCell(r.type)}`;
      if (r.properties.length === 0) lines.push(`${head} | | | |`);
      for (const p of r.properties) {
        const forces = r.replaceReasons.includes(p.property) ? " (forces replace)" : "";
        lines.push(
          `${head} | \`${mdCell(p.property)}\`${forces} | ${mdShown(r, "before", p.before)} | ${mdShown(r, "after", p.after)} |`,
        );
      }
    }
    lines.push("");
  }
  if (refused)
    lines.push(
      `**The guard refuses this change** (${mdCell(ruleOf(g))}): ${g.refused
        .map((r) => `${mdCell(r.op)} **${mdCell(r.name)}** (${mdCell(r.type)})`)
        .join("; ")}.`,
      "",
    );
  else if (g !== null) lines.push(`The guard (${mdCell(ruleOf(g))}) passes.`, "");
  const mandatory = s.policyViolations.filter((v) => v.enforcementLevel === "mandatory").length;
  if (s.policyViolations.length > 0)
    lines.push(
      mandatory > 0
        ? `**Policy violations: ${mandatory} mandatory (\`pulumi up\` would refuse this change)**`
        : "**Policy violations** (advisory only):",
      "",
      "| Level | Policy | Resource | Message |",
      "| --- | --- | --- | --- |",
      ...s.policyViolations.map(
        (v) =>
          `| ${v.enforcementLevel} | \`${mdCell(v.policy)}\` | ${mdCell(placeOf(v))} | ${mdCell(v.message)} |`,
      ),
      "",
    );
  lines.push(
    "<details><summary>Details</summary>",
    "",
    `- Stack \`${stack}\`, project \`${mdCell(s.workDir)}\`: \`pulumi preview\` of the program against the state (no refresh); nothing was changed.`,
    `- Exit code ${s.exitCode} (0: ${g === null ? "no guard" : "the guard passes"}, 2: the guard refuses or a policy's mandatory violation, 1: the preview failed).`,
    "- Secrets are shown as `[secret]`, values known only after `pulumi up` as `[unknown]`.",
    "",
    "</details>",
  );
  return `${lines.join("\n")}\n`;
}
