/**
 * One default port for the emulator, 8787: the command line's default, the demo's, the OpenAPI
 * document's first server, and every emulator address and `--port` the documentation shows.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { EMULATOR_DEFAULT_PORT } from "service-contract";
import { main } from "../../packages/emulator/cli";
import { capture } from "../helpers/cli";
import { markedDocuments } from "../helpers/doc-blocks";

const REPO = path.resolve(__dirname, "../..");
const PORT = 8787;

describe("the emulator's default port", () => {
  it("is 8787 in the contract, the command line's help and the demo", async () => {
    expect(EMULATOR_DEFAULT_PORT).toBe(PORT);
    const run = capture();
    expect(await main(["node", "service-emulator", "--help"], run.cli)).toBe(0);
    expect(run.out.stdout).toMatch(/--port <port>\s+TCP port; 0 picks a free one \(default: 8787\)/);
    expect(fs.readFileSync(path.join(REPO, "scripts/demo.js"), "utf8")).toMatch(
      /const PORT = process\.env\.DEMO_PORT \|\| "8787";/,
    );
  });

  it("is the port of the OpenAPI document's emulator server; the second server is the service's {base_url}", () => {
    const doc = JSON.parse(fs.readFileSync(path.join(REPO, "docs/openapi.json"), "utf8")) as {
      servers: { url: string; variables?: Record<string, { default: string }> }[];
    };
    expect(doc.servers.map((s) => s.url)).toEqual([`http://127.0.0.1:${PORT}`, "{base_url}"]);
    expect(doc.servers[1].variables?.base_url.default).toMatch(/^https:\/\//);
  });

  it("is the only port of an emulator address or --port in the documentation", () => {
    // The documents, each language's examples/<language>/README.md and each example's README.
    const files = [
      ...markedDocuments(REPO),
      "packages/emulator/README.md",
      ...fs.readdirSync(path.join(REPO, "examples")).map((e) => `examples/${e}/README.md`),
    ];
    const found: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(REPO, file), "utf8");
      for (const m of text.matchAll(/(?:127\.0\.0\.1|localhost):(\d+)|--port[ =]([^\s`]+)/g)) {
        const port = m[1] ?? m[2];
        if (port !== String(PORT) && port !== "0" && port !== "<n>") found.push(`${file}: ${m[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
