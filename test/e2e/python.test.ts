/**
 * A deployment from Python through the real Pulumi engine against the real emulator: the
 * Python example of docs/resources.md, in the project test/fixtures/python-deploy, on the
 * generated SDK `pulumi_service` installed with pip from the wheel `npm run build:python-sdk`
 * builds into a fresh venv beside `pulumi` from PyPI, run by this repository's Python language
 * host (tools/pulumi/pulumi-language-python). The steps: test/helpers/quickstart-deploy.ts.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { describeQuickstartDeployment } from "../helpers/quickstart-deploy";

const exec = promisify(execFile);

describeQuickstartDeployment(
  "a Python program on pulumi_service through the engine (real engine, real emulator)",
  {
    lang: "python",
    fixture: "python-deploy",
    file: "__main__.py",
    async prepare(program, tmp) {
      const wheels = path.join(tmp, "dist");
      await exec(process.execPath, [path.join(REPO_ROOT, "scripts", "build-python-sdk.js"), "--out", wheels]);
      const wheel = fs.readdirSync(wheels).find((f) => f.endsWith(".whl"));
      if (!wheel) throw new Error(`no wheel in ${wheels}`);
      // The virtualenv the project's Pulumi.yaml names (runtime option `virtualenv: venv`).
      const venv = path.join(program, "venv");
      await exec("python3", ["-m", "venv", venv]);
      const python = path.join(venv, "bin", "python");
      await exec(python, [
        "-m",
        "pip",
        "install",
        "--quiet",
        path.join(wheels, wheel),
        `pulumi==${PULUMI_VERSION}`,
      ]);
    },
  },
);
