/**
 * The OpenAPI document is exact: Schemathesis (a property-based API tester, from PyPI) runs every
 * phase it has (examples, coverage, fuzzing, stateful) and every check against the emulator over
 * HTTP, from the document the emulator serves at `GET /openapi.json` (the same as
 * docs/openapi.json), and finds no failure. A failure means the document and the emulator
 * disagree: a schema-valid request rejected, a schema-violating one accepted, a response breaking
 * its own schema, a wrong status for a method, and so on.
 *
 * Schemathesis comes from the venv `scripts/ensure-venv.js` makes from
 * scripts/requirements/schemathesis.txt (created once, in `~/.cache/pulumi-service`); the test
 * fails, saying why, when it cannot be made. The run is bounded (a fixed seed, a fixed number of
 * examples per operation, one worker) so that it repeats and stays within a couple of minutes.
 * The only failures not counted are those of the rules no schema can state, dropped by name in
 * test/conformance/hooks.py and listed with their reasons in docs/conformance.md.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildOpenApiDocument } from "service-contract";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";

const REPO = path.resolve(__dirname, "../..");
const ENSURE_VENV = path.join(REPO, "scripts/ensure-venv.js");
const REQUIREMENTS = path.join(REPO, "scripts/requirements/schemathesis.txt");
const CONFIG = path.join(__dirname, "schemathesis.toml");
const HOOKS = path.join(__dirname, "hooks.py");

/** Seed of Hypothesis, Schemathesis's data generator: the same requests on every run. */
const SEED = 20261123;
/** Test cases per operation and phase (Schemathesis's default is 100). */
const MAX_EXAMPLES = 50;

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, collecting its output (never rejects on a non-zero exit). */
function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The parts of Schemathesis's JSON run report (`--report json`) this test reads. */
interface RunReport {
  schemathesis_version: string;
  complete: boolean;
  stop_reason: string;
  operations: { total: number; selected: number; tested: number; errored: number; skipped: number };
  phases: Record<
    "examples" | "coverage" | "fuzzing" | "stateful",
    { status: string; skip_reason: string | null }
  >;
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: { code: string; title: string; count: number; operations: string[] }[];
  errors: unknown[];
  filtered: number;
}

/** The failures section of Schemathesis's console output: each request, response and check. */
function failureDetails(stdout: string): string {
  const start = stdout.indexOf(" FAILURES ");
  const end = stdout.indexOf(" SUMMARY ");
  return start < 0 ? stdout.slice(-4000) : stdout.slice(start, end < 0 ? undefined : end).slice(0, 20000);
}

/**
 * Number of operations (path + method) in the document that Schemathesis tests: all but
 * `GET /openapi.json`, the document itself, which it loads and leaves out of its operations
 * (test/emulator/routes covers that route).
 */
function operationCount(): number {
  const paths = buildOpenApiDocument().paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .filter(([p]) => p !== "/openapi.json")
    .reduce((n, [, item]) => n + Object.keys(item).length, 0);
}

describe("the OpenAPI document against the emulator, by Schemathesis", () => {
  let schemathesis: string;
  let em: RunningEmulator;
  let work: string;

  beforeAll(async () => {
    const venv = await run(process.execPath, [ENSURE_VENV, "schemathesis", REQUIREMENTS]);
    if (venv.code !== 0) {
      throw new Error(
        `Schemathesis is not available: scripts/ensure-venv.js exited ${venv.code}:\n${venv.stderr}`,
      );
    }
    schemathesis = path.join(venv.stdout.trim().split("\n").pop()!, "bin", "schemathesis");
    em = await startEmulator({ apiKeys: ["key_conformance_account"] });
    // Schemathesis keeps its caches in the folder it runs in: a fresh one, removed afterwards.
    work = mkdtempSync(path.join(tmpdir(), "conformance-"));
  }, 15 * 60_000);

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
    // Rejects when any response the emulator sent broke the document (test/helpers/openapi.ts).
    await em?.close();
  });

  it(
    "finds no failure in any phase or check, apart from the exclusions of docs/conformance.md",
    async () => {
      const reportPath = path.join(work, "report.json");
      const args = [
        "--config-file",
        CONFIG,
        "run",
        `${em.url}/openapi.json`,
        "--url",
        em.url,
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--checks",
        "all",
        "--seed",
        String(SEED),
        "--max-examples",
        String(MAX_EXAMPLES),
        "--workers",
        "1",
        "--generation-database",
        "none",
        "--report",
        "json",
        "--report-json-path",
        reportPath,
        "--no-color",
      ];
      const env = {
        ...process.env,
        CONFORMANCE_API_KEY: em.apiKeys[0],
        CONFORMANCE_ADMIN_KEY: em.adminKey,
        SCHEMATHESIS_HOOKS: HOOKS,
      };
      const st = await run(schemathesis, args, { cwd: work, env });
      let report: RunReport;
      try {
        report = JSON.parse(readFileSync(reportPath, "utf8")) as RunReport;
      } catch (err) {
        throw new Error(
          `schemathesis wrote no report (exit ${st.code}; ${(err as Error).message}):\n${st.stdout.slice(-4000)}\n${st.stderr.slice(-4000)}`,
        );
      }

      const failed = report.failures.flatMap((f) => f.operations.map((op) => `${op}: ${f.code} ${f.title}`));
      if (failed.length > 0 || report.errors.length > 0) {
        throw new Error(
          `schemathesis ${report.schemathesis_version} found ${report.test_cases.unique_failures} failure(s) ` +
            `and ${report.errors.length} error(s):\n  ${failed.join("\n  ")}\n` +
            `(each is explained in docs/conformance.md; run the command below to see them again)\n` +
            `schemathesis ${args.join(" ")}\n\n${failureDetails(st.stdout)}`,
        );
      }
      expect(report.complete).toBe(true);
      expect(report.stop_reason).toBe("completed");
      expect(st.code).toBe(0);
      // Every operation of the document was tested, in every phase the document gives data for
      // (the examples phase runs only the document's own examples: it has none).
      const n = operationCount();
      expect(report.operations).toMatchObject({ total: n, selected: n, tested: n, errored: 0, skipped: 0 });
      expect(report.phases.coverage.status).toBe("success");
      expect(report.phases.fuzzing.status).toBe("success");
      expect(report.phases.stateful.status).toBe("success");
      expect(report.test_cases.generated).toBeGreaterThan(n * MAX_EXAMPLES);
    },
    10 * 60_000,
  );
});
