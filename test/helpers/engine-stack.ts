/**
 * The set-up the engine tests of test/e2e share: the emulator in this process, a client of the
 * account a stack deploys to, and that stack of a program folder, in a fresh local backend folder,
 * its provider pointed at the emulator, with what the tests read of it (outputs, state, the CLI).
 */
import { execFile } from "child_process";
import { promisify } from "util";
import * as path from "path";
import type { Stack } from "@pulumi/pulumi/automation";
import { ServiceClient } from "../../client";
import { startEmulator, type RunningEmulator } from "./emulator";
import { configureService, freshBackend, localStack, stackOutputs } from "./pulumi";

/** A resource of a stack's exported state, as far as the tests read it. */
export interface StateResource {
  urn: string;
  id?: string;
  type: string;
  outputs?: Record<string, unknown>;
}

/** A stack on the emulator; see {@link startEngineStack}. */
export interface EngineStack {
  emulator: RunningEmulator;
  /** A client of the account the stack deploys to. */
  client: ServiceClient;
  /** That account's API key (the stack's `service:apiKey`). */
  apiKey: string;
  /** The stack's local backend folder. */
  backend: string;
  stack: Stack;
  /** The environment the stack's engine runs with. */
  env: Record<string, string>;
  /** The stack's outputs as plain values (by default each a map of names to strings). */
  outputs<T = Record<string, Record<string, string>>>(): Promise<T>;
  /** The resources of the stack's exported state. */
  resources(): Promise<StateResource[]>;
  /** The resource of the state named `name` (its URN ends with `::<name>`), if any. */
  resource(name: string): Promise<StateResource | undefined>;
  /** Runs the project's CLI, `pulumi <args> --stack <stack> --non-interactive`, in the program folder. */
  cli(...args: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Closes the client and the emulator. */
  close(): Promise<void>;
}

/**
 * The {@link EngineStack} of a stack already made: its outputs, resources and CLI read through
 * `stack` (an Automation API stack of `program`, named `stackName`, in `backend` with `env`), the
 * service through `client` of `emulator`'s account `apiKey`; `close` is the caller's.
 */
export function engineStackOf(parts: {
  emulator: RunningEmulator;
  client: ServiceClient;
  apiKey: string;
  backend: string;
  stack: EngineStack["stack"];
  env: Record<string, string>;
  program: string;
  stackName: string;
  close: () => Promise<void>;
}): EngineStack {
  const { stack, env } = parts;
  const resources = async () => ((await stack.exportStack()).deployment.resources ?? []) as StateResource[];
  return {
    emulator: parts.emulator,
    client: parts.client,
    apiKey: parts.apiKey,
    backend: parts.backend,
    stack,
    env,
    outputs: async <T>() => (await stackOutputs(stack)) as T,
    resources,
    resource: async (name) => (await resources()).find((r) => r.urn.endsWith(`::${name}`)),
    cli: (...args) =>
      promisify(execFile)("pulumi", [...args, "--stack", parts.stackName, "--non-interactive"], {
        cwd: parts.program,
        env,
        maxBuffer: 16 * 1024 * 1024,
      }),
    close: parts.close,
  };
}

/**
 * Starts the emulator (with `apiKeys` when given), a client of its first account, and creates
 * stack `stackName` of the program in `workDir` in a fresh backend folder `backendName`
 * ({@link freshBackend}), its `service:baseUrl` and `service:apiKey` set to the emulator and that
 * account. Whatever was started is closed again when a step fails. With `cliDir`, the engine is
 * the `pulumi` of that folder (see localStack).
 */
export async function startEngineStack(opts: {
  workDir: string;
  stackName: string;
  backendName: string;
  apiKeys?: string[];
  cliDir?: string;
}): Promise<EngineStack> {
  const emulator = await startEmulator(opts.apiKeys ? { apiKeys: opts.apiKeys } : {});
  const apiKey = emulator.apiKeys[0];
  const client = new ServiceClient({ apiKey, baseUrl: emulator.url });
  const close = async () => {
    await client.close();
    await emulator.close();
  };
  try {
    const backend = freshBackend(opts.backendName);
    const { stack, env } = await localStack(opts.workDir, opts.stackName, backend, {}, opts.cliDir);
    await configureService(stack, emulator.url, apiKey);
    return engineStackOf({
      emulator,
      client,
      apiKey,
      backend,
      stack,
      env,
      program: opts.workDir,
      stackName: opts.stackName,
      close,
    });
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Edits the description of subscription `id` on the service, as someone outside Pulumi would,
 * then refreshes the stack: asserts that the refresh updated one resource and that the state of
 * the resource named `name` holds the edit.
 */
export async function refreshOutOfBandEdit(e: EngineStack, id: string, name: string): Promise<void> {
  await e.client.eventSubscriptions.update(id, { description: "edited by hand" });
  const refresh = await e.stack.refresh();
  expect(refresh.summary.resourceChanges?.update).toBe(1);
  expect((await e.resource(name))?.outputs?.description).toBe("edited by hand");
}

/**
 * Previews the stack expecting no changes (the engine fails the preview on any), and asserts that
 * it counted `same` resources unchanged (the Stack resource included).
 */
export async function expectNoChangesPreview(e: EngineStack, same: number): Promise<void> {
  const preview = await e.stack.preview({ expectNoChanges: true });
  expect(preview.changeSummary.same).toBe(same);
}

/**
 * Runs `up` on the stack and asserts the engine's count of each kind of change, exactly
 * (e.g. `{ update: 1, same: 5 }`, the Stack resource counted).
 */
export async function expectUpChanges(e: EngineStack, changes: Record<string, number>): Promise<void> {
  const up = await e.stack.up();
  expect(up.summary.resourceChanges).toEqual(changes);
}

/** The engine test program that declares its resources through either door (test/fixtures/native). */
export const DOORS_PROGRAM = path.join(__dirname, "..", "fixtures", "native");

/**
 * {@link startEngineStack} of {@link DOORS_PROGRAM}: stack `name` in backend folder `e2e-<name>`,
 * its resources declared through `door` (the native plugin or the dynamic providers), with the
 * emulator's accounts of `apiKeys` when given.
 */
export async function startDoorsStack(
  door: "native" | "dynamic",
  name: string,
  apiKeys?: string[],
): Promise<EngineStack> {
  const e2e = await startEngineStack({
    workDir: DOORS_PROGRAM,
    stackName: name,
    backendName: `e2e-${name}`,
    ...(apiKeys ? { apiKeys } : {}),
  });
  try {
    await e2e.stack.setConfig("door", { value: door });
  } catch (err) {
    await e2e.close();
    throw err;
  }
  return e2e;
}
