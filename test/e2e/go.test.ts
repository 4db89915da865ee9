/**
 * A deployment from Go through the real Pulumi engine against the real emulator: the Go example
 * of docs/resources.md, in the project test/fixtures/go-deploy, in a module taking the generated
 * Go SDK (sdk/go) from this checkout, built and run by this repository's Go language host
 * (tools/pulumi/pulumi-language-go). The steps: test/helpers/quickstart-deploy.ts.
 */
import { execFile } from "child_process";
import { promisify } from "util";
import { writeSdkGoModule } from "../helpers/go-module";
import { describeQuickstartDeployment } from "../helpers/quickstart-deploy";

describeQuickstartDeployment(
  "a Go program on the generated Go SDK through the engine (real engine, real emulator)",
  {
    lang: "go",
    fixture: "go-deploy",
    file: "main.go",
    async prepare(program) {
      writeSdkGoModule(program);
      // As the docs' install steps say: the example imports packages go.sum has no entry for yet.
      const env = { ...process.env, GOFLAGS: "-mod=mod" };
      await promisify(execFile)("go", ["mod", "tidy"], { cwd: program, env });
    },
  },
);
