import * as fs from "fs";
import * as path from "path";
import { execFileSync } from "child_process";
import { OLDEST_PULUMI_VERSION, PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { freshBackend, localStack, requirePulumi } from "../helpers/pulumi";

const program = path.join(__dirname, "..", "fixtures", "smoke");

describe("toolchain", () => {
  it("builds the pinned Pulumi release: the CLI's Go modules are at PULUMI_VERSION", () => {
    const goMod = fs.readFileSync(path.join(REPO_ROOT, "tools", "pulumi", "go.mod"), "utf8");
    // The CLI is compiled from pkg/v3 (its `tool`) against sdk/v3: both at the pinned release.
    for (const mod of ["github.com/pulumi/pulumi/pkg/v3", "github.com/pulumi/pulumi/sdk/v3"]) {
      const pinned = new RegExp(`^\\s*${mod.replace(/[./]/g, "\\$&")} (v\\S+)`, "m").exec(goMod);
      expect({ mod, version: pinned?.[1] }).toEqual({ mod, version: `v${PULUMI_VERSION}` });
    }
  });

  it("provides the pinned Pulumi CLI, no older than the installed @pulumi/pulumi", () => {
    const found = requirePulumi();
    const out = execFileSync(path.join(found.dirs[0], "pulumi"), ["version"], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "1" },
      encoding: "utf8",
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sdk: string = require("@pulumi/pulumi/package.json").version;
    expect(out.trim()).toBe(`v${PULUMI_VERSION}`);
    // The SDK is the oldest supported release (the lock file's); the engine the newest served.
    expect(sdk).toBe(OLDEST_PULUMI_VERSION);
  });

  it("runs pulumi up and destroy of a local TypeScript program through the real engine", async () => {
    const backend = freshBackend("smoke");
    const { stack } = await localStack(program, "smoke", backend);
    await stack.setConfig("greeting", { value: "hello from the engine" });

    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    expect(up.outputs.shout.value).toBe("HELLO FROM THE ENGINE");
    // The test stacks' own reads of the outputs and the summary (localStack: fewer CLI runs with
    // --show-secrets) answer what the Automation API's do, secrets and their flags included.
    expect(up.outputs).toEqual(await stack.workspace.stackOutputs(stack.name));
    expect(up.outputs.secretShout).toEqual({ value: "HELLO FROM THE ENGINE", secret: true });
    expect(up.outputs.withSecret).toEqual({ value: { plain: "p", hidden: "h" }, secret: false });
    expect(up.outputs.shout.secret).toBe(false);
    const { config: summaryConfig, ...summary } = up.summary;
    const { config: apiConfig, ...api } = (await stack.history(1, undefined, true))[0];
    expect(summary).toEqual(api);
    expect(summaryConfig["smoke:greeting"]).toEqual(apiConfig["smoke:greeting"]);
    // The dynamic provider ran in a process of its own, started by the engine, not in the program.
    expect(typeof up.outputs.providerPid.value).toBe("number");
    expect(up.outputs.providerPid.value).not.toBe(up.outputs.programPid.value);
    expect(up.outputs.providerPid.value).not.toBe(process.pid);

    const state = await stack.exportStack();
    const types = (state.deployment.resources ?? []).map((r: { type: string }) => r.type);
    expect(types).toContain("pulumi-nodejs:dynamic/smoke:Greeting");

    const destroy = await stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    expect(destroy.summary.resourceChanges).toEqual({ delete: 2 });
    const after = await stack.exportStack();
    expect(after.deployment.resources ?? []).toHaveLength(0);
    await stack.workspace.removeStack("smoke");
  }, 300000);
});
