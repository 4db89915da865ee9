/**
 * The policy pack packages/policy (service-policy) through the real engine against the real
 * emulator: `pulumi preview --policy-pack` and `pulumi up --policy-pack` on the TypeScript
 * engine-test program test/fixtures/native, one stack per door (the native plugin's
 * `service:index:*` resources and the dynamic providers'), the pack started by the Node.js
 * language host's RunPlugin as the engine starts any Node.js pack. Each stack is previewed with
 * several specs (no deployment), then one `up` is refused. Then a YAML stack (native door, Pulumi
 * YAML's language host): one preview violating every resource rule, then an `up` respecting every
 * rule, a subscription changed by hand on the emulator into a violation, and the nightly check of
 * what is deployed: `pulumi refresh`, then Pulumi's `pulumi policy analyze` with the pack.
 *
 * Every rule is violated and respected on the native door (TypeScript and YAML) and on the
 * dynamic door, but for `service-subscription-sources-and-destinations`, violated on the YAML
 * stack only: the provider's own check rejects the same subscription (the contract's minimums),
 * and its error ends the preview, so that a preview showing it shows nothing after it.
 */
import * as fs from "fs";
import * as path from "path";
import { execFile } from "child_process";
import { promisify } from "util";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import type { Spec } from "../fixtures/native";
import { blocksRunBy, commands } from "../helpers/doc-blocks";
import { DOORS_PROGRAM, startDoorsStack, startEngineStack, type EngineStack } from "../helpers/engine-stack";
import { runDriftCli } from "../helpers/gitops";
import { useTempDir } from "../helpers/temp-dir";

const PACK = path.join(REPO_ROOT, "packages", "policy");
/** Per engine run, in **milliseconds**: the pack's start and a preview of a few resources. */
const STEP_TIMEOUT = 240_000;
const ROLE = { role: { roleArn: "arn:aws:iam::111122223333:role/events" } };
const STREAM = "arn:aws:kinesis:us-east-1:999988887777:stream/audit";
/** An abuse report, which the pack refuses unless the config allows them. */
const REPORT = { name: "phish", args: { urls: ["https://phish.example/login"] } };
/** The ID of an event destination no stack of these tests declares. */
const FOREIGN = "ed_0123456789abcdefghijABCDEFG";

/**
 * A destination sending to STREAM and a subscription of it, with or without a description, then
 * `more` subscriptions.
 */
function spec(description?: string, reports: Spec["reports"] = [], more: Spec["subscriptions"] = []): Spec {
  return {
    destinations: [
      { name: "audit-stream", args: { target: { kinesis: { auth: ROLE, streamArn: STREAM } } } },
    ],
    subscriptions: [
      {
        name: "audit",
        destinations: ["audit-stream"],
        args: { sources: [{ type: "ip_policy_created.v0" }], ...(description ? { description } : {}) },
      },
      ...more,
    ],
    reports,
  };
}

/** `pulumi <args>` on the stack: its exit (0 or the error's code) and stdout + stderr. */
async function run(e: EngineStack, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const r = await e.cli(...args);
    return { code: 0, out: r.stdout + r.stderr };
  } catch (err) {
    const x = err as { code?: number; stdout?: string; stderr?: string };
    return { code: x.code ?? -1, out: `${x.stdout ?? ""}${x.stderr ?? ""}` };
  }
}

/**
 * Asserts that the pack ran and every rule was respected: the run (a preview, an `up`, a
 * `pulumi policy analyze`) passed and listed the pack with no violation, mandatory or advisory.
 */
function expectRespected(r: { code: number; out: string }): void {
  expect(r.out).toMatch(/✅ service-policy@v\S+/);
  expect(r.out).not.toMatch(/\[(mandatory|advisory)\]/);
  expect(r.code).toBe(0);
}

describe.each(["dynamic", "native"] as const)(
  "service-policy on the %s door (real engine, real emulator)",
  (door) => {
    let e: EngineStack;
    let config: string;
    const tmp = useTempDir("policy-config-");
    const setSpec = (s: Spec) => e.stack.setConfig("spec", { value: JSON.stringify(s) });

    beforeAll(async () => {
      e = await startDoorsStack(door, `policy-${door}`);
      config = path.join(tmp(), "policy-config.json");
      fs.writeFileSync(
        config,
        JSON.stringify({ "service-destination-targets": { awsAccounts: ["999988887777"] } }),
      );
    }, STEP_TIMEOUT);
    afterAll(async () => {
      await e?.close();
    });

    it(
      "a mandatory violation fails the preview with the rule's message; an advisory one only warns",
      async () => {
        await setSpec(spec());
        const r = await run(e, "preview", "--policy-pack", PACK);
        // Without --policy-pack-config every account is allowed: the advisory rule alone, a warning.
        expect(r.out).toContain("service-subscription-description");
        expect(r.out).toContain('event subscription "audit" has no description');
        expect(r.out).toMatch(/advisory/);
        expect(r.code).toBe(0);

        // Also a subscription of an event type left out of allowedEventTypes, sending to a
        // destination of no stack as well as to this stack's.
        const elsewhere = {
          name: "elsewhere",
          destinations: ["audit-stream"],
          args: {
            description: "agent sessions",
            sources: [{ type: "agent_session_start.v0" }],
            destinationIds: [FOREIGN],
          },
        };
        await setSpec(spec("audit events to the SIEM", [], [elsewhere]));
        const allowOther = path.join(path.dirname(config), "other.json");
        fs.writeFileSync(
          allowOther,
          JSON.stringify({
            "service-destination-targets": { awsAccounts: ["111122223333"] },
            "service-subscription-event-types": { allowedEventTypes: ["ip_policy_created.v0"] },
          }),
        );
        const refused = await run(e, "preview", "--policy-pack", PACK, "--policy-pack-config", allowOther);
        expect(refused.code).not.toBe(0);
        expect(refused.out).toContain("service-destination-targets");
        expect(refused.out).toMatch(/mandatory/);
        expect(refused.out).toContain(
          'event destination "audit-stream": kinesis.streamArn is in AWS account 999988887777, not an allowed one (awsAccounts: 111122223333)',
        );
        expect(refused.out).toContain(
          'event subscription "elsewhere": event type "agent_session_start.v0" is not allowed (allowedEventTypes)',
        );
        expect(refused.out).toContain(
          `event subscription "elsewhere" sends to ${FOREIGN}, which no event destination of this stack declares`,
        );
        expect(refused.out).not.toContain("has no description");

        // The pull request's summary of the same preview (the GitOps example's preview job).
        const md = await runDriftCli(
          [
            "preview",
            ...["--stack", `policy-${door}`, "--cwd", DOORS_PROGRAM, "--format", "markdown"],
            ...["--policy-pack", PACK, "--policy-pack-config", allowOther],
          ],
          e.env,
        );
        expect({ code: md.code, stderr: md.stderr }).toEqual({ code: 2, stderr: "" });
        expect(md.stdout).toContain(
          "**Policy violations: 3 mandatory (`pulumi up` would refuse this change)**",
        );
        expect(md.stdout).toContain(
          '| mandatory | `service-destination-targets` | audit-stream (EventDestination) | event destination "audit-stream": kinesis.streamArn is in AWS account 999988887777, not an allowed one (awsAccounts: 111122223333) |',
        );
        expect(md.stdout).toContain(
          `| mandatory | \`service-subscription-destinations-in-stack\` | elsewhere (EventSubscription) | event subscription "elsewhere" sends to ${FOREIGN}, which no event destination of this stack declares |`,
        );
      },
      3 * STEP_TIMEOUT,
    );

    it(
      "a --policy-pack-config that allows the stream's account and abuse reports lets the preview through",
      async () => {
        await setSpec(spec("audit events to the SIEM", [REPORT]));
        const allowReports = path.join(path.dirname(config), "reports.json");
        fs.writeFileSync(
          allowReports,
          JSON.stringify({
            "service-destination-targets": { awsAccounts: ["999988887777"] },
            "service-abuse-reports-allowed": { allowAbuseReports: true },
          }),
        );
        const r = await run(e, "preview", "--policy-pack", PACK, "--policy-pack-config", allowReports);
        expectRespected(r);
      },
      STEP_TIMEOUT,
    );

    it(
      "`pulumi up --policy-pack` refuses an abuse report in a stack that does not allow them, and the state holds no such report",
      async () => {
        await setSpec(spec("audit events to the SIEM", [REPORT]));
        const r = await run(
          e,
          "up",
          "--yes",
          "--skip-preview",
          "--policy-pack",
          PACK,
          "--policy-pack-config",
          config,
        );
        expect(r.code).not.toBe(0);
        expect(r.out).toContain('abuse report "phish" is not allowed in this stack');
        expect(await e.resource("phish")).toBeUndefined();
      },
      STEP_TIMEOUT,
    );
  },
);

/**
 * A Pulumi YAML program of the native door (the plugin of this checkout's bin/): a destination
 * sending to a stream of account `account`, subscriptions and an abuse report; with `violations`,
 * the subscription has no description, and there are also a subscription of an event type outside
 * the configs' allowedEventTypes and one with no source nor destination, declared last
 * (`dependsOn` the others) since the provider's check of it ends the preview (before the stack
 * rule, whose violation the TypeScript stacks show).
 */
function yamlProgram(account: string, violations: boolean): string {
  const target = `{ kinesis: { auth: { role: { roleArn: "${ROLE.role.roleArn}" } }, streamArn: "arn:aws:kinesis:us-east-1:${account}:stream/audit" } }`;
  const subscription = (name: string, body: string[]) => [
    `  ${name}:`,
    "    type: service:index:EventSubscription",
    "    properties:",
    ...body.map((l) => `      ${l}`),
  ];
  return [
    "name: policy-yaml",
    "runtime: yaml",
    `plugins:\n  providers:\n    - name: service\n      path: ${path.join(REPO_ROOT, "bin")}`,
    "resources:",
    "  auditStream:",
    "    type: service:index:EventDestination",
    `    properties: { target: ${target} }`,
    "  phish:",
    "    type: service:index:AbuseReport",
    `    properties: { urls: ["${REPORT.args.urls[0]}"] }`,
    ...subscription("audit", [
      ...(violations ? [] : ["description: audit events to the SIEM"]),
      "sources: [{ type: ip_policy_created.v0 }]",
      'destinationIds: ["${auditStream.id}"]',
    ]),
    ...(violations
      ? [
          ...subscription("sessions", [
            "description: agent sessions",
            "sources: [{ type: agent_session_start.v0 }]",
            'destinationIds: ["${auditStream.id}"]',
          ]),
          ...subscription("empty", ["description: nothing", "sources: []", "destinationIds: []"]),
          '    options: { dependsOn: ["${auditStream}", "${phish}", "${audit}", "${sessions}"] }',
        ]
      : []),
    "",
  ].join("\n");
}

describe("service-policy on a YAML stack of the native door (real engine, real emulator)", () => {
  let e: EngineStack;
  const tmp = useTempDir("policy-yaml-");
  /**
   * Writes the program and the pack config, then runs `pulumi <command> --policy-pack PACK
   * --policy-pack-config <config>`.
   */
  async function withPack(command: string[], program: string, packConfig: object) {
    fs.writeFileSync(path.join(e.stack.workspace.workDir, "Pulumi.yaml"), program);
    const file = path.join(e.stack.workspace.workDir, "policy-config.json");
    fs.writeFileSync(file, JSON.stringify(packConfig));
    return run(e, ...command, "--policy-pack", PACK, "--policy-pack-config", file);
  }
  const config = {
    "service-destination-targets": { awsAccounts: ["111122223333"] },
    "service-subscription-event-types": { allowedEventTypes: ["ip_policy_created.v0"] },
  };

  beforeAll(async () => {
    const dir = path.join(tmp(), "program");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, "Pulumi.yaml"), yamlProgram("111122223333", false));
    // As after `npm install service-policy` (the workspace's node_modules links packages/policy).
    fs.symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
    e = await startEngineStack({ workDir: dir, stackName: "policy-yaml", backendName: "e2e-policy-yaml" });
  }, STEP_TIMEOUT);
  afterAll(async () => {
    await e?.close();
  });

  it(
    "one preview reports every resource rule's violation, mandatory ones failing it",
    async () => {
      const r = await withPack(["preview"], yamlProgram("999988887777", true), config);
      expect(r.code).not.toBe(0);
      for (const [level, rule, message] of [
        [
          "mandatory",
          "service-destination-targets",
          'event destination "auditStream": kinesis.streamArn is in AWS account 999988887777, not an allowed one (awsAccounts: 111122223333)',
        ],
        ["advisory", "service-subscription-description", 'event subscription "audit" has no description'],
        [
          "mandatory",
          "service-subscription-event-types",
          'event subscription "sessions": event type "agent_session_start.v0" is not allowed (allowedEventTypes)',
        ],
        [
          "mandatory",
          "service-subscription-sources-and-destinations",
          'event subscription "empty" has no source (sources: at least 1)',
        ],
        [
          "mandatory",
          "service-abuse-reports-allowed",
          'abuse report "phish" is not allowed in this stack (set allowAbuseReports: true in the policy pack config of stacks that file abuse reports)',
        ],
      ]) {
        expect(r.out).toContain(`[${level}]  ${rule}  (`);
        expect(r.out).toContain(message);
      }
      expect(r.out).toContain('event subscription "empty" has no destination (destinationIds: at least 1)');
    },
    STEP_TIMEOUT,
  );

  it(
    "respecting every rule, `pulumi up --policy-pack` deploys; a subscription changed by hand into a violation is reported by `pulumi refresh` then `pulumi policy analyze`, which fails",
    async () => {
      const program = yamlProgram("111122223333", false);
      const allowed = { ...config, "service-abuse-reports-allowed": { allowAbuseReports: true } };
      const up = await withPack(["up", "--yes", "--skip-preview"], program, allowed);
      expectRespected(up);
      expect(up.out).toContain("+ 4 created");

      const audit = await e.resource("audit");
      await e.client.eventSubscriptions.update(audit!.id!, { sources: [{ type: "agent_session_start.v0" }] });
      // The state holds what was deployed until a refresh reads the service.
      expectRespected(await withPack(["policy", "analyze"], program, allowed));
      // The nightly check as docs/policy.md prints it, in the program's folder, whose
      // node_modules holds service-policy, and whose policy-config.json is `allowed`.
      const [block, ...more] = blocksRunBy(REPO_ROOT, "test/e2e/policy.test.ts");
      expect(more).toEqual([]);
      expect(commands(block)).toMatch(/^pulumi refresh --yes\npulumi policy analyze --policy-pack /);
      const r = await promisify(execFile)("bash", ["-eo", "pipefail", "-c", commands(block)], {
        cwd: e.stack.workspace.workDir,
        env: e.env,
      }).then(
        (x) => ({ code: 0, out: x.stdout + x.stderr }),
        (x: { code?: number; stdout?: string; stderr?: string }) => ({
          code: x.code ?? -1,
          out: `${x.stdout ?? ""}${x.stderr ?? ""}`,
        }),
      );
      expect(r.out).toContain(
        "[mandatory]  service-subscription-event-types  (service:index:EventSubscription: audit)",
      );
      expect(r.out).toContain(
        'event subscription "audit": event type "agent_session_start.v0" is not allowed (allowedEventTypes)',
      );
      expect(r.code).not.toBe(0);
    },
    2 * STEP_TIMEOUT,
  );
});
