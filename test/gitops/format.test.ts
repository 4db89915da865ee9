/**
 * The drift report's text and Markdown forms (gitops/format.ts), from reports built by hand:
 * what a reader of the job log, the pull request or the issue sees.
 */
import type { DriftReport } from "../../gitops/drift";
import { cell, formatMarkdown, formatReport, table } from "../../gitops/format";

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

describe("word for word", () => {
  /** Drift of a property and of a resource whose properties are unknown, a change ignored, and two program changes. */
  const mixed: DriftReport = {
    ...drifted,
    resources: [
      { ...drifted.resources[0], properties: [drifted.resources[0].properties[0]] },
      { ...drifted.resources[0], name: "opaque", id: "ed_opaque", properties: [] },
    ],
    ignored: [
      {
        name: "quiet",
        type: "EventSubscription",
        typeToken: SUB,
        urn: `urn:pulumi:dev::infra::${SUB}::quiet`,
        id: ESB,
        ignoreChanges: ["description", "metadata"],
        properties: [{ property: "description", before: "a", after: `b ${"x".repeat(70)}`, secret: false }],
      },
    ],
    pendingChanges: {
      present: true,
      summary: { same: 3, update: 1, create: 1 },
      resources: [
        {
          name: "audit",
          type: "EventDestination",
          urn: "u",
          op: "update",
          properties: ["metadata", "description"],
        },
        { name: "new", type: "EventSubscription", urn: "v", op: "create", properties: [] },
      ],
    },
  };

  it("clean: the text whole", () => {
    expect(formatReport(clean)).toBe(
      [
        'Drift report of stack "dev" (/repo/infra)',
        "5 resource(s) compared with the service by a preview-only refresh; the state was not changed.",
        "",
        "DRIFT: none — every resource matches its last deployment.",
        "",
        "PROGRAM CHANGES NOT YET DEPLOYED (pulumi preview; not drift): none",
        "",
        "Result: no drift (exit code 0).",
        "",
      ].join("\n"),
    );
  });

  it("clean: the Markdown whole", () => {
    expect(formatMarkdown(clean)).toBe(
      [
        "**No drift in stack `dev`:** all 5 resources match their last deployment.",
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`.",
        "- 5 resources compared with the service by a preview-only refresh; the state was not changed.",
        "- Exit code 0 (0: no drift, 2: drift, 1: the report failed).",
        "- Nothing to do.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });

  it("drifted: the text whole", () => {
    expect(formatReport(drifted)).toBe(
      [
        'Drift report of stack "dev" (/repo/infra)',
        "5 resource(s) compared with the service by a preview-only refresh; the state was not changed.",
        "",
        "DRIFT: 2 resource(s) changed outside Pulumi since the last deployment",
        "  RESOURCE  TYPE               ID                               STATUS   PROPERTY     LAST DEPLOYED     LIVE",
        '  audit     EventDestination   ed_AAAAAAAAAAAAAAAAAAAAAAAAAAA   changed  description  "Audit | events"  "edited <b>by hand</b>"',
        "  audit     EventDestination   ed_AAAAAAAAAAAAAAAAAAAAAAAAAAA   changed  target       [secret]          [secret]",
        "  alerts    EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  deleted  -            (exists)          (deleted out of band)",
        "",
        "PROGRAM CHANGES NOT YET DEPLOYED (pulumi preview; not drift): 1 resource(s)",
        "  OP      RESOURCE  TYPE              PROPERTIES",
        "  update  audit     EventDestination  metadata",
        "",
        "Result: drift found (exit code 2). `pulumi up --refresh` restores the program's values and creates deleted resources again (declare a deleted adopted resource without adoptId first); to keep the live values instead, change the program, then `pulumi refresh`.",
        "",
      ].join("\n"),
    );
  });

  it("drifted: the Markdown whole", () => {
    expect(formatMarkdown(drifted)).toBe(
      [
        "**Drift in stack `dev`:** 2 resources changed outside Pulumi since the last deployment.",
        "",
        "| Resource | Type | Property | Last deployed | Live |",
        "| --- | --- | --- | --- | --- |",
        '| **audit** `ed_AAAAAAAAAAAAAAAAAAAAAAAAAAA` | EventDestination | `description` | `"Audit \\| events"` | `"edited &lt;b>by hand&lt;/b>"` |',
        "| **audit** `ed_AAAAAAAAAAAAAAAAAAAAAAAAAAA` | EventDestination | `target` | `[secret]` | `[secret]` |",
        "| **alerts** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | *(resource)* | exists | **deleted** |",
        "",
        "Program changes not yet deployed (not drift; `pulumi up` would apply them): update **audit** (metadata).",
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`.",
        "- 5 resources compared with the service by a preview-only refresh; the state was not changed.",
        "- Exit code 2 (0: no drift, 2: drift, 1: the report failed).",
        "- To restore the program's values: `pulumi up --refresh`. To keep the live values: change the program, then `pulumi refresh`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });

  it("mixed: the text whole", () => {
    expect(formatReport(mixed)).toBe(
      [
        'Drift report of stack "dev" (/repo/infra)',
        "5 resource(s) compared with the service by a preview-only refresh; the state was not changed.",
        "",
        "DRIFT: 2 resource(s) changed outside Pulumi since the last deployment",
        "  RESOURCE  TYPE              ID                              STATUS   PROPERTY     LAST DEPLOYED     LIVE",
        '  audit     EventDestination  ed_AAAAAAAAAAAAAAAAAAAAAAAAAAA  changed  description  "Audit | events"  "edited <b>by hand</b>"',
        "  opaque    EventDestination  ed_opaque                       changed  ?",
        "",
        "IGNORED (ignoreChanges; not drift): 1 resource(s) changed where the program ignores changes",
        "  RESOURCE  TYPE               ID                               IGNORECHANGES         PROPERTY     LAST DEPLOYED  LIVE",
        '  quiet     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  description,metadata  description  "a"            "b xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…',
        "",
        "PROGRAM CHANGES NOT YET DEPLOYED (pulumi preview; not drift): 2 resource(s)",
        "  OP      RESOURCE  TYPE               PROPERTIES",
        "  update  audit     EventDestination   metadata, description",
        "  create  new       EventSubscription  -",
        "",
        "Result: drift found (exit code 2). `pulumi up --refresh` restores the program's values and creates deleted resources again (declare a deleted adopted resource without adoptId first); to keep the live values instead, change the program, then `pulumi refresh`.",
        "",
      ].join("\n"),
    );
  });

  it("mixed: the Markdown whole", () => {
    expect(formatMarkdown(mixed)).toBe(
      [
        "**Drift in stack `dev`:** 2 resources changed outside Pulumi since the last deployment.",
        "",
        "| Resource | Type | Property | Last deployed | Live |",
        "| --- | --- | --- | --- | --- |",
        '| **audit** `ed_AAAAAAAAAAAAAAAAAAAAAAAAAAA` | EventDestination | `description` | `"Audit \\| events"` | `"edited &lt;b>by hand&lt;/b>"` |',
        "| **opaque** `ed_opaque` | EventDestination | ? | | |",
        "",
        "Changed on the service where the program ignores changes (`ignoreChanges`; not drift):",
        "",
        "| Resource | Type | Property | Last deployed | Live |",
        "| --- | --- | --- | --- | --- |",
        '| **quiet** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `description` | `"a"` | `"b xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…` |',
        "",
        "Program changes not yet deployed (not drift; `pulumi up` would apply them): update **audit** (metadata, description); create **new**.",
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`.",
        "- 5 resources compared with the service by a preview-only refresh; the state was not changed.",
        "- Exit code 2 (0: no drift, 2: drift, 1: the report failed).",
        "- To restore the program's values: `pulumi up --refresh`. To keep the live values: change the program, then `pulumi refresh`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });
});

test("cell and table: a value as one line of JSON (newlines and tabs escaped, runs of spaces as one), columns aligned by characters, not UTF-16 units", () => {
  expect(cell("a\n\tb   c")).toBe('"a\\n\\tb c"');
  expect(cell({ a: "x  y" })).toBe('{"a":"x y"}');
  expect(
    table([
      ["😀😀", "B"],
      ["a", "b"],
    ]),
  ).toBe("  😀😀  B\n  a   b");
});

describe("word for word, one resource", () => {
  /** One drifted resource: a value of exactly 60 characters and one over, a backslash, backticks, a folder with two spaces. */
  const one: DriftReport = {
    ...clean,
    workDir: "/repo/my  infra",
    drift: true,
    exitCode: 2,
    resources: [
      {
        ...drifted.resources[0],
        properties: [
          { property: "description", before: "d".repeat(58), after: "e".repeat(59), secret: false },
          { property: "metadata", before: "C:\\dir", after: "run `make`", secret: false },
        ],
      },
    ],
  };

  it("the Markdown whole: one resource in the verdict, backslashes doubled, backticks as quotes, spaces run together", () => {
    expect(formatMarkdown(one)).toBe(
      [
        "**Drift in stack `dev`:** 1 resource changed outside Pulumi since the last deployment.",
        "",
        "| Resource | Type | Property | Last deployed | Live |",
        "| --- | --- | --- | --- | --- |",
        `| **audit** \`${ED}\` | EventDestination | \`description\` | \`"${"d".repeat(58)}"\` | \`"${"e".repeat(58)}…\` |`,
        `| **audit** \`${ED}\` | EventDestination | \`metadata\` | \`"C:\\\\\\\\dir"\` | \`"run 'make'"\` |`,
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/my infra`.",
        "- 5 resources compared with the service by a preview-only refresh; the state was not changed.",
        "- Exit code 2 (0: no drift, 2: drift, 1: the report failed).",
        "- To restore the program's values: `pulumi up --refresh`. To keep the live values: change the program, then `pulumi refresh`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });

  it("the text whole: a value of 60 characters whole, one of 61 cut to 59 and an ellipsis", () => {
    expect(formatReport(one)).toBe(
      [
        'Drift report of stack "dev" (/repo/my  infra)',
        "5 resource(s) compared with the service by a preview-only refresh; the state was not changed.",
        "",
        "DRIFT: 1 resource(s) changed outside Pulumi since the last deployment",
        `  RESOURCE  TYPE              ID                              STATUS   PROPERTY     LAST DEPLOYED${" ".repeat(49)}LIVE`,
        `  audit     EventDestination  ${ED}  changed  description  "${"d".repeat(58)}"  "${"e".repeat(58)}…`,
        `  audit     EventDestination  ${ED}  changed  metadata     "C:\\\\dir"${" ".repeat(53)}"run \`make\`"`,
        "",
        "PROGRAM CHANGES NOT YET DEPLOYED (pulumi preview; not drift): none",
        "",
        "Result: drift found (exit code 2). `pulumi up --refresh` restores the program's values and creates deleted resources again (declare a deleted adopted resource without adoptId first); to keep the live values instead, change the program, then `pulumi refresh`.",
        "",
      ].join("\n"),
    );
  });
});
