/**
 * gitops/unmanaged-cli.ts in process: the accounts from the environment, the stacks and their
 * backends from the flags, bad command lines exiting 1 with the key never printed, and `--help`
 * answering without loading the Automation API or the client.
 */
import * as path from "node:path";
import { main } from "../../gitops/cli";
import { accountsOf, stackRefsOf } from "../../gitops/unmanaged-cli";
import { parseStackRef } from "../../gitops/unmanaged";
import { capture } from "../helpers/cli";
import { loadedWith } from "../helpers/loaded-modules";

const KEY = "sk_unmanaged_cli_unit_0123456789";

describe("service-drift unmanaged (in process)", () => {
  it("accounts: SERVICE_API_KEY by default, else one per --api-key-env variable; a missing one is named", () => {
    const env = { SERVICE_API_KEY: KEY, PROD_KEY: "sk_prod_1234567", SERVICE_BASE_URL: "http://127.0.0.1:1" };
    expect(accountsOf({}, env)).toEqual([
      { name: "SERVICE_API_KEY", baseUrl: "http://127.0.0.1:1", apiKey: KEY },
    ]);
    expect(accountsOf({ apiKeyEnv: ["PROD_KEY"], baseUrl: "https://x.example" }, env)).toEqual([
      { name: "PROD_KEY", baseUrl: "https://x.example", apiKey: "sk_prod_1234567" },
    ]);
    expect(() => accountsOf({ apiKeyEnv: ["DEV_KEY"] }, env)).toThrow(/set DEV_KEY/);
    expect(() => accountsOf({}, { SERVICE_API_KEY: KEY })).toThrow(/--base-url/);
  });

  it("stacks: [DIR:]STACK; --backend-url DIR=URL sets the backend of that folder's stacks, a bare URL of all", () => {
    const refs = stackRefsOf(
      {
        stack: ["a:dev", "b:prod", "qa"],
        backendUrl: ["file:///all", "b=postgres://db.example/state?sslmode=require"],
      },
      "/work",
      parseStackRef,
    );
    expect(refs).toEqual([
      { stack: "dev", cwd: path.resolve("/work/a"), env: { PULUMI_BACKEND_URL: "file:///all" } },
      {
        stack: "prod",
        cwd: path.resolve("/work/b"),
        env: { PULUMI_BACKEND_URL: "postgres://db.example/state?sslmode=require" },
      },
      { stack: "qa", cwd: "/work", env: { PULUMI_BACKEND_URL: "file:///all" } },
    ]);
    expect(() =>
      stackRefsOf({ stack: ["a:dev"], backendUrl: ["c=file:///x"] }, "/work", parseStackRef),
    ).toThrow(/no --stack is in the folder/);
  });

  it("a bad command line exits 1 naming the problem; --json prints the error document; the key is never printed", async () => {
    const none = capture({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: "http://127.0.0.1:1" });
    expect(await main(["node", "service-drift", "unmanaged", "--json"], none.cli)).toBe(1);
    expect(JSON.parse(none.out.stdout)).toEqual({
      error: expect.stringMatching(/No stack given/),
      exitCode: 1,
    });
    const badId = capture({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: "http://127.0.0.1:1" });
    expect(
      await main(["node", "service-drift", "unmanaged", "--stack", "dev", "--exclude-id", KEY], badId.cli),
    ).toBe(1);
    expect(badId.out.stderr).toMatch(/--exclude-id .*: not an esb_… or ed_… ID/);
    expect(badId.out.stderr + badId.out.stdout).not.toContain(KEY);
    const noKey = capture({ SERVICE_BASE_URL: "http://127.0.0.1:1" });
    expect(await main(["node", "service-drift", "unmanaged", "--stack", "dev"], noKey.cli)).toBe(1);
    expect(noKey.out.stderr).toMatch(/set SERVICE_API_KEY/);
  });

  it("--help answers without loading the Automation API or the client", async () => {
    const { loaded } = await loadedWith(["@pulumi/pulumi/automation", "zod"], async () => {
      const help = capture();
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const cli = require("../../gitops/cli") as typeof import("../../gitops/cli");
      expect(await cli.main(["node", "service-drift", "unmanaged", "--help"], help.cli)).toBe(0);
      expect(help.out.stdout).toMatch(/--exclude-description-prefix <text>/);
    });
    expect(loaded).toEqual([]);
  });
});
