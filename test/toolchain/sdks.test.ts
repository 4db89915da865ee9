/**
 * The generated SDKs (sdk/nodejs, sdk/python, sdk/go) against the schema they come from:
 * scripts/gen-sdks.js regenerates them into a temporary folder with Pulumi's code generators,
 * and every file must be the same as the checked-in one. A schema the binder rejects stops
 * generation with its diagnostics.
 */
import * as fs from "fs";
import * as path from "path";
import { spawnSync } from "child_process";
import { REPO_ROOT } from "../../scripts/pulumi-env";
import { useTempDir } from "../helpers/temp-dir";

const LANGUAGES = ["nodejs", "python", "go"];
const SCHEMA = path.join(REPO_ROOT, "provider", "native", "schema.json");
// The first run builds the generator (Go) into the user's cache.
const BUILD_TIMEOUT = 600_000;

/** Runs scripts/gen-sdks.js with `args`; returns its exit code and stderr. */
function genSdks(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(REPO_ROOT, "scripts", "gen-sdks.js"), ...args], {
    encoding: "utf8",
    timeout: BUILD_TIMEOUT,
  });
  return { status: r.status, stderr: r.stderr };
}

/** Every file below `dir`, as paths relative to it (`/`-separated), sorted. */
function filesBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk("");
  return out.sort();
}

/** Files ignored by the SDK's own .gitignore that a build leaves in the checked-in folder. */
function isBuildOutput(lang: string, file: string): boolean {
  return (
    (lang === "nodejs" && /^(bin|node_modules)\//.test(file)) ||
    (lang === "python" && /(^|\/)(__pycache__|build|dist|[^/]+\.egg-info)\//.test(file))
  );
}

describe("generated SDKs", () => {
  const tmp = useTempDir("gen-sdks-");

  it(
    "are what Pulumi's generators make of provider/native/schema.json (run `npm run gen:sdks` when this fails)",
    () => {
      const out = path.join(tmp(), "fresh");
      const run = genSdks(["--out", out]);
      expect({ status: run.status, stderr: run.status === 0 ? "" : run.stderr }).toEqual({
        status: 0,
        stderr: "",
      });
      for (const lang of LANGUAGES) {
        const checkedIn = path.join(REPO_ROOT, "sdk", lang);
        const fresh = filesBelow(path.join(out, lang));
        const present = fs.existsSync(checkedIn)
          ? filesBelow(checkedIn).filter((f) => !isBuildOutput(lang, f))
          : [];
        expect({ lang, files: present }).toEqual({ lang, files: fresh });
        const stale = fresh.filter(
          (f) => !fs.readFileSync(path.join(checkedIn, f)).equals(fs.readFileSync(path.join(out, lang, f))),
        );
        expect({ lang, stale }).toEqual({ lang, stale: [] });
      }
    },
    BUILD_TIMEOUT,
  );

  it(
    "are not written when the schema binder reports a diagnostic, which is printed",
    () => {
      const schema = JSON.parse(fs.readFileSync(SCHEMA, "utf8"));
      const [token] = Object.keys(schema.resources);
      schema.resources[token].inputProperties.misspelt = { $ref: "#/types/service:index:NoSuchType" };
      const broken = path.join(tmp(), "broken.json");
      fs.writeFileSync(broken, JSON.stringify(schema));
      const out = path.join(tmp(), "broken-out");
      const run = genSdks(["--schema", broken, "--out", out]);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("service:index:NoSuchType");
      expect(run.stderr).toMatch(/reported 1 diagnostic/);
      expect(fs.existsSync(out)).toBe(false);
    },
    BUILD_TIMEOUT,
  );
});
