/**
 * Deployments from Go through the real Pulumi engine against the real emulator, as a Go user
 * without Node.js runs them (no `node` on PATH, the plugin downloaded by the engine): the example
 * project examples/go/quickstart (the Go example of docs/resources.md), copied out of the
 * repository, its stack made by its README's stack commands, its modules fetched by its README's
 * command (`go mod tidy`) with no `replace`:
 * `github.com/pulumi-service/pulumi-service/sdk/go` at the version its go.mod names comes from a
 * local Go module proxy serving sdk/go as that version (a folder first in `GOPROXY`, as
 * `file://`; `GONOSUMDB` names our module), the others from this machine's module cache or its
 * usual proxy, into a module cache of the repository's (`.pulumi-state/go-modcache`, ignored by
 * git) from which the test first removes our module: a cache keeps a version's files forever, so
 * a regenerated SDK would otherwise not be fetched again, and a cache of its own keeps this
 * machine's clean. Built and run by this repository's Go language host (tools/pulumi/pulumi-language-go).
 * Then examples/go/multi-account (two explicit providers) in the same set-up and module cache.
 * The steps: test/helpers/quickstart-deploy.ts.
 */
import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { promisify } from "util";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { goFlags } from "../helpers/go-flags";
import { writeGoProxyModule } from "../helpers/package-indexes";
import { describeQuickstartDeployment, runCommand } from "../helpers/quickstart-deploy";

const GO_MODULE = "github.com/pulumi-service/pulumi-service/sdk/go";

/** `go env <name>` of this machine (its usual settings, before the test changes any). */
async function goEnv(name: string): Promise<string> {
  return (await promisify(execFile)("go", ["env", name])).stdout.trim();
}

describeQuickstartDeployment(
  "examples/go/quickstart and multi-account on the generated Go SDK through the engine, no Node.js (real engine, real emulator)",
  {
    lang: "go",
    async install(program, command, tmp, env) {
      expect(command).toBe("go mod tidy");
      const version = /^\s*github\.com\/pulumi-service\/pulumi-service\/sdk\/go v(\S+)$/m.exec(
        fs.readFileSync(path.join(program, "go.mod"), "utf8"),
      )?.[1];
      expect(version).toBe(JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version);
      const proxy = path.join(tmp, "goproxy");
      const modCache = path.join(REPO_ROOT, ".pulumi-state", "go-modcache");
      for (const ours of [
        path.join(modCache, "github.com", "pulumi-service"),
        path.join(modCache, "cache", "download", "github.com", "pulumi-service"),
      ]) {
        // Files extracted without -modcacherw are read-only.
        if (fs.existsSync(ours)) await promisify(execFile)("chmod", ["-R", "u+w", ours]);
        fs.rmSync(ours, { recursive: true, force: true });
      }
      writeGoProxyModule(proxy, {
        modulePath: GO_MODULE,
        version: version!,
        moduleDir: path.join(REPO_ROOT, "sdk", "go"),
      });
      const goSettings = {
        // Ours first; then this machine's module cache read as a proxy (offline, fast); then its
        // usual proxy. A module missing from one is asked of the next.
        GOPROXY: [
          `file://${proxy}`,
          `file://${path.join(await goEnv("GOMODCACHE"), "cache", "download")}`,
          await goEnv("GOPROXY"),
        ].join(","),
        // Not GOPRIVATE, which would also bypass every proxy (GONOPROXY) for our module.
        GONOSUMDB: "github.com/pulumi-service/*",
        // -trimpath (goFlags): Go's build cache would otherwise key the compiled packages by the
        // module cache's path, compiling Pulumi's Go SDK again for this cache. -modcacherw: its
        // folders stay writable, so that the next run can remove our module's.
        GOFLAGS: goFlags("-modcacherw"),
        GOMODCACHE: modCache,
      };
      await runCommand(command, program, { ...env, ...goSettings });
      const goMod = fs.readFileSync(path.join(program, "go.mod"), "utf8");
      expect(goMod).not.toContain("replace");
      // The module's files are those of sdk/go, from the local proxy.
      const fetched = path.join(goSettings.GOMODCACHE, `${GO_MODULE}@v${version}`);
      expect(fs.readFileSync(path.join(fetched, "service", "eventSubscription.go"), "utf8")).toBe(
        fs.readFileSync(path.join(REPO_ROOT, "sdk", "go", "service", "eventSubscription.go"), "utf8"),
      );
      // The host's `go build` reads the same module cache.
      return goSettings;
    },
    plugin: "download",
    async installMultiAccount(program, quickstart, command, env) {
      // The same module cache and local proxy (env holds the quickstart's Go settings).
      await runCommand(command, program, env);
      expect(fs.readFileSync(path.join(program, "go.mod"), "utf8")).not.toContain("replace");
    },
  },
);
