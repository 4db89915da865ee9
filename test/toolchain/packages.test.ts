/**
 * The three published packages: publishable (not private; license, repository, engines, files,
 * exports and types set), versioned together (each depends on the others at exactly the shared
 * version), and their `exports`, `types` and `bin` point at files the build made.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const REPO = path.resolve(__dirname, "../..");
const DIRS = {
  "pulumi-service": ".",
  "service-contract": "packages/contract",
  "service-emulator": "packages/emulator",
};

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  license?: string;
  repository?: unknown;
  engines?: { node?: string };
  files?: string[];
  types?: string;
  exports?: Record<string, string | { types: string; default: string }>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
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
