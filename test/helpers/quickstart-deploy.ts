/**
 * The engine test of a docs example deployed from another language than TypeScript: the
 * example of docs/resources.md in `lang` (generated from docs/examples/quickstart.pp), as the
 * program of a project folder, run by this repository's language host for that language and
 * deployed through the native plugin `pulumi-resource-service` with the real Pulumi engine
 * against the real emulator over HTTP: up (checked on the emulator), a preview with no
 * changes, refresh of a change made on the emulator, no secret in plain form in the state,
 * destroy leaving the account empty. Used by test/e2e/python.test.ts and test/e2e/go.test.ts.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { docBlocks } from "./doc-blocks";
import { refreshOutOfBandEdit, startEngineStack, type EngineStack } from "./engine-stack";
import { readCheckpoint } from "./pulumi";

const DOC = "docs/resources.md";
/** Per step, in **milliseconds**: preparing a program installs packages or compiles. */
export const DEPLOY_TIMEOUT = 600_000;
const DD_KEY = "dd-quickstart-deploy-secret-7b2e4d";

/** How to turn the docs' example into a runnable project of one language. */
export interface QuickstartProgram {
  /** The fence language of the example in docs/resources.md (`python`, `go`). */
  lang: string;
  /** The project folder of test/fixtures to copy (its Pulumi.yaml names the runtime). */
  fixture: string;
  /** The file the example is written to, in the project folder (`__main__.py`, `main.go`). */
  file: string;
  /** Makes the copied project runnable (virtual environment, go.mod…); `tmp` is scratch space. */
  prepare(program: string, tmp: string): Promise<void>;
}

/** The `plugins.providers[].path` of the fixtures, relative to test/fixtures/<name>. */
const RELATIVE_PLUGIN_PATH = "path: ../../../bin";

/** Declares the describe block of the deployment test of `p`. */
export function describeQuickstartDeployment(title: string, p: QuickstartProgram): void {
  describe(title, () => {
    let e2e: EngineStack;
    let tmp: string;

    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${p.lang}-deploy-`));
      // The project in a folder of its own, its plugin path made absolute, the example its program.
      const program = path.join(tmp, "program");
      fs.cpSync(path.join(REPO_ROOT, "test", "fixtures", p.fixture), program, { recursive: true });
      const manifest = path.join(program, "Pulumi.yaml");
      const yaml = fs.readFileSync(manifest, "utf8");
      expect(yaml).toContain(RELATIVE_PLUGIN_PATH);
      fs.writeFileSync(manifest, yaml.replace(RELATIVE_PLUGIN_PATH, `path: ${REPO_ROOT}/bin`));
      const examples = docBlocks(path.join(REPO_ROOT, DOC), DOC).filter((b) => b.lang === p.lang);
      expect(examples).toHaveLength(1);
      fs.writeFileSync(path.join(program, p.file), examples[0].body);
      await p.prepare(program, tmp);

      e2e = await startEngineStack({ workDir: program, stackName: p.lang, backendName: `e2e-${p.lang}` });
      await e2e.stack.setConfig("datadogApiKey", { value: DD_KEY, secret: true });
    }, DEPLOY_TIMEOUT);

    afterAll(async () => {
      await e2e?.close();
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    });

    itDeploysTheQuickstart(() => e2e, DD_KEY);
  });
}

/**
 * Declares the tests of a deployed quickstart (the example of docs/resources.md, in any language):
 * up creates the three resources (checked on the emulator), a preview after it has no changes,
 * refresh takes an out-of-band edit and up restores it, the state holds neither the API key nor
 * `ddKey` (the stack's secret `datadogApiKey`) in plain form, destroy empties the account.
 * @param e2e - the engine stack of the program, made by the caller's `beforeAll`.
 * @param timeoutMs - each test's timeout, in **milliseconds**.
 */
export function itDeploysTheQuickstart(
  e2e: () => EngineStack,
  ddKey: string,
  timeoutMs = DEPLOY_TIMEOUT,
): void {
  it(
    "up creates the destination, the subscription and the report on the service",
    async () => {
      const up = await e2e().stack.up();
      expect(up.summary.resourceChanges?.create).toBe(4); // 3 resources and the stack
      const o = await e2e().outputs<Record<string, string>>();
      const subscription = await e2e().client.eventSubscriptions.get(o.subscriptionId);
      expect(subscription.description).toBe("IP policy changes");
      expect(subscription.sources.map((s) => s.type).sort()).toEqual([
        "ip_policy_created.v0",
        "ip_policy_updated.v0",
      ]);
      expect(subscription.destinations).toHaveLength(1);
      const destination = await e2e().client.eventDestinations.get(subscription.destinations[0].id);
      expect(destination.description).toBe("Operational events to Datadog");
      expect(destination.target).toMatchObject({ datadog: { ddsite: "datadoghq.eu" } });
      expect(o.reportStatus).toBe("PENDING");
      // Declared through the generated SDK's tokens, created by the native plugin.
      expect((await e2e().resource("ipPolicyChanges"))?.urn).toContain("service:index:EventSubscription");
    },
    timeoutMs,
  );

  it(
    "a preview after up shows no changes",
    async () => {
      const preview = await e2e().stack.preview({ expectNoChanges: true });
      expect(preview.changeSummary).toEqual({ same: 4 });
    },
    timeoutMs,
  );

  it(
    "refresh takes a change made on the service into the state; up restores the program's value",
    async () => {
      const id = (await e2e().outputs<Record<string, string>>()).subscriptionId;
      await refreshOutOfBandEdit(e2e(), id, "ipPolicyChanges");
      const up = await e2e().stack.up();
      expect(up.summary.resourceChanges?.update).toBe(1);
      expect((await e2e().client.eventSubscriptions.get(id)).description).toBe("IP policy changes");
    },
    timeoutMs,
  );

  it(
    "the state holds no secret in plain form: the API key and the Datadog key are encrypted",
    async () => {
      const exported = (await e2e().cli("stack", "export")).stdout;
      for (const text of [exported, readCheckpoint(e2e().backend)]) {
        expect(text).not.toContain(e2e().apiKey);
        expect(text).not.toContain(ddKey);
      }
      expect(exported).toContain('"ciphertext"');
    },
    timeoutMs,
  );

  it(
    "destroy deletes the destination and the subscription: the account is empty",
    async () => {
      const destroy = await e2e().stack.destroy();
      expect(destroy.summary.resourceChanges?.delete).toBe(4);
      const left: unknown[] = [];
      for await (const d of e2e().client.eventDestinations.list()) left.push(d);
      for await (const s of e2e().client.eventSubscriptions.list()) left.push(s);
      expect(left).toEqual([]);
    },
    timeoutMs,
  );
}
