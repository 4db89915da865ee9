/**
 * Running the package's command lines in process: an io that captures what a command writes.
 * The three command lines (`service-emulator`, `service-drift`, `service-recover`) take the same
 * io shape, so one helper serves all their tests.
 */
import ts from "typescript";
import type { CliIo } from "../../gitops/io";

/** An io whose output is collected in `out` (`stdout`, `stderr` as text). */
export function capture(env: Record<string, string | undefined> = {}): {
  out: { stdout: string; stderr: string };
  cli: CliIo;
} {
  const out = { stdout: "", stderr: "" };
  const cli: CliIo = {
    stdout: async (t) => void (out.stdout += t),
    stderr: async (t) => void (out.stderr += t),
    env,
  };
  return { out, cli };
}

/**
 * The TypeScript diagnostics of a program file (strict, CommonJS, Node 10 resolution, as a user's
 * Pulumi program is compiled); `[]` when it type-checks.
 */
export function typeCheck(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    esModuleInterop: true,
    skipLibCheck: true,
    types: ["node"],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}
