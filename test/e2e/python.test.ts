/**
 * Deployments from Python through the real Pulumi engine against the real emulator, as a Python
 * user without Node.js runs them (no `node` on PATH, the plugin downloaded by the engine): the
 * example project examples/python/quickstart (the Python example of docs/resources.md), copied
 * out of the repository, its stack made by its README's stack commands, installed by its
 * README's command (a virtual environment, then
 * `pip install -r requirements.txt`), which takes `pulumi_service==<version>` from the wheel
 * `npm run build:python-sdk` builds of sdk/python (a folder pip is given with `PIP_FIND_LINKS`,
 * whose files pip prefers to an index's of the same version) and `pulumi` from PyPI; run by this
 * repository's Python language host (tools/pulumi/pulumi-language-python); then
 * examples/python/multi-account (two explicit providers) in the same set-up and virtual
 * environment (its requirements are the quickstart's). The steps: test/helpers/quickstart-deploy.ts.
 */
import * as fs from "fs";
import * as path from "path";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { describeQuickstartDeployment, runCommand } from "../helpers/quickstart-deploy";

/** The files of a Python package folder, relative to it, sorted (no byte code). */
function sources(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".py") || f.endsWith(".json"))
    .sort();
}

describeQuickstartDeployment(
  "examples/python/quickstart and multi-account on pulumi_service through the engine, no Node.js (real engine, real emulator)",
  {
    lang: "python",
    async install(program, command, tmp, env) {
      expect(command).toBe("python3 -m venv venv && venv/bin/pip install -r requirements.txt");
      const wheels = path.join(tmp, "dist");
      await runCommand(`node scripts/build-python-sdk.js --out ${wheels}`, REPO_ROOT, process.env);
      expect(fs.readdirSync(wheels).some((f) => f.endsWith(".whl"))).toBe(true);
      const links = [wheels, process.env.PIP_FIND_LINKS ?? ""].join(" ").trim();
      await runCommand(command, program, { ...env, PIP_FIND_LINKS: links });
      // What pip installed is the package of this checkout, file for file.
      const [site] = fs.readdirSync(path.join(program, "venv", "lib"));
      const installed = path.join(program, "venv", "lib", site, "site-packages", "pulumi_service");
      const checkout = path.join(REPO_ROOT, "sdk", "python", "pulumi_service");
      const files = sources(checkout);
      expect(files).toContain("pulumi-plugin.json");
      expect(sources(installed)).toEqual(files);
      for (const f of files)
        expect(fs.readFileSync(path.join(installed, f), "utf8")).toBe(
          fs.readFileSync(path.join(checkout, f), "utf8"),
        );
      return {};
    },
    plugin: "download",
    async installMultiAccount(program, quickstart) {
      // The same requirements: the quickstart's virtual environment serves both.
      expect(fs.readFileSync(path.join(program, "requirements.txt"), "utf8")).toBe(
        fs.readFileSync(path.join(quickstart, "requirements.txt"), "utf8"),
      );
      fs.symlinkSync(path.join(quickstart, "venv"), path.join(program, "venv"));
    },
  },
);
