/**
 * The generated Python and Go SDKs packaged as their ecosystems expect: the Python SDK built
 * into a wheel and an sdist by PyPA's build front end (scripts/build-python-sdk.js) and
 * installed with pip into a fresh virtual environment beside the `pulumi` package of PyPI; the
 * Go SDK a module that `go build` and `go vet` accept. All at the packages' version. The Python
 * SDK then passes unit tests with Pulumi's mocks (test/fixtures/sdk-python/test_resources.py,
 * and test_functions.py for its functions) and mypy checks a program written on it; the Go SDK
 * passes them with `pulumi.WithMocks` (test/fixtures/sdk-go: resources_test.go,
 * functions_test.go).
 */
import * as fs from "fs";
import * as path from "path";
import { spawnSync } from "child_process";
import { OLDEST_PULUMI_VERSION, REPO_ROOT } from "../../scripts/pulumi-env";
import { goFlags } from "../helpers/go-flags";
import { useTempDir } from "../helpers/temp-dir";
import { PLUGIN_DOWNLOAD_URL } from "../../provider/native/schema";

// A fresh venv installs `pulumi` and its dependencies from PyPI; the Go SDK's first build
// compiles Pulumi's Go SDK.
const TIMEOUT = 600_000;
const PY_FIXTURES = path.join(REPO_ROOT, "test", "fixtures", "sdk-python");
/** The release of mypy the sample program is checked with. */
const MYPY_VERSION = "2.4.1";
const VERSION: string = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")).version;

/**
 * Runs a command to its end; returns its exit code, its standard output alone (`stdout`: a
 * script's result) and both streams (`out`: stdout then stderr, for messages of a failure).
 */
function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: TIMEOUT, ...opts });
  const stdout = r.stdout ?? "";
  return { status: r.status, stdout, out: `${stdout}${r.stderr ?? ""}${r.error?.message ?? ""}` };
}

/**
 * `run` that must succeed: the test fails with the command's output otherwise. Returns its
 * standard output only: progress lines on stderr (a first-time venv, say) are not its result.
 */
function ok(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const r = run(cmd, args, opts);
  expect({ command: [cmd, ...args].join(" "), status: r.status, out: r.status === 0 ? "" : r.out }).toEqual({
    command: [cmd, ...args].join(" "),
    status: 0,
    out: "",
  });
  return r.stdout;
}

describe("Python SDK package pulumi_service", () => {
  const tmp = useTempDir("python-sdk-");
  let wheel: string;
  let sdist: string;
  /**
   * Runs `python -m unittest -v <module>` of test/fixtures/sdk-python in the venv the install
   * test made: its exit status, how many tests it ran (`/^Ran (\d+) tests?/` of its output), and
   * its output when it failed (`""` when it passed).
   */
  const unittest = (module: string) => {
    const python = path.join(tmp(), "venv", "bin", "python");
    const env = { ...process.env, PYTHONDONTWRITEBYTECODE: "1" };
    const r = run(python, ["-m", "unittest", "-v", module], { cwd: PY_FIXTURES, env });
    return { status: r.status, ran: /^Ran (\d+) tests?/m.exec(r.out)?.[1], out: r.status === 0 ? "" : r.out };
  };

  it(
    "builds into a wheel and an sdist at the packages' version, typed (py.typed) and naming its plugin and where the engine downloads it",
    () => {
      const out = path.join(tmp(), "dist");
      const printed = ok(process.execPath, [
        path.join(REPO_ROOT, "scripts", "build-python-sdk.js"),
        "--out",
        out,
      ]);
      expect(fs.readdirSync(out).sort()).toEqual([
        `pulumi_service-${VERSION}-py3-none-any.whl`,
        `pulumi_service-${VERSION}.tar.gz`,
      ]);
      [wheel, sdist] = fs
        .readdirSync(out)
        .sort()
        .map((f) => path.join(out, f));
      expect(printed.trim().split("\n")).toEqual([wheel, sdist]);
      const listing = ok("python3", ["-m", "zipfile", "-l", wheel]);
      for (const file of ["py.typed", "pulumi-plugin.json", "event_subscription.py", "provider.py"])
        expect(listing).toContain(`pulumi_service/${file}`);
    },
    TIMEOUT,
  );

  it(
    "installs with pip from the wheel, then from the sdist, into a fresh venv, and imports",
    () => {
      expect(wheel).toBeDefined();
      const venv = path.join(tmp(), "venv");
      ok("python3", ["-m", "venv", venv]);
      const python = path.join(venv, "bin", "python");
      const pip = (...args: string[]) => ok(python, ["-m", "pip", "install", "--quiet", ...args]);
      const check = [
        "import importlib.metadata as m, importlib.resources as r, json, pulumi_service as s",
        "print(json.dumps({'version': m.version('pulumi_service'),",
        " 'typed': r.files('pulumi_service').joinpath('py.typed').is_file(),",
        " 'plugin': json.loads(r.files('pulumi_service').joinpath('pulumi-plugin.json').read_text()),",
        " 'classes': [c.__name__ for c in (s.Provider, s.EventDestination, s.EventSubscription, s.AbuseReport)]}))",
      ].join("\n");
      const expected = {
        version: VERSION,
        typed: true,
        plugin: { resource: true, name: "service", version: VERSION, server: PLUGIN_DOWNLOAD_URL },
        classes: ["Provider", "EventDestination", "EventSubscription", "AbuseReport"],
      };
      // The oldest pulumi package the SDK accepts, from PyPI, as a user's requirements would pin it.
      pip(wheel, `pulumi==${OLDEST_PULUMI_VERSION}`);
      expect(JSON.parse(ok(python, ["-c", check]))).toEqual(expected);
      pip("--no-deps", "--force-reinstall", sdist);
      expect(JSON.parse(ok(python, ["-c", check]))).toEqual(expected);
    },
    TIMEOUT,
  );

  it(
    "passes its unit test with Pulumi's mocks: type tokens, inputs with their secret flags, outputs",
    () => {
      expect(unittest("test_resources")).toEqual({ status: 0, ran: "3", out: "" });
    },
    TIMEOUT,
  );

  it(
    "passes its functions' unit test with Pulumi's mocks: tokens, args, typed results, a secret target",
    () => {
      expect(unittest("test_functions")).toEqual({ status: 0, ran: "2", out: "" });
    },
    TIMEOUT,
  );

  it(
    "type-checks a sample program with mypy --strict, and a misspelt argument fails the check",
    () => {
      const python = path.join(tmp(), "venv", "bin", "python");
      ok(python, ["-m", "pip", "install", "--quiet", `mypy==${MYPY_VERSION}`]);
      const mypy = (file: string) =>
        run(python, [
          "-m",
          "mypy",
          "--strict",
          "--follow-imports=silent",
          "--cache-dir",
          path.join(tmp(), "mypy"),
          file,
        ]);
      const sample = path.join(PY_FIXTURES, "sample.py");
      expect(mypy(sample)).toMatchObject({ status: 0, out: expect.stringContaining("no issues found") });
      const misspelt = path.join(tmp(), "misspelt.py");
      const text = fs.readFileSync(sample, "utf8");
      expect(text).toContain("destination_ids=");
      fs.writeFileSync(misspelt, text.replace("destination_ids=", "destination_idz="));
      const r = mypy(misspelt);
      expect(r.status).toBe(1);
      expect(r.out).toContain('Unexpected keyword argument "destination_idz"');
    },
    TIMEOUT,
  );
});

describe("Go SDK module", () => {
  const dir = path.join(REPO_ROOT, "sdk", "go");
  /** The Go commands' environment: the checked-in go.mod and go.sum as they are. */
  const env = { ...process.env, GOFLAGS: goFlags("-mod=readonly") };

  it("is the module of its import path, requiring Pulumi's Go SDK at the generators' release", () => {
    const goMod = fs.readFileSync(path.join(dir, "go.mod"), "utf8");
    expect(goMod).toMatch(/^module github\.com\/pulumi-service\/pulumi-service\/sdk\/go$/m);
    expect(goMod).toMatch(
      new RegExp(`^\\s*github\\.com/pulumi/pulumi/sdk/v3 v${OLDEST_PULUMI_VERSION}$`, "m"),
    );
    const plugin = JSON.parse(fs.readFileSync(path.join(dir, "service", "pulumi-plugin.json"), "utf8"));
    expect(plugin).toEqual({
      resource: true,
      name: "service",
      version: VERSION,
      server: PLUGIN_DOWNLOAD_URL,
    });
  });

  it(
    "builds and passes go vet, with its go.sum as checked in",
    () => {
      ok("go", ["build", "./..."], { cwd: dir, env });
      ok("go", ["vet", "./..."], { cwd: dir, env });
    },
    TIMEOUT,
  );

  it(
    "passes its unit tests with Pulumi's mocks: type tokens, inputs with their secret flags, outputs, functions",
    () => {
      const out = ok("go", ["test", "-count=1", "./..."], {
        cwd: path.join(REPO_ROOT, "test", "fixtures", "sdk-go"),
        env,
      });
      expect(out).toMatch(/^ok\s+pulumiservice\.local\/sdk-go-test\b/m);
    },
    TIMEOUT,
  );
});
