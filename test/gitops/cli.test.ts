/**
 * `service-drift` in process (gitops/cli.ts): usage, options and exit codes.
 */
import { main } from "../../gitops/cli";
import { capture } from "../helpers/cli";

describe("command line (in process)", () => {
  const io = capture;

  it("--format takes text, json or markdown; anything else exits 1 naming the choices", async () => {
    const bad = io();
    expect(await main(["node", "service-drift", "--stack", "dev", "--format", "xml"], bad.cli)).toBe(1);
    expect(bad.out.stderr).toMatch(/text, json, markdown/);
  });

  it("--help exits 0; an unknown option exits 1", async () => {
    const help = io();
    expect(await main(["node", "service-drift", "--help"], help.cli)).toBe(0);
    expect(help.out.stdout).toMatch(/--stack <name>/);
    const bad = io();
    expect(await main(["node", "service-drift", "--nope"], bad.cli)).toBe(1);
    expect(bad.out.stderr).toMatch(/unknown option/);
  });

  it("generate without a base URL exits 1 with a clear message", async () => {
    const run = io({ SERVICE_API_KEY: "sk_unit_key_1234" });
    expect(await main(["node", "service-drift", "generate"], run.cli)).toBe(1);
    expect(run.out.stderr).toMatch(/--base-url/);
    expect(run.out.stderr).not.toContain("sk_unit_key_1234");
  });
});
