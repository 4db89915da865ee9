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
