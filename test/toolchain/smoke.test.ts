import * as path from "path";
import { execFileSync } from "child_process";
import { freshBackend, localStack, requirePulumi } from "../helpers/pulumi";

const program = path.join(__dirname, "..", "fixtures", "smoke");

describe("toolchain", () => {
  it("provides the pinned Pulumi CLI v3.248.x, the release of the installed @pulumi/pulumi", () => {
    const found = requirePulumi();
    const out = execFileSync(path.join(found.dirs[0], "pulumi"), ["version"], {
      env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "1" },
      encoding: "utf8",
    });
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sdk: string = require("@pulumi/pulumi/package.json").version;
    expect(sdk).toMatch(/^3\.248\.\d+$/);
    expect(out.trim()).toMatch(/^v3\.248\.\d+$/);
  });

  it("runs pulumi up and destroy of a local TypeScript program through the real engine", async () => {
    const backend = freshBackend("smoke");
    const { stack } = await localStack(program, "smoke", backend);
    await stack.setConfig("greeting", { value: "hello from the engine" });

    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toEqual({ create: 2 });
    expect(up.outputs.shout.value).toBe("HELLO FROM THE ENGINE");
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
