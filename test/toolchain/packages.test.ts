/**
 * The four published packages: publishable (not private; license, repository, engines, files,
 * exports and types set; keywords, homepage and bugs for the registry's page), versioned
 * together (each depends on the others at exactly the shared version), their `exports`, `types`
 * and `bin` point at files the build made, each carries the Apache-2.0 LICENSE (one text, the
 * same in each package folder), and what `npm publish` would upload (a dry run, against a registry
 * it cannot reach) is the built code, the README and the LICENSE, without tests, sources or maps.
 * And the tests that install the packed packages (test/helpers/tarballs.ts `installSpecs`) give
 * npm, beside each one, the tarball of every package of ours it depends on, so npm never asks the
 * registry for one; the tarballs they get (`packAll`) are packed once per test run, in the run's
 * folder, and hold what `npm publish` would upload.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { RUN_DIR_ENV } from "../helpers/global-setup";
import {
  PACKAGES,
  RUN_PACKED_DIR,
  installSpecs,
  packAll,
  type PackageName,
  type Packed,
} from "../helpers/tarballs";
import { useTempDir } from "../helpers/temp-dir";

const REPO = path.resolve(__dirname, "../..");
/** Each package's folder, relative to the repository (the tests' one list of our packages). */
const DIRS = Object.fromEntries(PACKAGES.map((p) => [p.name, path.relative(REPO, p.dir) || "."])) as Record<
  PackageName,
  string
>;

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: { type?: string; url?: string; directory?: string };
  keywords?: string[];
  homepage?: string;
  bugs?: { url?: string };
  engines?: { node?: string };
  files?: string[];
  types?: string;
  exports?: Record<string, string | { types: string; default: string }>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** SHA-256 of the standard text of the Apache License 2.0 (as the Apache Software Foundation publishes it). */
const APACHE_2_SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30";
const GITHUB = "https://github.com/pulumi-service/pulumi-service";

/** What `npm publish --dry-run --json` reports it would upload. */
interface Tarball {
  name: string;
  version: string;
  files: { path: string }[];
}

/**
 * `npm publish --dry-run` of the package in `dir`: no scripts (the build is done), offline and
 * against a registry on a closed port, so nothing can be uploaded.
 */
function dryRunPublish(dir: string): Tarball {
  const r = spawnSync(
    "npm",
    [
      "publish",
      "--dry-run",
      "--json",
      "--ignore-scripts",
      "--offline",
      "--fetch-retries",
      "0",
      "--registry",
      "http://127.0.0.1:9/",
    ],
    { cwd: dir, encoding: "utf8", timeout: 120_000, env: { ...process.env, NODE_AUTH_TOKEN: "" } },
  );
  if (r.status !== 0) throw new Error(`npm publish --dry-run failed in ${dir}: ${r.stderr}`);
  return Object.values(JSON.parse(r.stdout) as Record<string, Tarball>)[0];
}

const dryRuns = new Map<string, Tarball>();

/** {@link dryRunPublish} of `dir`, run once in this file (two tests read it). */
function publishedFiles(dir: string): Tarball {
  if (!dryRuns.has(dir)) dryRuns.set(dir, dryRunPublish(dir));
  return dryRuns.get(dir)!;
}

const manifests = Object.entries(DIRS).map(([name, dir]) => {
  const m = JSON.parse(fs.readFileSync(path.join(REPO, dir, "package.json"), "utf8")) as Manifest;
  return { name, dir: path.join(REPO, dir), m };
});

describe.each(manifests)("$name", ({ name, dir, m }) => {
  it("is publishable", () => {
    expect(m.name).toBe(name);
    expect(m.private).toBeUndefined();
    expect(m.license).toBe("Apache-2.0");
    expect(m.repository).toBeDefined();
    expect(m.engines?.node).toBe(">=20");
    expect(m.files?.length).toBeGreaterThan(0);
    expect(m.files!.some((f) => /test|fixture|\.map|\.ts$/.test(f.replace(/\.d\.ts$/, "")))).toBe(false);
  });

  it("tells the registry where it lives: keywords, homepage, bugs, repository and its folder", () => {
    expect(m.keywords?.length).toBeGreaterThanOrEqual(3);
    expect(m.homepage).toMatch(
      new RegExp(`^${GITHUB}(/tree/main/${dir === REPO ? "" : path.relative(REPO, dir)})?#readme$`),
    );
    expect(m.bugs).toEqual({ url: `${GITHUB}/issues` });
    expect(m.repository).toEqual({
      type: "git",
      url: `git+${GITHUB}.git`,
      ...(dir === REPO ? {} : { directory: path.relative(REPO, dir) }),
    });
  });

  it("has the Apache-2.0 LICENSE in its folder and its files: the standard text, the same everywhere", () => {
    expect(m.files).toContain("LICENSE");
    const text = fs.readFileSync(path.join(dir, "LICENSE"));
    expect(createHash("sha256").update(text).digest("hex")).toBe(APACHE_2_SHA256);
    expect(text.equals(fs.readFileSync(path.join(REPO, "LICENSE")))).toBe(true);
  });

  it("would publish the built code, README and LICENSE, and no tests, sources or source maps", () => {
    const tarball = publishedFiles(dir);
    expect({ name: tarball.name, version: tarball.version }).toEqual({ name, version: m.version });
    const files = tarball.files.map((f) => f.path).sort();
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json"]));
    const others = files.filter((f) => !["LICENSE", "README.md", "package.json"].includes(f));
    // Bins too: the provider plugin's launcher must have the exact name the engine looks for. And
    // the native SDK's manifest: its generated code reads the SDK's version there. And a policy
    // pack's PulumiPolicy.yaml, which the engine reads to run the pack.
    const allowed = [...Object.values(m.bin ?? {}), "dist/sdk/nodejs/package.json"];
    if (name === "service-policy") allowed.push("PulumiPolicy.yaml");
    expect(others.filter((f) => !/^dist\/.+(\.d\.ts|\.js)$/.test(f) && !allowed.includes(f))).toEqual([]);
    expect(others.filter((f) => /(^|\/)(test|tests|__tests__|fixtures?)\/|\.test\.|\.map$/.test(f))).toEqual(
      [],
    );
    for (const target of [m.types!, ...Object.values(m.bin ?? {})]) expect(files).toContain(target);
  }, 120_000);

  it("is at the shared version, and so are the packages it depends on", () => {
    expect(m.version).toBe(manifests[0].m.version);
    for (const deps of [m.dependencies ?? {}, m.devDependencies ?? {}]) {
      for (const other of Object.keys(DIRS)) {
        if (deps[other] !== undefined) expect({ [other]: deps[other] }).toEqual({ [other]: m.version });
      }
    }
  });

  it("points its exports, types and bins at built files", () => {
    const targets = [
      m.types!,
      ...Object.values(m.exports ?? {}).flatMap((e) => (typeof e === "string" ? [e] : [e.types, e.default])),
      ...Object.values(m.bin ?? {}),
    ].filter((t) => !t.includes("*"));
    expect(targets.length).toBeGreaterThan(1);
    for (const t of targets) expect({ [t]: fs.existsSync(path.join(dir, t)) }).toEqual({ [t]: true });
  });
});

/**
 * The module paths of `pulumi-service` that README.md and docs/ tell a program to import or
 * require (`from "pulumi-service/…"`, `require("pulumi-service/…")`), as export keys (`./client`).
 */
function documentedModulePaths(): Set<string> {
  const docs = [
    path.join(REPO, "README.md"),
    ...fs
      .readdirSync(path.join(REPO, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => path.join(REPO, "docs", f)),
  ];
  const found = new Set<string>();
  for (const doc of docs) {
    const text = fs.readFileSync(doc, "utf8");
    for (const m of text.matchAll(/(?:from |require\(|import\()["'`]pulumi-service(\/[\w/]+)?["'`]/g))
      found.add(`.${m[1] ?? ""}`);
  }
  return found;
}

describe("pulumi-service's published surface: exports", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")) as Manifest;
  /** The modules deployed dynamic states load by package name (docs/development.md, the frozen paths). */
  const FROZEN = ["runtime", "eventSubscription", "eventDestination", "abuseReport"].map(
    (m) => `./provider/impl/${m}`,
  );

  /** What Node.js answers for `require.resolve(specifier)` from a program beside this repository's node_modules. */
  function resolve(specifier: string): string {
    const r = spawnSync(
      process.execPath,
      [
        "-e",
        `try { process.stdout.write(require.resolve(${JSON.stringify(specifier)})) } catch (e) { process.stdout.write(e.code) }`,
      ],
      { cwd: REPO, encoding: "utf8" },
    );
    return r.stdout;
  }

  it("lists the documented entry points, the 0.1.0 alias ./sdk and the paths deployed states load, nothing else", () => {
    const documented = documentedModulePaths();
    expect([...documented].filter((p) => !(p in manifest.exports!))).toEqual([]);
    expect(Object.keys(manifest.exports!).sort()).toEqual(
      [...new Set([...documented, "./sdk", ...FROZEN, "./package.json"])].sort(),
    );
  });

  it("resolves every export to a built file, and an undocumented module not at all", () => {
    for (const key of Object.keys(manifest.exports!)) {
      const specifier = `pulumi-service${key.slice(1)}`;
      expect({ specifier, resolved: resolve(specifier).startsWith(path.join(REPO, "/")) }).toEqual({
        specifier,
        resolved: true,
      });
    }
    for (const inner of [
      "pulumi-service/provider/impl/create/claims",
      "pulumi-service/provider/impl/listedKind",
      "pulumi-service/dist/client/client.js",
    ]) {
      expect({ inner, resolved: resolve(inner) }).toEqual({
        inner,
        resolved: "ERR_PACKAGE_PATH_NOT_EXPORTED",
      });
    }
  });
});

/** The `package.json` inside a packed tarball. */
function packedManifest(tarball: string): Manifest {
  return JSON.parse(
    execFileSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" }),
  ) as Manifest;
}

describe("installed from the tarballs (installSpecs of test/helpers/tarballs.ts)", () => {
  const tmp = useTempDir("pulumi-service-packages-");
  let packed: Record<PackageName, Packed>;

  beforeAll(() => {
    packed = packAll(tmp());
  }, 300_000);

  it.each(Object.keys(DIRS) as PackageName[])(
    "%s: its tarball last, after the tarball of each package of ours it or they depend on, at the version pinned",
    (name) => {
      const specs = installSpecs(name, packed);
      expect(specs.at(-1)).toBe(packed[name].tarball);
      const given = new Map(specs.map((t) => [packedManifest(t).name, packedManifest(t).version]));
      expect(given.size).toBe(specs.length);
      for (const tarball of specs) {
        const m = packedManifest(tarball);
        for (const deps of [m.dependencies, m.optionalDependencies, m.peerDependencies]) {
          for (const [dep, range] of Object.entries(deps ?? {}).filter(([d]) => d in DIRS)) {
            expect({ of: m.name, dep, given: given.get(dep) }).toEqual({ of: m.name, dep, given: range });
          }
        }
      }
    },
  );
});

describe("packed once per test run (packAll of test/helpers/tarballs.ts)", () => {
  const tmp = useTempDir("pulumi-service-pack-all-");
  const names = Object.keys(DIRS) as PackageName[];

  it("gives every caller of the run the run's tarballs in its folder, packed once: removing one caller's folder leaves the others'", () => {
    const [a, b] = ["a", "b"].map((d) => path.join(tmp(), d));
    for (const d of [a, b]) fs.mkdirSync(d);
    const first = packAll(a);
    const before = names.map((n) => fs.statSync(first[n].tarball));
    const second = packAll(b);
    const shared = path.join(process.env[RUN_DIR_ENV]!, RUN_PACKED_DIR);
    for (const [i, name] of names.entries()) {
      const file = path.basename(first[name].tarball);
      expect(first[name].tarball).toBe(path.join(a, file));
      expect(second[name]).toEqual({ ...first[name], tarball: path.join(b, file) });
      // One file, the run's, not packed again: same inode, not rewritten since the first call.
      const [run, now, other] = [path.join(shared, file), first[name].tarball, second[name].tarball].map(
        (f) => fs.statSync(f),
      );
      expect({ name, ino: other.ino, mtime: other.mtimeMs }).toEqual({
        name,
        ino: before[i].ino,
        mtime: before[i].mtimeMs,
      });
      expect([run.ino, now.ino]).toEqual([before[i].ino, before[i].ino]);
    }
    fs.rmSync(a, { recursive: true });
    for (const name of names) expect(fs.readFileSync(second[name].tarball).length).toBe(second[name].size);
  }, 300_000);

  it.each(names)(
    "%s: its tarball holds exactly the files npm pack listed, those npm publish would upload",
    (name) => {
      const dest = path.join(tmp(), `files-${name}`);
      fs.mkdirSync(dest);
      const packed = packAll(dest)[name];
      const entries = execFileSync("tar", ["-tzf", packed.tarball], { encoding: "utf8" })
        .split("\n")
        .filter((e) => e !== "")
        .map((e) => e.replace(/^package\//, ""))
        .sort();
      expect(entries).toEqual([...packed.files].sort());
      expect(packed.files.slice().sort()).toEqual(
        publishedFiles(path.join(REPO, DIRS[name]))
          .files.map((f) => f.path)
          .sort(),
      );
      expect(fs.statSync(packed.tarball).size).toBe(packed.size);
    },
    300_000,
  );
});
