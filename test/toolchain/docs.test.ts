/**
 * `npm run docs` (TypeDoc over the four entry points, `treatWarningsAsErrors`): every exported
 * symbol, method and constructor has TSDoc, and every `{@link}` resolves. Checked without
 * writing the site (`--emit none`).
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";

describe("API reference", () => {
  it("builds from the TSDoc with no warning", () => {
    const r = spawnSync("npx", ["typedoc", "--emit", "none"], {
      cwd: path.resolve(__dirname, "../.."),
      encoding: "utf8",
      timeout: 300_000,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    const out = `${r.stdout}${r.stderr}`;
    expect(out.split("\n").filter((l) => l.startsWith("[warning]") || l.startsWith("[error]"))).toEqual([]);
    expect(r.status).toBe(0);
  }, 300_000);
});
