/**
 * The preview summary's text and Markdown forms (gitops/preview-format.ts), from summaries built
 * by hand: what the job log and the pull request's comment show a reviewer.
 */
import type { PreviewSummary } from "../../gitops/preview";
import { formatPreview, formatPreviewMarkdown } from "../../gitops/preview-format";

const SUB = "service:index:EventSubscription";
const DEST = "service:index:EventDestination";
const ESB = `esb_${"B".repeat(27)}`;

const refused: PreviewSummary = {
  stack: "dev",
  workDir: "/repo/infra",
  changes: true,
  summary: { same: 4, replace: 1, create: 1 },
  resources: [
    {
      name: "moved",
      type: "EventSubscription",
      typeToken: SUB,
      urn: `urn:pulumi:dev::infra::${SUB}::moved`,
      id: ESB,
      op: "replace",
      replaceReasons: ["description"],
      properties: [
        { property: "description", before: "first | one", after: "second", secret: false },
        { property: "destinationIds", before: ["ed_1"], after: ["[unknown]"], secret: false },
      ],
    },
    {
      name: "logs",
      type: "EventDestination",
      typeToken: DEST,
      urn: `urn:pulumi:dev::infra::${DEST}::logs`,
      id: "",
      op: "create",
      replaceReasons: [],
      properties: [{ property: "target", before: null, after: "[secret]", secret: true }],
    },
  ],
  guard: {
    failOn: ["replace", "delete"],
    types: ["EventSubscription"],
    names: [],
    refused: [{ name: "moved", type: "EventSubscription", urn: "u", op: "replace" }],
  },
  policyViolations: [],
  exitCode: 2,
};

/** A summary of a preview with the policy pack service-policy: one mandatory, one advisory violation. */
const violating: PreviewSummary = {
  ...refused,
  guard: null,
  policyViolations: [
    {
      policyPack: "service-policy",
      policy: "service-destination-targets",
      enforcementLevel: "mandatory",
      name: "logs",
      urn: `urn:pulumi:dev::infra::${DEST}::logs`,
      message:
        'event destination "logs": kinesis.streamArn is in AWS account 999988887777, not an allowed one',
    },
    {
      policyPack: "service-policy",
      policy: "service-subscription-description",
      enforcementLevel: "advisory",
      name: "moved",
      urn: `urn:pulumi:dev::infra::${SUB}::moved`,
      message: 'event subscription "moved" has no description',
    },
  ],
};

describe("--format markdown (the pull request's comment)", () => {
  it("the counts, a row per changed property with before and after, the refusal and the exit code", () => {
    const md = formatPreviewMarkdown(refused);
    const lines = md.split("\n");
    expect(lines[0]).toBe("**Preview of stack `dev`:** 1 to create, 1 to replace, 4 unchanged.");
    expect(lines).toContain(
      `| **replace** | **moved** \`${ESB}\` | EventSubscription | \`description\` (forces replace) | \`"first \\| one"\` | \`"second"\` |`,
    );
    expect(lines).toContain(
      `| **replace** | **moved** \`${ESB}\` | EventSubscription | \`destinationIds\` | \`["ed_1"]\` | \`["[unknown]"]\` |`,
    );
    // A create has no value before; its secret stays masked.
    expect(lines).toContain("| **create** | **logs** | EventDestination | `target` |  | `[secret]` |");
    expect(md).toContain(
      "**The guard refuses this change** (replace, delete of type EventSubscription): replace **moved** (EventSubscription).",
    );
    expect(md).toContain(
      "Exit code 2 (0: the guard passes, 2: the guard refuses or a policy's mandatory violation, 1: the preview failed)",
    );
    expect(md).not.toContain("Policy violations");
  });

  it("policy violations: how many are mandatory (up would refuse), a row per violation with its rule and resource", () => {
    const lines = formatPreviewMarkdown(violating).split("\n");
    expect(lines).toContain("**Policy violations: 1 mandatory (`pulumi up` would refuse this change)**");
    expect(lines).toContain(
      '| mandatory | `service-destination-targets` | logs (EventDestination) | event destination "logs": kinesis.streamArn is in AWS account 999988887777, not an allowed one |',
    );
    expect(lines).toContain(
      '| advisory | `service-subscription-description` | moved (EventSubscription) | event subscription "moved" has no description |',
    );
    const advisoryOnly = formatPreviewMarkdown({
      ...violating,
      policyViolations: [violating.policyViolations[1]],
    });
    expect(advisoryOnly).toContain("**Policy violations** (advisory only):");
  });

  it("no change and no guard: a one-line verdict, nothing refused", () => {
    const md = formatPreviewMarkdown({
      ...refused,
      changes: false,
      summary: { same: 6 },
      resources: [],
      guard: null,
      exitCode: 0,
    });
    expect(md.split("\n")[0]).toBe("**Preview of stack `dev`:** 6 unchanged.");
    expect(md).not.toMatch(/guard refuses this change|\| Operation/);
  });
});

describe("text", () => {
  it("a table row per property and the guard's verdict with its exit code", () => {
    const text = formatPreview(refused);
    expect(text).toMatch(
      /replace\s+moved\s+EventSubscription\s+esb_B+\s+description \(forces replace\)\s+"first \| one"\s+"second"/,
    );
    expect(text).toMatch(/create\s+logs\s+EventDestination\s+-\s+target\s+-\s+\[secret\]/);
    expect(text).toMatch(
      /Guard \(replace, delete of type EventSubscription\): REFUSED \(exit code 2\): replace moved \(EventSubscription\)\./,
    );
    const passing = formatPreview({ ...refused, guard: { ...refused.guard!, refused: [] }, exitCode: 0 });
    expect(passing).toMatch(/Guard \(replace, delete of type EventSubscription\): passes \(exit code 0\)\./);
    expect(passing).not.toContain("Policy violations");
  });

  it("a table row per policy violation", () => {
    const text = formatPreview(violating);
    expect(text).toContain("Policy violations:");
    expect(text).toMatch(
      /mandatory\s+service-destination-targets\s+logs \(EventDestination\)\s+event destination "logs"/,
    );
    expect(text).toMatch(
      /advisory\s+service-subscription-description\s+moved \(EventSubscription\)\s+event subscription/,
    );
  });
});

describe("word for word", () => {
  /** A delete (no property shown), an update, a guard by type and by name, and an operation the counts do not name. */
  const mixed: PreviewSummary = {
    ...refused,
    summary: { delete: 1, update: 1, same: 2, "create-replacement": 1 } as PreviewSummary["summary"],
    resources: [
      {
        ...refused.resources[0],
        op: "update",
        replaceReasons: [],
        properties: [refused.resources[0].properties[0]],
      },
      { ...refused.resources[1], name: "old", id: "ed_old", op: "delete", properties: [] },
    ],
    guard: { failOn: ["delete"], types: ["EventDestination"], names: ["old", "older"], refused: [] },
    exitCode: 0,
  };

  it("refused: the text whole", () => {
    expect(formatPreview(refused)).toBe(
      [
        'Preview of stack "dev" (/repo/infra): 1 to create, 1 to replace, 4 unchanged.',
        "",
        "  OP       RESOURCE  TYPE               ID                               PROPERTY                      BEFORE (STATE)  AFTER (PROGRAM)",
        '  replace  moved     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  description (forces replace)  "first | one"   "second"',
        '  replace  moved     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  destinationIds                ["ed_1"]        ["[unknown]"]',
        "  create   logs      EventDestination   -                                target                        -               [secret]",
        "",
        "Guard (replace, delete of type EventSubscription): REFUSED (exit code 2): replace moved (EventSubscription).",
        "",
      ].join("\n"),
    );
  });

  it("refused: the Markdown whole", () => {
    expect(formatPreviewMarkdown(refused)).toBe(
      [
        "**Preview of stack `dev`:** 1 to create, 1 to replace, 4 unchanged.",
        "",
        "| Operation | Resource | Type | Property | Before (state) | After (program) |",
        "| --- | --- | --- | --- | --- | --- |",
        '| **replace** | **moved** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `description` (forces replace) | `"first \\| one"` | `"second"` |',
        '| **replace** | **moved** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `destinationIds` | `["ed_1"]` | `["[unknown]"]` |',
        "| **create** | **logs** | EventDestination | `target` |  | `[secret]` |",
        "",
        "**The guard refuses this change** (replace, delete of type EventSubscription): replace **moved** (EventSubscription).",
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`: `pulumi preview` of the program against the state (no refresh); nothing was changed.",
        "- Exit code 2 (0: the guard passes, 2: the guard refuses or a policy's mandatory violation, 1: the preview failed).",
        "- Secrets are shown as `[secret]`, values known only after `pulumi up` as `[unknown]`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });

  it("violating: the text whole", () => {
    expect(formatPreview(violating)).toBe(
      [
        'Preview of stack "dev" (/repo/infra): 1 to create, 1 to replace, 4 unchanged.',
        "",
        "  OP       RESOURCE  TYPE               ID                               PROPERTY                      BEFORE (STATE)  AFTER (PROGRAM)",
        '  replace  moved     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  description (forces replace)  "first | one"   "second"',
        '  replace  moved     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  destinationIds                ["ed_1"]        ["[unknown]"]',
        "  create   logs      EventDestination   -                                target                        -               [secret]",
        "",
        "Policy violations:",
        "  LEVEL      POLICY                            RESOURCE                   MESSAGE",
        '  mandatory  service-destination-targets       logs (EventDestination)    event destination "logs": kinesis.streamArn is in AWS account 999988887777, not an allowed one',
        '  advisory   service-subscription-description  moved (EventSubscription)  event subscription "moved" has no description',
        "",
        "Result: no guard (exit code 2).",
        "",
      ].join("\n"),
    );
  });

  it("violating: the Markdown whole", () => {
    expect(formatPreviewMarkdown(violating)).toBe(
      [
        "**Preview of stack `dev`:** 1 to create, 1 to replace, 4 unchanged.",
        "",
        "| Operation | Resource | Type | Property | Before (state) | After (program) |",
        "| --- | --- | --- | --- | --- | --- |",
        '| **replace** | **moved** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `description` (forces replace) | `"first \\| one"` | `"second"` |',
        '| **replace** | **moved** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `destinationIds` | `["ed_1"]` | `["[unknown]"]` |',
        "| **create** | **logs** | EventDestination | `target` |  | `[secret]` |",
        "",
        "**Policy violations: 1 mandatory (`pulumi up` would refuse this change)**",
        "",
        "| Level | Policy | Resource | Message |",
        "| --- | --- | --- | --- |",
        '| mandatory | `service-destination-targets` | logs (EventDestination) | event destination "logs": kinesis.streamArn is in AWS account 999988887777, not an allowed one |',
        '| advisory | `service-subscription-description` | moved (EventSubscription) | event subscription "moved" has no description |',
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`: `pulumi preview` of the program against the state (no refresh); nothing was changed.",
        "- Exit code 2 (0: no guard, 2: the guard refuses or a policy's mandatory violation, 1: the preview failed).",
        "- Secrets are shown as `[secret]`, values known only after `pulumi up` as `[unknown]`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });

  it("mixed: the text whole", () => {
    expect(formatPreview(mixed)).toBe(
      [
        'Preview of stack "dev" (/repo/infra): 1 to update, 1 to delete, 2 unchanged, 1 create-replacement.',
        "",
        "  OP      RESOURCE  TYPE               ID                               PROPERTY     BEFORE (STATE)  AFTER (PROGRAM)",
        '  update  moved     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  description  "first | one"   "second"',
        "  delete  old       EventDestination   ed_old                           -",
        "",
        "Guard (delete of type EventDestination and named old, older): passes (exit code 0).",
        "",
      ].join("\n"),
    );
  });

  it("mixed: the Markdown whole", () => {
    expect(formatPreviewMarkdown(mixed)).toBe(
      [
        "**Preview of stack `dev`:** 1 to update, 1 to delete, 2 unchanged, 1 create-replacement.",
        "",
        "| Operation | Resource | Type | Property | Before (state) | After (program) |",
        "| --- | --- | --- | --- | --- | --- |",
        '| **update** | **moved** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `description` | `"first \\| one"` | `"second"` |',
        "| **delete** | **old** `ed_old` | EventDestination | | | |",
        "",
        "The guard (delete of type EventDestination and named old, older) passes.",
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`: `pulumi preview` of the program against the state (no refresh); nothing was changed.",
        "- Exit code 0 (0: the guard passes, 2: the guard refuses or a policy's mandatory violation, 1: the preview failed).",
        "- Secrets are shown as `[secret]`, values known only after `pulumi up` as `[unknown]`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });
});

describe("word for word, more cases", () => {
  /** A preview of a stack in step with its program: nothing to change, no guard. */
  const nothing: PreviewSummary = {
    stack: "dev",
    workDir: "/repo/infra",
    changes: false,
    summary: {},
    resources: [],
    guard: null,
    policyViolations: [],
    exitCode: 0,
  };

  it("no change, no count, no guard: the text whole", () => {
    expect(formatPreview(nothing)).toBe(
      [
        'Preview of stack "dev" (/repo/infra): nothing.',
        "",
        "No changes: `pulumi up` would change nothing.",
        "",
        "Result: no guard (exit code 0).",
        "",
      ].join("\n"),
    );
  });

  it("the counts: changes first, a count of 0 left out", () => {
    const counts = (summary: PreviewSummary["summary"]) =>
      formatPreview({ ...nothing, summary }).split("\n")[0];
    expect(counts({ same: 2, delete: 1, update: 0 })).toBe(
      'Preview of stack "dev" (/repo/infra): 1 to delete, 2 unchanged.',
    );
  });

  /** A delete with the state's inputs (as the summary lists them), and an update; both refused. */
  const deletes: PreviewSummary = {
    ...nothing,
    changes: true,
    summary: { delete: 1, update: 1 },
    resources: [
      {
        ...refused.resources[1],
        name: "old",
        id: "ed_old",
        op: "delete",
        properties: [{ property: "description", before: "gone", after: null, secret: false }],
      },
      {
        ...refused.resources[0],
        op: "update",
        replaceReasons: [],
        properties: [{ property: "description", before: "a", after: "b", secret: false }],
      },
    ],
    guard: {
      failOn: ["update", "delete"],
      types: [],
      names: [],
      refused: [
        { name: "old", type: "EventDestination", urn: "u1", op: "delete" },
        { name: "moved", type: "EventSubscription", urn: "u2", op: "update" },
      ],
    },
    exitCode: 2,
  };

  it("a delete shows the state's values and none after; a guard on every type and name; each refusal named: the text whole", () => {
    expect(formatPreview(deletes)).toBe(
      [
        'Preview of stack "dev" (/repo/infra): 1 to update, 1 to delete.',
        "",
        "  OP      RESOURCE  TYPE               ID                               PROPERTY     BEFORE (STATE)  AFTER (PROGRAM)",
        '  delete  old       EventDestination   ed_old                           description  "gone"          -',
        '  update  moved     EventSubscription  esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB  description  "a"             "b"',
        "",
        "Guard (update, delete): REFUSED (exit code 2): delete old (EventDestination); update moved (EventSubscription).",
        "",
      ].join("\n"),
    );
  });

  it("the same as Markdown, whole", () => {
    expect(formatPreviewMarkdown(deletes)).toBe(
      [
        "**Preview of stack `dev`:** 1 to update, 1 to delete.",
        "",
        "| Operation | Resource | Type | Property | Before (state) | After (program) |",
        "| --- | --- | --- | --- | --- | --- |",
        '| **delete** | **old** `ed_old` | EventDestination | `description` | `"gone"` |  |',
        '| **update** | **moved** `esb_BBBBBBBBBBBBBBBBBBBBBBBBBBB` | EventSubscription | `description` | `"a"` | `"b"` |',
        "",
        "**The guard refuses this change** (update, delete): delete **old** (EventDestination); update **moved** (EventSubscription).",
        "",
        "<details><summary>Details</summary>",
        "",
        "- Stack `dev`, project `/repo/infra`: `pulumi preview` of the program against the state (no refresh); nothing was changed.",
        "- Exit code 2 (0: the guard passes, 2: the guard refuses or a policy's mandatory violation, 1: the preview failed).",
        "- Secrets are shown as `[secret]`, values known only after `pulumi up` as `[unknown]`.",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
  });

  it("a guard narrowed to several types; violations of the stack as a whole and of a URN cut short: the text whole", () => {
    const stackWide: PreviewSummary = {
      ...nothing,
      guard: { failOn: ["replace"], types: ["EventDestination", SUB], names: [], refused: [] },
      policyViolations: [
        { ...violating.policyViolations[1], name: "", urn: "", message: "the stack has no owner" },
        { ...violating.policyViolations[1], name: "odd", urn: "urn:pulumi:dev::infra", message: "odd" },
      ],
    };
    expect(formatPreview(stackWide)).toBe(
      [
        'Preview of stack "dev" (/repo/infra): nothing.',
        "",
        "No changes: `pulumi up` would change nothing.",
        "",
        "Policy violations:",
        "  LEVEL     POLICY                            RESOURCE   MESSAGE",
        "  advisory  service-subscription-description  the stack  the stack has no owner",
        "  advisory  service-subscription-description  odd ()     odd",
        "",
        "Guard (replace of type EventDestination, service:index:EventSubscription): passes (exit code 0).",
        "",
      ].join("\n"),
    );
  });
});
