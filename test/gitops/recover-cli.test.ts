/**
 * `service-recover` in process, with its output captured: usage and bad input. (The whole
 * recovery runs as a child process in test/reliability/interrupted.test.ts.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { main } from "../../gitops/recover-cli";
import { capture } from "../helpers/cli";
import { loadedWith } from "../helpers/loaded-modules";

const io = capture;

describe("service-recover (in process)", () => {
  it("--help prints the usage naming both files on stdout and exits 0", async () => {
    const help = io();
    expect(await main(["node", "service-recover", "--help"], help.cli)).toBe(0);
    expect(help.out.stdout).toMatch(/<exported>.*<output>/s);
    expect(help.out.stderr).toBe("");
  });

  it("--version prints the version of pulumi-service on stdout and exits 0", async () => {
    const run = io();
    expect(await main(["node", "service-recover", "--version"], run.cli)).toBe(0);
    expect(run.out.stdout).toBe(`${(await import("../../package.json")).version}\n`);
  });

  it("--version, --help and a bad command line answer without loading the client", async () => {
    for (const args of [["--version"], ["--help"], ["only-one.json"]]) {
      const { loaded } = await loadedWith(["zod", "undici"], async () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const cli = require("../../gitops/recover-cli") as typeof import("../../gitops/recover-cli");
        await cli.main(["node", "service-recover", ...args], io().cli);
      });
      expect({ args, loaded }).toEqual({ args, loaded: [] });
    }
  });

  it.each([
    [["node", "service-recover"]],
    [["node", "service-recover", "only-one.json"]],
    [["node", "service-recover", "a", "b", "--nope"]],
  ])("a bad command line %j exits 1", async (argv) => {
    const bad = io();
    expect(await main(argv, bad.cli)).toBe(1);
    expect(bad.out.stderr).toMatch(/error/);
  });

  it("a file that is not an exported stack is refused before anything is written", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
    try {
      const input = path.join(dir, "in.json");
      const output = path.join(dir, "out.json");
      fs.writeFileSync(input, JSON.stringify({ hello: "world" }));
      await expect(main(["node", "service-recover", input, output], io().cli)).rejects.toThrow(
        /is not the output of `pulumi stack export`/,
      );
      expect(fs.existsSync(output)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each(["yesterday", "2026-11-24", "2026-11-24T13:47:00"])(
    "--since %j (not an RFC 3339 time with a zone) is refused before anything is read or written",
    async (since) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
      try {
        const output = path.join(dir, "out.json");
        await expect(
          main(
            ["node", "service-recover", path.join(dir, "missing.json"), output, "--since", since],
            io().cli,
          ),
        ).rejects.toThrow(/--since must be an RFC 3339 date and time with a zone/);
        expect(fs.existsSync(output)).toBe(false);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it("--found without --since is refused before anything is read or written", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "recover-cli-"));
    try {
      const found = path.join(dir, "found.json");
      await expect(
        main(
          [
            "node",
            "service-recover",
            path.join(dir, "missing.json"),
            path.join(dir, "out.json"),
            "--found",
            found,
          ],
          io().cli,
        ),
      ).rejects.toThrow(/--found needs --since/);
      expect(fs.existsSync(found)).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
