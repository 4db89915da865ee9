/**
 * The drift report's text and Markdown forms (gitops/format.ts), from reports built by hand:
 * what a reader of the job log, the pull request or the issue sees.
 */
import type { DriftReport } from "../../gitops/drift";
import { formatMarkdown, formatReport } from "../../gitops/format";

const SUB = "pulumi-nodejs:dynamic/service:EventSubscription";
const DEST = "pulumi-nodejs:dynamic/service:EventDestination";
const ED = `ed_${"A".repeat(27)}`;
const ESB = `esb_${"B".repeat(27)}`;

const clean: DriftReport = {
  stack: "dev",
  workDir: "/repo/infra",
  drift: false,
  checkedResources: 5,
  resources: [],
  ignored: [],
  pendingChanges: { present: false, summary: { same: 6 }, resources: [] },
  exitCode: 0,
};

const drifted: DriftReport = {
  ...clean,
  drift: true,
  exitCode: 2,
  resources: [
    {
      name: "audit",
      type: "EventDestination",
      typeToken: DEST,
      urn: `urn:pulumi:dev::infra::${DEST}::audit`,
      id: ED,
      status: "changed",
      properties: [
        { property: "description", before: "Audit | events", after: "edited <b>by hand</b>", secret: false },
        { property: "target", before: "[secret]", after: "[secret]", secret: true },
      ],
    },
    {
      name: "alerts",
      type: "EventSubscription",
      typeToken: SUB,
      urn: `urn:pulumi:dev::infra::${SUB}::alerts`,
      id: ESB,
      status: "deleted",
      properties: [],
    },
  ],
  pendingChanges: {
    present: true,
    summary: { same: 4, update: 1 },
    resources: [
      { name: "audit", type: "EventDestination", urn: "u", op: "update", properties: ["metadata"] },
    ],
  },
};

describe("--format markdown", () => {
  it("no drift: a one-line verdict and collapsed details", () => {
    const md = formatMarkdown(clean);
    expect(md.split("\n")[0]).toBe(
      "**No drift in stack `dev`:** all 5 resources match their last deployment.",
    );
    expect(md).not.toMatch(/\| Resource \|/);
    expect(md).toMatch(/<details><summary>Details<\/summary>[\s\S]*Exit code 0[\s\S]*<\/details>\n$/);
  });

  it("drift: the verdict, a row per drifted property, deleted resources, program changes apart", () => {
    const lines = formatMarkdown(drifted).split("\n");
    expect(lines[0]).toBe(
      "**Drift in stack `dev`:** 2 resources changed outside Pulumi since the last deployment.",
    );
    expect(lines).toContain("| Resource | Type | Property | Last deployed | Live |");
    expect(lines).toContain(
      `| **audit** \`${ED}\` | EventDestination | \`description\` | \`"Audit \\| events"\` | \`"edited &lt;b>by hand&lt;/b>"\` |`,
    );
    expect(lines).toContain(
      `| **audit** \`${ED}\` | EventDestination | \`target\` | \`[secret]\` | \`[secret]\` |`,
    );
    expect(lines).toContain(
      `| **alerts** \`${ESB}\` | EventSubscription | *(resource)* | exists | **deleted** |`,
    );
    expect(lines).toContain(
      "Program changes not yet deployed (not drift; `pulumi up` would apply them): update **audit** (metadata).",
    );
    // Every table row has the header's five cells: no value breaks the table.
    for (const row of lines.filter((l) => l.startsWith("| "))) {
      expect(row.replace(/\\\|/g, "").split("|").length).toBe(7);
    }
  });
});

describe("text", () => {
  it("drift: the table and the verdict with its exit code", () => {
    const text = formatReport(drifted);
    expect(text).toMatch(/DRIFT: 2 resource\(s\) changed outside Pulumi/);
    expect(text).toMatch(/audit\s+EventDestination\s+ed_A+\s+changed\s+description/);
    expect(text).toMatch(/Result: drift found \(exit code 2\)/);
  });

  it("no drift, a program change not yet deployed: the verdict none, the change apart with its resource and property", () => {
    const text = formatReport({
      ...clean,
      pendingChanges: {
        present: true,
        summary: { same: 5, update: 1 },
        resources: [
          { name: "multi", type: "EventSubscription", urn: "u", op: "update", properties: ["description"] },
        ],
      },
    });
    expect(text).toMatch(/DRIFT: none/);
    expect(text).toMatch(/PROGRAM CHANGES NOT YET DEPLOYED.*1 resource/);
    expect(text).toMatch(/update\s+multi\s+EventSubscription\s+description/);
    expect(text).toMatch(/Result: no drift \(exit code 0\)/);
  });
});
