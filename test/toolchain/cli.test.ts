/**
 * The three command lines (built: `npm run build`) share their conventions (docs/cli.md):
 * `--version` / `-V` print the version of their own package, read from its package.json when they
 * run; `--help` prints the usage on stdout and exits 0; a bad command line exits 1 with the error
 * on stderr; and the exit codes of the code are the table of docs/cli.md.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { EXIT_CODES } from "../../gitops/io";
import { EXIT_CODES as EMULATOR_EXIT_CODES } from "../../packages/emulator/cli";

const REPO = path.resolve(__dirname, "../..");

const CLIS = [
  { name: "service-drift", pkg: ".", dist: "dist", bin: "dist/gitops/cli.js" },
  { name: "service-recover", pkg: ".", dist: "dist", bin: "dist/gitops/recover-cli.js" },
  { name: "service-emulator", pkg: "packages/emulator", dist: "dist", bin: "dist/cli.js" },
];

function run(script: string, args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? "" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function versionOf(dir: string): string {
  return (JSON.parse(fs.readFileSync(path.join(REPO, dir, "package.json"), "utf8")) as { version: string })
    .version;
}

describe.each(CLIS)("$name (built)", ({ name, pkg, dist, bin }) => {
  const script = path.join(REPO, pkg, bin);

  it.each([["--version"], ["-V"]])("%s prints its package's version on stdout and exits 0", (flag) => {
    expect(run(script, [flag])).toEqual({ code: 0, stdout: `${versionOf(pkg)}\n`, stderr: "" });
  });

  it("reads the version from its package.json when it runs, not when it was built", () => {
    // A copy of the built package beside a package.json of another version: the copy's
    // dependencies still resolve from the repository's node_modules.
    const copy = path.join(REPO, ".pulumi-state", `version-${name}-${process.pid}`);
    try {
      fs.rmSync(copy, { recursive: true, force: true });
      fs.cpSync(path.join(REPO, pkg, dist), path.join(copy, dist), { recursive: true });
      const manifest = JSON.parse(fs.readFileSync(path.join(REPO, pkg, "package.json"), "utf8"));
      fs.writeFileSync(
        path.join(copy, "package.json"),
        JSON.stringify({ ...manifest, version: "9.8.7-copy" }),
      );
      expect(run(path.join(copy, bin), ["--version"])).toEqual({
        code: 0,
        stdout: "9.8.7-copy\n",
        stderr: "",
      });
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it("--help prints the usage on stdout, nothing on stderr, and exits 0", () => {
    const r = run(script, ["--help"]);
    expect(r.code).toBe(EXIT_CODES.ok);
    expect(r.stdout).toMatch(new RegExp(`^Usage: ${name} `));
    expect(r.stdout).toMatch(/-V, --version/);
    expect(r.stderr).toBe("");
  });

  it("an unknown option exits 1 with the error on stderr and nothing on stdout", () => {
    const r = run(script, ["--no-such-option"]);
    expect(r).toEqual({
      code: EXIT_CODES.error,
      stdout: "",
      stderr: expect.stringMatching(/unknown option/),
    });
  });
});

describe("the exit-code table of docs/cli.md", () => {
  /** Rows of the table under "## Exit codes": code → cells by column title. */
  function table(): Map<number, Record<string, string>> {
    const text = fs.readFileSync(path.join(REPO, "docs", "cli.md"), "utf8");
    const section = text.split(/^## Exit codes$/m)[1].split(/^## /m)[0];
    const lines = section.split("\n").filter((l) => l.startsWith("|"));
    const cells = (l: string) =>
      l
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim().replace(/`/g, ""));
    const titles = cells(lines[0]);
    const rows = new Map<number, Record<string, string>>();
    for (const l of lines.slice(2)) {
      const row = Object.fromEntries(cells(l).map((c, i) => [titles[i], c]));
      rows.set(Number(row["exit code"]), row);
    }
    return rows;
  }

  it("lists exactly the codes of gitops/io.ts, with the meaning of each", () => {
    const rows = table();
    expect([...rows.keys()].sort()).toEqual(Object.values(EXIT_CODES).sort());
    expect(rows.get(EXIT_CODES.ok)?.meaning).toMatch(/^done, nothing to look at/);
    expect(rows.get(EXIT_CODES.error)?.meaning).toMatch(/^error/);
    expect(rows.get(EXIT_CODES.attention)?.meaning).toMatch(/^done, with something a person must look at/);
    for (const row of rows.values()) {
      expect(row["service-drift"]).not.toBe("");
      expect(row["service-recover"]).not.toBe("");
    }
  });

  it("gives service-emulator a cell for each code it uses, with the same numbers, and — for the others", () => {
    const rows = table();
    expect(EMULATOR_EXIT_CODES).toEqual({ ok: EXIT_CODES.ok, error: EXIT_CODES.error });
    const used = new Set<number>(Object.values(EMULATOR_EXIT_CODES));
    for (const [code, row] of rows) {
      expect({ code, used: row["service-emulator"] !== "—" }).toEqual({ code, used: used.has(code) });
    }
  });
});
