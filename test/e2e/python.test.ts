/**
 * A deployment from Python through the real Pulumi engine against the real emulator over HTTP:
 * the Python example of docs/resources.md (generated from docs/examples/quickstart.pp), as the
 * program of the project test/fixtures/python-deploy, on the generated SDK `pulumi_service`
 * (installed with pip from the wheel `npm run build:python-sdk` builds into a fresh venv beside
 * `pulumi` from PyPI), run by this repository's Python language host (scripts/pulumi-build/
 * pulumi-language-python) and deployed through the native plugin `pulumi-resource-service`.
 * up, a preview with no changes, refresh of a change made on the emulator, destroy; the
 * exported state holds no secret in plain form. Each step asserts on the emulator's data.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import type { Stack } from "@pulumi/pulumi/automation";
import { ServiceClient } from "../../sdk";
import { PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { docBlocks } from "../helpers/doc-blocks";
import { startEmulator } from "../helpers/emulator";
import { freshBackend, localStack, readCheckpoint } from "../helpers/pulumi";

const FIXTURE = path.join(REPO_ROOT, "test", "fixtures", "python-deploy");
const DOC = "docs/resources.md";
// Building the wheel and installing `pulumi` from PyPI into a fresh venv take a minute or two.
const TIMEOUT = 600_000;
const API_KEY = "sk_python_deploy_account_3f9a1c";
const DD_KEY = "dd-python-deploy-secret-7b2e4d";

const exec = promisify(execFile);

describe("a Python program on pulumi_service through the engine (real engine, real emulator)", () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let client: ServiceClient;
  let tmp: string;
  let program: string;
  let backend: string;
  let stack: Stack;
  let env: Record<string, string>;

  const outputs = async () =>
    Object.fromEntries(Object.entries(await stack.outputs()).map(([k, v]) => [k, v.value])) as Record<
      string,
      string
    >;
  const stateOf = async (name: string) =>
    (
      (await stack.exportStack()).deployment.resources as { urn: string; outputs?: Record<string, unknown> }[]
    ).find((r) => r.urn.endsWith(`::${name}`));
  const cli = (...args: string[]) =>
    exec("pulumi", [...args, "--stack", "python", "--non-interactive"], { cwd: program, env });

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "python-deploy-"));
    const wheels = path.join(tmp, "dist");
    await exec(process.execPath, [path.join(REPO_ROOT, "scripts", "build-python-sdk.js"), "--out", wheels]);
    const wheel = fs.readdirSync(wheels).find((f) => f.endsWith(".whl"));
    if (!wheel) throw new Error(`no wheel in ${wheels}`);

    // The program in a folder of its own, its plugin path made absolute, with its venv.
    program = path.join(tmp, "program");
    fs.cpSync(FIXTURE, program, { recursive: true, filter: (src) => path.basename(src) !== "venv" });
    const manifest = path.join(program, "Pulumi.yaml");
    const yaml = fs.readFileSync(manifest, "utf8").replace("path: ../../../bin", `path: ${REPO_ROOT}/bin`);
    fs.writeFileSync(manifest, yaml);
    const examples = docBlocks(path.join(REPO_ROOT, DOC), DOC).filter((b) => b.lang === "python");
    expect(examples).toHaveLength(1);
    fs.writeFileSync(path.join(program, "__main__.py"), examples[0].body);
    const venv = path.join(program, "venv");
    await exec("python3", ["-m", "venv", venv]);
    await exec(path.join(venv, "bin", "python"), [
      "-m",
      "pip",
      "install",
      "--quiet",
      path.join(wheels, wheel),
      `pulumi==${PULUMI_VERSION}`,
    ]);

    emulator = await startEmulator({ apiKeys: [API_KEY] });
    client = new ServiceClient({ apiKey: API_KEY, baseUrl: emulator.url });
    backend = freshBackend("e2e-python");
    ({ stack, env } = await localStack(program, "python", backend));
    await stack.setConfig("service:baseUrl", { value: emulator.url });
    await stack.setConfig("service:apiKey", { value: API_KEY, secret: true });
    await stack.setConfig("datadogApiKey", { value: DD_KEY, secret: true });
  }, TIMEOUT);

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it(
    "up creates the destination, the subscription and the report on the service",
    async () => {
      const up = await stack.up();
      expect(up.summary.resourceChanges?.create).toBe(4); // 3 resources and the stack
      const o = await outputs();
      const subscription = await client.eventSubscriptions.get(o.subscriptionId);
      expect(subscription.description).toBe("IP policy changes");
      expect(subscription.sources.map((s) => s.type).sort()).toEqual([
        "ip_policy_created.v0",
        "ip_policy_updated.v0",
      ]);
      expect(subscription.destinations).toHaveLength(1);
      const destination = await client.eventDestinations.get(subscription.destinations[0].id);
      expect(destination.description).toBe("Operational events to Datadog");
      expect(destination.target).toMatchObject({ datadog: { ddsite: "datadoghq.eu" } });
      expect(o.reportStatus).toBe("PENDING");
      // Declared through the generated SDK's tokens, created by the native plugin.
      expect((await stateOf("ipPolicyChanges"))?.urn).toContain("service:index:EventSubscription");
    },
    TIMEOUT,
  );

  it(
    "a preview after up shows no changes",
    async () => {
      const preview = await stack.preview({ expectNoChanges: true });
      expect(preview.changeSummary).toEqual({ same: 4 });
    },
    TIMEOUT,
  );

  it(
    "refresh takes a change made on the service into the state; up restores the program's value",
    async () => {
      const id = (await outputs()).subscriptionId;
      await client.eventSubscriptions.update(id, { description: "edited by hand" });
      const refresh = await stack.refresh();
      expect(refresh.summary.resourceChanges?.update).toBe(1);
      expect((await stateOf("ipPolicyChanges"))?.outputs?.description).toBe("edited by hand");
      const up = await stack.up();
      expect(up.summary.resourceChanges?.update).toBe(1);
      expect((await client.eventSubscriptions.get(id)).description).toBe("IP policy changes");
    },
    TIMEOUT,
  );

  it(
    "the state holds no secret in plain form: the API key and the Datadog key are encrypted",
    async () => {
      const exported = (await cli("stack", "export")).stdout;
      for (const text of [exported, readCheckpoint(backend)]) {
        expect(text).not.toContain(API_KEY);
        expect(text).not.toContain(DD_KEY);
      }
      expect(exported).toContain('"ciphertext"');
    },
    TIMEOUT,
  );

  it(
    "destroy deletes the destination and the subscription: the account is empty",
    async () => {
      const destroy = await stack.destroy();
      expect(destroy.summary.resourceChanges?.delete).toBe(4);
      const left: unknown[] = [];
      for await (const d of client.eventDestinations.list()) left.push(d);
      for await (const s of client.eventSubscriptions.list()) left.push(s);
      expect(left).toEqual([]);
    },
    TIMEOUT,
  );
});
