/**
 * The engine test of an example project deployed from another language than YAML:
 * examples/<lang>/quickstart (its program generated from docs/examples/quickstart.pp, like the
 * example of docs/resources.md in that language), copied as git holds it to a folder under the
 * system's temporary directory, its packages installed by the install command of its README from
 * this checkout's builds instead of the public registry (the only change: environment variables
 * or the local packages named to that command, never an edit of the copy), run by this
 * repository's language host for that language and deployed through the native plugin
 * `pulumi-resource-service` (this checkout's, found on PATH as an ambient plugin) with the real
 * Pulumi engine against the real emulator over HTTP: up (checked on the emulator), a preview
 * with no changes, refresh of a change made on the emulator, no secret in plain form in the
 * state, destroy leaving the account empty. Used by test/e2e/python.test.ts, test/e2e/go.test.ts
 * and test/e2e/typescript-native.test.ts.
 */
import { execFile, execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { promisify } from "util";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { docBlocks } from "./doc-blocks";
import { refreshOutOfBandEdit, startEngineStack, type EngineStack } from "./engine-stack";
import { readStoredState } from "./pulumi";

/** Per step, in **milliseconds**: preparing a program installs packages or compiles. */
export const DEPLOY_TIMEOUT = 600_000;
const DD_KEY = "dd-quickstart-deploy-secret-7b2e4d";

/** How the test of one language's example project installs it from this checkout. */
export interface QuickstartExample {
  /** The language: the project is examples/<lang>/quickstart; also the stack's name. */
  lang: "python" | "go" | "typescript";
  /**
   * Runs the README's install command `command` in the copied project `program` against this
   * checkout's packages, built into `tmp` (scratch space), and checks that they, not a
   * registry's, were installed. Resolves with the variables the engine needs besides (a Go
   * module cache…), `{}` when none.
   */
  install(program: string, command: string, tmp: string): Promise<Record<string, string>>;
  /** The folder that holds the plugin `pulumi-resource-service` the engine is to run. */
  pluginDir(program: string): string;
}

/** The files of examples/<lang>/quickstart that git holds (or would: not ignored), copied to `to`. */
function copyExample(lang: string, to: string): void {
  const rel = path.join("examples", lang, "quickstart");
  const files = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", rel],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
    },
  )
    .split("\0")
    .filter((f) => f !== "" && fs.existsSync(path.join(REPO_ROOT, f)));
  expect(files.map((f) => path.basename(f))).toContain("Pulumi.yaml");
  for (const f of files) {
    const dest = path.join(to, path.relative(rel, f));
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(path.join(REPO_ROOT, f), dest);
  }
}

/**
 * The two commands of an example's README: its one shell block, without comments, must be an
 * install command followed by `pulumi up`.
 * @returns the install command.
 */
export function readmeInstallCommand(readme: string): string {
  const blocks = docBlocks(readme, readme).filter((b) => b.lang === "sh");
  expect(blocks).toHaveLength(1);
  const lines = blocks[0].body
    .split("\n")
    .map((l) => l.replace(/\s+#.*$/, "").trim())
    .filter(Boolean);
  expect(lines).toEqual([expect.any(String), "pulumi up --yes"]);
  return lines[0];
}

/** Runs `command` with bash in `cwd`; rejects with its whole output when it fails. */
export async function runCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    const r = await promisify(execFile)("bash", ["-e", "-o", "pipefail", "-c", command], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`\`${command}\` failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/**
 * Starts the engine stack of `program` with `extra` in its environment and `pluginDir` on its
 * PATH (after the CLI's folders), so that the engine runs that plugin instead of downloading the
 * one the SDK names. The engine's environment is made from this process's (engine-stack.ts), so
 * it is set there for the call only.
 */
async function startWithPlugin(
  program: string,
  lang: string,
  pluginDir: string,
  extra: Record<string, string>,
): Promise<EngineStack> {
  const vars = { ...extra, PATH: [pluginDir, process.env.PATH ?? ""].join(path.delimiter) };
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await startEngineStack({ workDir: program, stackName: lang, backendName: `e2e-${lang}` });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Declares the describe block of the deployment test of the example project of `p`. */
export function describeQuickstartDeployment(title: string, p: QuickstartExample): void {
  describe(title, () => {
    let e2e: EngineStack;
    let tmp: string;

    beforeAll(async () => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${p.lang}-quickstart-`));
      const program = path.join(tmp, "quickstart");
      copyExample(p.lang, program);
      const command = readmeInstallCommand(path.join(program, "README.md"));
      const env = await p.install(program, command, tmp);
      e2e = await startWithPlugin(program, p.lang, p.pluginDir(program), env);
      await e2e.stack.setConfig("datadogApiKey", { value: DD_KEY, secret: true });
    }, DEPLOY_TIMEOUT);

    afterAll(async () => {
      await e2e?.close();
      // A Go module cache's files are read-only.
      if (tmp) {
        await promisify(execFile)("chmod", ["-R", "u+w", tmp]).catch(() => undefined);
        fs.rmSync(tmp, { recursive: true, force: true });
      }
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
      for (const text of [exported, readStoredState(e2e().backend)]) {
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
