/**
 * Test helpers for running the real Pulumi engine through the Automation API against a local
 * file backend inside the repository (in `.pulumi-state/`, see {@link freshBackend}), never the Pulumi Cloud.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { gunzipSync } from "zlib";
import {
  LocalWorkspace,
  PulumiCommand,
  Stack,
  type OutputMap,
  type UpdateSummary,
} from "@pulumi/pulumi/automation";
import {
  findOldestPulumi,
  findPulumi,
  OLDEST_PULUMI_VERSION,
  pulumiEnv,
  REPO_ROOT,
  type FoundPulumi,
} from "../../scripts/pulumi-env";

/** The project's Pulumi CLI (built by scripts/ensure-pulumi.js, which `pretest` runs). */
export function requirePulumi(): FoundPulumi {
  const found = findPulumi();
  if (!found)
    throw new Error("No Pulumi CLI: run `node scripts/ensure-pulumi.js` (npm test does it in pretest).");
  return found;
}

/**
 * A fresh, empty local backend folder for one test file: `<run>/<name>-<pid>`, where `<run>` is
 * the test run's folder in `.pulumi-state/` (`PULUMI_SERVICE_TEST_STATE_DIR`, made by jest's
 * global setup and removed with the run), or `.pulumi-state` itself outside jest.
 */
export function freshBackend(name: string): string {
  const run = process.env.PULUMI_SERVICE_TEST_STATE_DIR || path.join(REPO_ROOT, ".pulumi-state");
  const dir = path.join(run, `${name}-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Environment for the engine with the given backend folder and extra variables. */
export function engineEnv(backendDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...pulumiEnv(requirePulumi(), { ...process.env, PULUMI_BACKEND_URL: `file://${backendDir}` }),
    PULUMI_CONFIG_PASSPHRASE: "test-passphrase",
    ...extra,
  };
}

/**
 * The Automation API's handle on the project's CLI (`<root>/bin/pulumi`), or on the `pulumi` of
 * folder `cliDir` when given (the oldest supported engine, {@link requireOldestPulumi}).
 */
export async function pulumiCommand(cliDir?: string): Promise<PulumiCommand> {
  return PulumiCommand.get({ root: path.dirname(cliDir ?? requirePulumi().dirs[0]) });
}

/**
 * The folder of the oldest supported Pulumi CLI (OLDEST_PULUMI_VERSION), which holds only
 * `pulumi` (built by `node scripts/ensure-pulumi.js --with-oldest`, which `npm run test:release`
 * and `npm run test:all` run first; `npm test` runs no test of it).
 * @throws Error when it is not built.
 */
export function requireOldestPulumi(): string {
  const dir = findOldestPulumi();
  if (!dir)
    throw new Error(
      `No Pulumi CLI v${OLDEST_PULUMI_VERSION}: run \`node scripts/ensure-pulumi.js --with-oldest\` (npm run test:release and test:all do it first).`,
    );
  return dir;
}

/** The test programs of this repository (test/fixtures), which `npm run typecheck` type-checks. */
const FIXTURES = path.join(REPO_ROOT, "test", "fixtures");

/**
 * The environment that skips the engine's type check of a TypeScript program in test/fixtures
 * (`PULUMI_NODEJS_TRANSPILE_ONLY=true`, read by `@pulumi/pulumi`'s program runner): the
 * repository's type check (`npm run typecheck`, which `npm test`'s pretest runs) has checked
 * those already, and checking them again costs about 4 s of CPU at every engine operation that
 * runs the program. Programs elsewhere (the examples, generated programs) keep the engine's check,
 * as a user's do. Empty for those.
 */
export function fixtureProgramEnv(workDir: string): Record<string, string> {
  const inFixtures = path.resolve(workDir).startsWith(FIXTURES + path.sep);
  return inFixtures ? { PULUMI_NODEJS_TRANSPILE_ONLY: "true" } : {};
}

/**
 * Creates (or selects) stack `stackName` of the local program in `workDir`, with a backend
 * folder of its own. Returns the stack and the environment it runs with (with
 * {@link fixtureProgramEnv} for a program of test/fixtures). With `cliDir`, the engine is the
 * `pulumi` of that folder, put first on `PATH` (the language hosts still come from the project's
 * CLI folder after it).
 */
export async function localStack(
  workDir: string,
  stackName: string,
  backendDir: string,
  extraEnv: Record<string, string> = {},
  cliDir?: string,
): Promise<{ stack: Stack; env: Record<string, string> }> {
  const env = engineEnv(backendDir, { ...fixtureProgramEnv(workDir), ...extraEnv });
  if (cliDir) env.PATH = [cliDir, env.PATH].join(path.delimiter);
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName, workDir },
    { envVars: env, pulumiCommand: await pulumiCommand(cliDir) },
  );
  return { stack: withCheaperReads(stack), env };
}

/**
 * `stack` with the Automation API's reads after an operation made cheaper; the operations
 * themselves are untouched. After every `up` the API reads the outputs with two CLI runs, the
 * second with `--show-secrets`, and the summary with `stack history --show-secrets`, and after
 * `refresh` and `destroy` the summary again: each `--show-secrets` derives the passphrase's key,
 * about 0.17 s of CPU of the 0.3 s such a run takes. Here `outputs()` reads the outputs masked,
 * and again with `--show-secrets` only when a `"[secret]"` is in them (the same `{ value, secret }`
 * map as the API's), and `info()` (the summary) reads the history without secrets unless asked for
 * them (a secret of the summary's `config` reads `"[secret]"`). About 0.5 s of CPU less at each
 * `up` whose outputs hold no secret, 0.18 s at each `refresh` and `destroy`.
 */
function withCheaperReads(stack: Stack): Stack {
  const ws = stack.workspace;
  // As the API runs its CLI: the CLI's folder first on PATH, never a prompt.
  const cli = ws.pulumiCommand.command;
  const env = {
    ...process.env,
    ...(ws.pulumiHome ? { PULUMI_HOME: ws.pulumiHome } : {}),
    ...ws.envVars,
    PATH: [path.dirname(cli), ws.envVars.PATH ?? process.env.PATH ?? ""].join(path.delimiter),
  };
  const run = async (args: string[]) =>
    (
      await promisify(execFile)(cli, [...args, "--stack", stack.name, "--non-interactive"], {
        cwd: ws.workDir,
        env,
        maxBuffer: 64 * 1024 * 1024,
      })
    ).stdout;
  stack.outputs = async (): Promise<OutputMap> => {
    const raw = await run(["stack", "output", "--json"]);
    const masked = JSON.parse(raw) as Record<string, unknown>;
    const values = raw.includes('"[secret]"')
      ? (JSON.parse(await run(["stack", "output", "--json", "--show-secrets"])) as Record<string, unknown>)
      : masked;
    return Object.fromEntries(
      Object.entries(values).map(([k, value]) => [k, { value, secret: masked[k] === "[secret]" }]),
    );
  };
  stack.info = async (showSecrets?: boolean): Promise<UpdateSummary | undefined> =>
    (await stack.history(1, undefined, showSecrets ?? false))?.[0];
  return stack;
}

/**
 * The teardown of an engine test's stack: destroys its resources, then removes the stack from
 * its backend. Does nothing for `undefined` (a set-up that failed before making the stack), and
 * ignores a failure of either step (a set-up that failed half-way), so that the test's own
 * failure is the one reported.
 */
export async function disposeStack(stack: Stack | undefined): Promise<void> {
  await stack?.destroy().catch(() => undefined);
  await stack?.workspace.removeStack(stack.name).catch(() => undefined);
}

/** Points the stack's provider at a service: `service:baseUrl`, and `service:apiKey` as a secret. */
export async function configureService(stack: Stack, baseUrl: string, apiKey: string): Promise<void> {
  await stack.setConfig("service:baseUrl", { value: baseUrl });
  await stack.setConfig("service:apiKey", { value: apiKey, secret: true });
}

/** The stack's outputs as plain values, `{ output: value }`, each output a map of names to strings. */
export async function stackOutputs(stack: Stack): Promise<Record<string, Record<string, string>>> {
  const outputs = await stack.outputs();
  return Object.fromEntries(Object.entries(outputs).map(([k, v]) => [k, v.value])) as Record<
    string,
    Record<string, string>
  >;
}

/**
 * Everything a local backend folder keeps of its stacks, as stored at rest (secrets encrypted),
 * concatenated: every file under `<backend>/.pulumi/`, that is the checkpoints
 * (`stacks/<project>/<stack>.json`) and their `.bak`, the history of every update
 * (`history/<project>/<stack>/`: each update's record and checkpoint), the backups
 * (`backups/<project>/<stack>/`), and the backend's metadata; gzipped files
 * (`PULUMI_SELF_MANAGED_STATE_GZIP`) unzipped. A secret found here is in the state in plain form.
 * With `updateRecords: false`, the history's update records (`*.history.json`: each update's
 * kind, result, environment and the stack's config as it was set, plain values in plain) are
 * left out, and only state is read.
 * @throws Error when the folder holds no checkpoint (nothing was stored: a check would read nothing).
 */
export function readStoredState(backendDir: string, { updateRecords = true } = {}): string {
  const root = path.join(backendDir, ".pulumi");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && (updateRecords || !/\.history\.json(\.gz)?$/.test(e.name))) files.push(p);
    }
  };
  walk(root);
  const stacks = path.join(root, "stacks") + path.sep;
  if (!files.some((f) => f.startsWith(stacks) && /\.json(\.gz)?$/.test(f)))
    throw new Error(`no checkpoint under ${stacks}`);
  return files
    .map((f) => (f.endsWith(".gz") ? gunzipSync(fs.readFileSync(f)) : fs.readFileSync(f)).toString("utf8"))
    .join("\n");
}
