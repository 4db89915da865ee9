/**
 * The policy pack packages/policy (service-policy) through the real engine against the real
 * emulator: `pulumi preview --policy-pack` and `pulumi up --policy-pack` on the TypeScript
 * engine-test program test/fixtures/native, one stack per door (the native plugin's
 * `service:index:*` resources and the dynamic providers'), the pack started by the Node.js
 * language host's RunPlugin as the engine starts any Node.js pack. Each stack is previewed with
 * several specs (no deployment), then one `up` is refused.
 */
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import type { Spec } from "../fixtures/native";
import { startDoorsStack, type EngineStack } from "../helpers/engine-stack";
import { useTempDir } from "../helpers/temp-dir";

const PACK = path.join(REPO_ROOT, "packages", "policy");
/** Per engine run, in **milliseconds**: the pack's start and a preview of a few resources. */
const STEP_TIMEOUT = 240_000;
const ROLE = { role: { roleArn: "arn:aws:iam::111122223333:role/events" } };
const STREAM = "arn:aws:kinesis:us-east-1:999988887777:stream/audit";

/** A destination sending to STREAM and a subscription of it, with or without a description. */
function spec(description?: string, reports: Spec["reports"] = []): Spec {
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

        await setSpec(spec("audit events to the SIEM"));
        const allowOther = path.join(path.dirname(config), "other.json");
        fs.writeFileSync(
          allowOther,
          JSON.stringify({ "service-destination-targets": { awsAccounts: ["111122223333"] } }),
        );
        const refused = await run(e, "preview", "--policy-pack", PACK, "--policy-pack-config", allowOther);
        expect(refused.code).not.toBe(0);
        expect(refused.out).toContain("service-destination-targets");
        expect(refused.out).toMatch(/mandatory/);
        expect(refused.out).toContain(
          'event destination "audit-stream": kinesis.streamArn is in AWS account 999988887777, not an allowed one (awsAccounts: 111122223333)',
        );
        expect(refused.out).not.toContain("has no description");
      },
      2 * STEP_TIMEOUT,
    );

    it(
      "a --policy-pack-config that allows the stream's account lets the preview through",
      async () => {
        await setSpec(spec("audit events to the SIEM"));
        const r = await run(e, "preview", "--policy-pack", PACK, "--policy-pack-config", config);
        expect(r.out).toContain("service-policy");
        expect(r.out).not.toContain("not an allowed one");
        expect(r.code).toBe(0);
      },
      STEP_TIMEOUT,
    );

    it(
      "`pulumi up --policy-pack` refuses an abuse report in a stack that does not allow them, and the state holds no such report",
      async () => {
        await setSpec(
          spec("audit events to the SIEM", [
            { name: "phish", args: { urls: ["https://phish.example/login"] } },
          ]),
        );
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
