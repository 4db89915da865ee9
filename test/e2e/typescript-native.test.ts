/**
 * A deployment from TypeScript on the native provider's SDK through the real Pulumi engine
 * against the real emulator: the example project examples/typescript/quickstart (the TypeScript
 * example of docs/resources.md, importing `pulumi-service/native`), copied out of the
 * repository, its stack made by its README's stack commands, and installed by its README's
 * command, `npm install`, given this checkout's packed
 * packages (`npm install --no-save <tarballs>`: npm satisfies `pulumi-service` from them, the
 * rest from the registry, and leaves package.json as it is). The engine runs the plugin the
 * installed package carries (`node_modules/.bin`, on PATH) and this repository's Node.js
 * language host, which type-checks the program with the project's tsconfig.json. The steps:
 * test/helpers/quickstart-deploy.ts.
 */
import * as fs from "fs";
import * as path from "path";
import { installSpecs, packAll } from "../helpers/tarballs";
import { describeQuickstartDeployment, runCommand } from "../helpers/quickstart-deploy";

describeQuickstartDeployment(
  "examples/typescript/quickstart on pulumi-service/native through the engine (real engine, real emulator)",
  {
    lang: "typescript",
    async install(program, command, tmp, env) {
      expect(command).toBe("npm install");
      const npmDir = path.join(tmp, "npm");
      fs.mkdirSync(npmDir);
      const manifest = fs.readFileSync(path.join(program, "package.json"), "utf8");
      const tarballs = installSpecs("pulumi-service", packAll(npmDir));
      await runCommand(`${command} --no-save ${tarballs.join(" ")}`, program, env);
      expect(fs.readFileSync(path.join(program, "package.json"), "utf8")).toBe(manifest);
      // The package installed is the packed one, not a link to this checkout.
      const installed = fs.realpathSync(path.join(program, "node_modules", "pulumi-service"));
      expect(installed).toBe(path.join(fs.realpathSync(program), "node_modules", "pulumi-service"));
      expect(fs.existsSync(path.join(installed, "dist", "sdk", "nodejs", "index.js"))).toBe(true);
      return {};
    },
    plugin: (program) => path.join(program, "node_modules", ".bin"),
  },
);
