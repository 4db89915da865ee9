/**
 * gitops/stack-states.ts: the states of stacks read with the project's Pulumi CLI (`pulumi stack
 * export`) from a local backend, in the order given, a few at a time; the errors of a folder
 * without a project, of a stack that is not there, and of a `--stack` that names none.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseStackRef, readStackStates, UnmanagedError } from "../../gitops/stack-states";
import { engineEnv, freshBackend, pulumiCommand, requirePulumi } from "../helpers/pulumi";
import { useTempDir } from "../helpers/temp-dir";

const tmp = useTempDir("stack-states-");

test("parseStackRef: [DIR:]STACK, the folder resolved from the default; no stack or no folder named", () => {
  expect(parseStackRef("dev", "/work")).toEqual({ stack: "dev", cwd: "/work" });
  expect(parseStackRef("infra/app:org/p/dev", "/work")).toEqual({
    stack: "org/p/dev",
    cwd: path.resolve("/work/infra/app"),
  });
  expect(parseStackRef("/abs:dev", "/work")).toEqual({ stack: "dev", cwd: "/abs" });
  for (const bad of ["", "infra:", ":dev"]) {
    expect(() => parseStackRef(bad, "/work")).toThrow(
      new UnmanagedError(`--stack ${JSON.stringify(bad)}: expected [DIR:]STACK, e.g. infra/app:dev or dev`),
    );
  }
});

test("readStackStates: each stack's exported deployment, in the order given, two at a time; the errors name the stack and its folder", async () => {
  const backend = freshBackend("stack-states");
  const env = engineEnv(backend);
  const project = path.join(tmp(), "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: states\nruntime: nodejs\n");
  const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
  for (const stack of ["a", "b", "c"]) execFileSync(pulumi, ["stack", "init", stack], { cwd: project, env });
  const command = await pulumiCommand();

  const states = await readStackStates(
    ["c", "a", "b"].map((stack) => ({ stack, cwd: project })),
    { env, pulumiCommand: command, concurrency: 2 },
  );
  expect(states.map((s) => [s.stack, s.workDir])).toEqual([
    ["c", project],
    ["a", project],
    ["b", project],
  ]);
  for (const s of states) expect(s.deployment).toMatchObject({ manifest: expect.any(Object) });

  await expect(
    readStackStates([{ stack: "a", cwd: tmp() }], { env, pulumiCommand: command }),
  ).rejects.toThrow(
    new UnmanagedError(
      `Reading stack "a" in ${tmp()} failed: no Pulumi.yaml there (write --stack DIR:STACK).`,
    ),
  );
  const missing = readStackStates([{ stack: "nope", cwd: project }], { env, pulumiCommand: command });
  await expect(missing).rejects.toBeInstanceOf(UnmanagedError);
  await expect(missing).rejects.toThrow(
    new RegExp(
      `^Reading stack "nope" in ${project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} failed \\(pulumi stack export\\): .*nope`,
    ),
  );
  expect(await readStackStates([], { env })).toEqual([]);
}, 120_000);

test("readStackStates: the CLI given, `concurrency` at once; else the one found (on PATH here), its folders first on PATH; the stack's own environment over the rest; a long error cut", async () => {
  const { PulumiCommand } = await import("@pulumi/pulumi/automation");
  const { findPulumi } = await import("../../scripts/pulumi-env");
  const backend = freshBackend("stack-states-cli");
  const { PULUMI_BACKEND_URL: backendUrl, ...env } = engineEnv(backend);
  const project = path.join(tmp(), "project-cli");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: states\nruntime: nodejs\n");
  const pulumi = path.join(requirePulumi().dirs[0], "pulumi");
  execFileSync(pulumi, ["stack", "init", "a"], {
    cwd: project,
    env: { ...env, PULUMI_BACKEND_URL: backendUrl },
    stdio: "pipe",
  });
  const a = { stack: "a", cwd: project, env: { PULUMI_BACKEND_URL: backendUrl } };
  // A CLI that notes each `pulumi stack export` (its start with PATH and PULUMI_SKIP_UPDATE_CHECK, its end).
  const log = path.join(tmp(), "exports.log");
  const bin = path.join(tmp(), "noting-cli", "bin");
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(
    path.join(bin, "pulumi"),
    [
      "#!/bin/sh",
      `if [ "$1 $2" != "stack export" ]; then exec "${pulumi}" "$@"; fi`,
      `echo "start|$PATH|$PULUMI_SKIP_UPDATE_CHECK|$PULUMI_BACKEND_URL" >> "${log}"`,
      `"${pulumi}" "$@"`,
      "rc=$?",
      `echo end >> "${log}"`,
      "exit $rc",
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  const noted = () => {
    const lines = fs.readFileSync(log, "utf8").trimEnd().split("\n");
    fs.rmSync(log);
    return lines;
  };

  // The CLI given, one stack at a time; the stack's backend over the environment's.
  const given = await PulumiCommand.get({ root: path.dirname(bin) });
  const states = await readStackStates([a, a], {
    env: { ...env, PULUMI_BACKEND_URL: "file:///not/this/one" },
    pulumiCommand: given,
    concurrency: 1,
  });
  expect(states.map((s) => s.stack)).toEqual(["a", "a"]);
  const start = `start|${bin}${path.delimiter}${env.PATH}|1|${backendUrl}`;
  expect(noted()).toEqual([start, "end", start, "end"]);

  // No CLI given: the one found (the noting CLI, first on PATH), its folders first on the stack's PATH.
  const processPath = process.env.PATH;
  process.env.PATH = [bin, ...requirePulumi().dirs, processPath].join(path.delimiter);
  try {
    const dirs = (findPulumi() as { dirs: string[] }).dirs;
    expect(dirs[0]).toBe(bin);
    expect((await readStackStates([a], { env })).map((s) => s.stack)).toEqual(["a"]);
    expect(noted()).toEqual([
      `start|${[bin, ...dirs, env.PATH].join(path.delimiter)}|1|${backendUrl}`,
      "end",
    ]);
    // An environment without PATH: the CLI's folders alone (no empty entry, the current folder),
    // after the CLI's own, which the Automation API puts first.
    const { PATH: _path, ...noPath } = env;
    expect((await readStackStates([a], { env: noPath })).map((s) => s.stack)).toEqual(["a"]);
    expect(noted()).toEqual([`start|${[bin, ...dirs].join(path.delimiter)}|1|${backendUrl}`, "end"]);
  } finally {
    process.env.PATH = processPath;
  }

  const real = await pulumiCommand();
  // A backend that cannot be opened: the CLI's error (after the command run), cut at 800 characters.
  const name = "x".repeat(900);
  const err = (await readStackStates([{ ...a, env: { PULUMI_BACKEND_URL: `file:///dev/null/${name}` } }], {
    env,
    pulumiCommand: real,
  }).catch((e: unknown) => e)) as Error;
  const failed = (code: number, stack: string) =>
    `Command failed with exit code ${code}: ${real.command} stack export --show-secrets --stack ${stack} --non-interactive`;
  expect(String(err)).toBe(
    `UnmanagedError: Reading stack "a" in ${project} failed (pulumi stack export): ` +
      `${failed(1, "a")}\nerror: unable to open state directory "file:///dev/null/${name}": stat /dev/null/${name}: not a directory`.slice(
        0,
        800,
      ),
  );
  const missing = (await readStackStates([{ ...a, stack: "nope" }], { env, pulumiCommand: real }).catch(
    (e: unknown) => e,
  )) as Error;
  expect(missing.message).toBe(
    `Reading stack "nope" in ${project} failed (pulumi stack export): ${failed(6, "nope")}\nerror: no stack named 'nope' found`,
  );
}, 60_000);
