/**
 * gitops/unmanaged-format.ts: the text and Markdown forms of an unmanaged report, word for word,
 * for a report that found resources (of two accounts, with exclusions, what was not checked and
 * a bulk-import file) and for one that found none.
 */
import { formatUnmanagedMarkdown, formatUnmanagedText } from "../../gitops/unmanaged-format";
import type { UnmanagedReport } from "../../gitops/unmanaged";

const ED = `ed_${"A".repeat(27)}`;
const ESB = `esb_${"B".repeat(27)}`;
const ED2 = `ed_${"C".repeat(27)}`;

/** Account A: a destination without description and a subscription sending to two; B: one destination. */
const found: UnmanagedReport = {
  accounts: [
    {
      name: "A",
      baseUrl: "http://svc",
      listed: { eventSubscription: 3, eventDestination: 2 },
      managed: 2,
      excluded: 1,
      unmanaged: 2,
    },
    {
      name: "B|b",
      baseUrl: "http://svc",
      listed: { eventSubscription: 0, eventDestination: 1 },
      managed: 0,
      excluded: 0,
      unmanaged: 1,
    },
  ],
  stacks: [
    { stack: "dev", workDir: "/projects/dev", resources: 2 },
    { stack: "prod", workDir: "/projects/prod", resources: 0 },
  ],
  unmanaged: [
    {
      account: "A",
      kind: "eventDestination",
      type: "service:index:EventDestination",
      id: ED,
      description: "",
      createdAt: "2026-11-30T01:02:03Z",
    },
    {
      account: "A",
      kind: "eventSubscription",
      type: "service:index:EventSubscription",
      id: ESB,
      description: `made <by> hand | ${"x".repeat(70)}`,
      createdAt: "2026-11-30T01:02:04Z",
      destinationIds: [ED, ED2],
    },
    {
      account: "B|b",
      kind: "eventDestination",
      type: "service:index:EventDestination",
      id: ED2,
      description: "B's",
      createdAt: "2026-11-30T01:02:05Z",
    },
  ],
  excluded: [{ account: "A", kind: "eventSubscription", id: "esb_lab", by: "description" }],
  notChecked: [{ kind: "abuseReport", reason: "abuse reports cannot be listed" }],
  found: true,
  importFile: "/tmp/import.json",
  exitCode: 2,
};

const none: UnmanagedReport = {
  accounts: [
    {
      name: "A",
      baseUrl: "http://svc",
      listed: { eventSubscription: 1, eventDestination: 1 },
      managed: 2,
      excluded: 0,
      unmanaged: 0,
    },
  ],
  stacks: [{ stack: "dev", workDir: "/projects/dev", resources: 2 }],
  unmanaged: [],
  excluded: [],
  notChecked: [],
  found: false,
  exitCode: 0,
};

const X41 = "x".repeat(41);
const LONG_CELL = `made <by> hand | ${X41}…`;

test("the text: the counts per account, the stacks, a table of what is unmanaged, exclusions, what was not checked, the verdict", () => {
  expect(formatUnmanagedText(found)).toBe(
    [
      "Unmanaged check: resources of the account(s) in none of the stacks' states",
      "",
      "Account A (http://svc): 2 destination(s) and 3 subscription(s) listed; 2 managed, 1 excluded on purpose, 2 unmanaged.",
      "Account B|b (http://svc): 1 destination(s) and 0 subscription(s) listed; 0 managed, 0 excluded on purpose, 1 unmanaged.",
      "Stacks read (subscriptions and destinations each manages): dev (2), prod (0).",
      "",
      "UNMANAGED: 3 resource(s)",
      `  ACCOUNT  KIND          ID                               CREATED               DESCRIPTION${" ".repeat(50)}SENDS TO`,
      `  A        destination   ${ED}   2026-11-30T01:02:03Z  -${" ".repeat(60)}-`,
      `  A        subscription  ${ESB}  2026-11-30T01:02:04Z  ${LONG_CELL}  ${ED}, ${ED2}`,
      `  B|b      destination   ${ED2}   2026-11-30T01:02:05Z  B's${" ".repeat(58)}-`,
      "",
      "EXCLUDED ON PURPOSE: esb_lab (by description)",
      "",
      "Not checked: abuse reports cannot be listed.",
      "Bulk-import file written: /tmp/import.json (pulumi import --file).",
      "",
      "Result: 3 unmanaged resource(s) (exit code 2). Take them under management with `pulumi import --file`, delete them, or exclude them on purpose.",
      "",
    ].join("\n"),
  );
  expect(formatUnmanagedText(none)).toBe(
    [
      "Unmanaged check: resources of the account(s) in none of the stacks' states",
      "",
      "Account A (http://svc): 1 destination(s) and 1 subscription(s) listed; 2 managed, 0 excluded on purpose, 0 unmanaged.",
      "Stacks read (subscriptions and destinations each manages): dev (2).",
      "",
      "UNMANAGED: none",
      "",
      "",
      "Result: nothing unmanaged (exit code 0).",
      "",
    ].join("\n"),
  );
});

test("Markdown: the verdict, a table of what is unmanaged (cells escaped), and the details collapsed", () => {
  expect(formatUnmanagedMarkdown(found)).toBe(
    [
      "**Unmanaged resources:** 3 resources of the account in none of the stacks' states.",
      "",
      "| Account | Kind | ID | Created | Description | Sends to |",
      "| --- | --- | --- | --- | --- | --- |",
      `| A | destination | \`${ED}\` | 2026-11-30T01:02:03Z | - |  |`,
      `| A | subscription | \`${ESB}\` | 2026-11-30T01:02:04Z | made &lt;by> hand \\| ${X41}… | \`${ED}\`, \`${ED2}\` |`,
      `| B\\|b | destination | \`${ED2}\` | 2026-11-30T01:02:05Z | B's |  |`,
      "",
      "<details><summary>Details</summary>",
      "",
      "- Account A (http://svc): 2 destination(s) and 3 subscription(s) listed; 2 managed, 1 excluded on purpose, 2 unmanaged.",
      "- Account B\\|b (http://svc): 1 destination(s) and 0 subscription(s) listed; 0 managed, 0 excluded on purpose, 1 unmanaged.",
      "- Stacks read (subscriptions and destinations each manages): dev (2), prod (0).",
      "- Excluded on purpose: `esb_lab` (by description).",
      "- Not checked: abuse reports cannot be listed.",
      "- Exit code 2 (0: nothing unmanaged, 2: unmanaged resources, 1: the check failed).",
      "",
      "</details>",
      "",
    ].join("\n"),
  );
  expect(formatUnmanagedMarkdown(none)).toBe(
    [
      "**No unmanaged resources:** every subscription and destination of the account is in a stack's state.",
      "",
      "<details><summary>Details</summary>",
      "",
      "- Account A (http://svc): 1 destination(s) and 1 subscription(s) listed; 2 managed, 0 excluded on purpose, 0 unmanaged.",
      "- Stacks read (subscriptions and destinations each manages): dev (2).",
      "- Exit code 0 (0: nothing unmanaged, 2: unmanaged resources, 1: the check failed).",
      "",
      "</details>",
      "",
    ].join("\n"),
  );
  const one = { ...found, unmanaged: found.unmanaged.slice(0, 1) };
  expect(formatUnmanagedMarkdown(one).split("\n")[0]).toBe(
    "**Unmanaged resources:** 1 resource of the account in none of the stacks' states.",
  );
});

test("a description's own quotes are kept (escaped as in a JSON string); several exclusions are listed comma-separated, in both forms", () => {
  const report: UnmanagedReport = {
    ...none,
    accounts: [{ ...none.accounts[0], excluded: 2, unmanaged: 1 }],
    unmanaged: [{ ...found.unmanaged[2], account: "A", description: 'say "hi" now' }],
    excluded: [
      { account: "A", kind: "eventDestination", id: "ed_lab", by: "id" },
      { account: "A", kind: "eventSubscription", id: "esb_lab", by: "description" },
    ],
    found: true,
    exitCode: 2,
  };
  expect(formatUnmanagedText(report)).toBe(
    [
      "Unmanaged check: resources of the account(s) in none of the stacks' states",
      "",
      "Account A (http://svc): 1 destination(s) and 1 subscription(s) listed; 2 managed, 2 excluded on purpose, 1 unmanaged.",
      "Stacks read (subscriptions and destinations each manages): dev (2).",
      "",
      "UNMANAGED: 1 resource(s)",
      "  ACCOUNT  KIND         ID                              CREATED               DESCRIPTION     SENDS TO",
      `  A        destination  ${ED2}  2026-11-30T01:02:05Z  say \\"hi\\" now  -`,
      "",
      "EXCLUDED ON PURPOSE: ed_lab (by id), esb_lab (by description)",
      "",
      "",
      "Result: 1 unmanaged resource(s) (exit code 2). Take them under management with `pulumi import --file`, delete them, or exclude them on purpose.",
      "",
    ].join("\n"),
  );
  expect(formatUnmanagedMarkdown(report)).toBe(
    [
      "**Unmanaged resources:** 1 resource of the account in none of the stacks' states.",
      "",
      "| Account | Kind | ID | Created | Description | Sends to |",
      "| --- | --- | --- | --- | --- | --- |",
      `| A | destination | \`${ED2}\` | 2026-11-30T01:02:05Z | say \\\\"hi\\\\" now |  |`,
      "",
      "<details><summary>Details</summary>",
      "",
      "- Account A (http://svc): 1 destination(s) and 1 subscription(s) listed; 2 managed, 2 excluded on purpose, 1 unmanaged.",
      "- Stacks read (subscriptions and destinations each manages): dev (2).",
      "- Excluded on purpose: `ed_lab` (by id), `esb_lab` (by description).",
      "- Exit code 2 (0: nothing unmanaged, 2: unmanaged resources, 1: the check failed).",
      "",
      "</details>",
      "",
    ].join("\n"),
  );
});
