/**
 * The examples users copy, each run by the one command its README gives (the scripts
 * `npm run example:multi-env`, `example:gitops` and `example:testing` call these after building), with
 * the project's Pulumi CLI on PATH as a user's machine has one. (The quick start is deployed
 * by test/e2e/consumer.test.ts from the installed packages.)
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { pulumiEnv } from "../../scripts/pulumi-env";
import { requirePulumi } from "../helpers/pulumi";

const REPO = path.resolve(__dirname, "../..");

function npmWorkspace(script: string, workspace: string) {
  const r = spawnSync("npm", [script, "--workspace", workspace], {
    cwd: REPO,
    env: pulumiEnv(requirePulumi(), process.env),
    encoding: "utf8",
    timeout: 600_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("examples", () => {
  it("multi-env: dev and prod get their own destinations and event sets; alerts reach the same environment's destinations", () => {
    const r = npmWorkspace("start", "example-multi-env");
    if (r.status !== 0) throw new Error(r.out);
    const line = r.out.split("\n").find((l) => l.startsWith("summary: "));
    expect(JSON.parse(line!.slice("summary: ".length))).toEqual({
      dev: {
        destinations: ["audit (dev): kinesis"],
        changes: ["ip_policy_created.v0", "ip_policy_updated.v0"],
        alertsGoTo: "the same destinations",
      },
      prod: {
        destinations: ["audit (prod): kinesis", "logs (prod): cloudwatchLogs"],
        changes: [
          "ip_policy_created.v0",
          "ip_policy_updated.v0",
          "ip_policy_deleted.v0",
          "domain_created.v0",
          "domain_deleted.v0",
        ],
        alertsGoTo: "the same destinations",
      },
    });
    expect(r.out).toMatch(/left on the service after destroy: 0/);
  }, 600_000);

  it("gitops: the workflow's jobs, per stack: preview, up, nightly drift keeping one issue per stack, up --refresh", () => {
    const r = npmWorkspace("start", "example-gitops");
    if (r.status !== 0) throw new Error(r.out);
    const line = r.out.split("\n").find((l) => l.startsWith("summary: "));
    const summary = JSON.parse(line!.slice("summary: ".length)) as {
      steps: { what: string; codes: Record<string, number>; openIssues: string[]; issues: number }[];
      issueBodyNamesTheEdit: boolean;
      closedWith: string[];
    };
    const clean = { dev: 0, prod: 0 };
    const open = ["Drift in stack dev"];
    expect(summary.steps).toEqual([
      { what: "pull request: preview", codes: clean, openIssues: [], issues: 0 },
      { what: "merge: up", codes: clean, openIssues: [], issues: 0 },
      { what: "night: drift", codes: clean, openIssues: [], issues: 0 },
      {
        what: "night after a hand edit of dev: drift",
        codes: { dev: 2, prod: 0 },
        openIssues: open,
        issues: 1,
      },
      { what: "next night: drift", codes: { dev: 2, prod: 0 }, openIssues: open, issues: 1 },
      { what: "merge: up --refresh", codes: clean, openIssues: open, issues: 1 },
      { what: "night: drift", codes: clean, openIssues: [], issues: 1 },
    ]);
    expect(summary.issueBodyNamesTheEdit).toBe(true);
    expect(summary.closedWith).toEqual([expect.stringMatching(/^\*\*No drift in stack `dev`:\*\*/)]);
  }, 600_000);

  it("testing: the example's own jest test deploys, checks and destroys its program", () => {
    const r = npmWorkspace("test", "example-testing");
    if (r.status !== 0) throw new Error(r.out);
    expect(r.out).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 600_000);
});
