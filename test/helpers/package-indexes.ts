/**
 * Local package indexes laid out as the real ones are, so that a test installs an SDK the way a
 * user does (`pip install <name>==<version>`, `go get <module>@v<version>`), from a folder served
 * by test/helpers/file-tree-server.ts instead of PyPI or proxy.golang.org:
 *
 * - {@link writePythonIndex}: a PEP 503 "simple" repository: `simple/index.html` lists the
 *   projects, `simple/<normalized name>/index.html` links each file with its `#sha256=` digest,
 *   and the files sit beside that page.
 * - {@link writeGoProxyModule}: a module version as the GOPROXY protocol serves it:
 *   `<escaped module path>/@v/list`, `v<version>.info`, `v<version>.mod`, `v<version>.zip`.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * A project name as PEP 503 normalizes it for the index's URLs: runs of `-`, `_` and `.` become
 * one `-`, lower case (`pulumi_service` → `pulumi-service`).
 */
export function normalizePythonName(name: string): string {
  return name.replace(/[-_.]+/g, "-").toLowerCase();
}

/**
 * The project name of a distribution file: the part of a wheel's name before its first `-`
 * (`pulumi_service-0.1.0-py3-none-any.whl`), or an sdist's before its last `-`
 * (`pulumi_service-0.1.0.tar.gz`).
 * @throws Error for a file that is neither a `.whl` nor a `.tar.gz`.
 */
function distributionProject(file: string): string {
  const base = path.basename(file);
  if (base.endsWith(".whl")) return base.split("-")[0];
  if (base.endsWith(".tar.gz")) return base.slice(0, base.lastIndexOf("-"));
  throw new Error(`not a wheel or an sdist: ${file}`);
}

/** HTML-escapes `s` for an attribute or text. */
function html(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * Writes a PEP 503 simple repository into `root/simple/` holding the distribution files
 * `files` (absolute paths of wheels and sdists, copied in), one project page per normalized
 * project name. Point pip at it with `--index-url <server url>/simple/`.
 * @returns the normalized names of the projects written, sorted.
 * @throws Error when a file is not a `.whl` or `.tar.gz`.
 */
export function writePythonIndex(root: string, files: string[]): string[] {
  const simple = path.join(root, "simple");
  const byProject = new Map<string, string[]>();
  for (const f of files) {
    const project = normalizePythonName(distributionProject(f));
    byProject.set(project, [...(byProject.get(project) ?? []), f]);
  }
  const page = (title: string, links: string[]) =>
    `<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.0"><title>${html(title)}</title></head><body>\n${links.join("<br>\n")}\n</body></html>\n`;
  const projects = [...byProject.keys()].sort();
  for (const project of projects) {
    const dir = path.join(simple, project);
    fs.mkdirSync(dir, { recursive: true });
    const links = byProject.get(project)!.map((f) => {
      const name = path.basename(f);
      fs.copyFileSync(f, path.join(dir, name));
      const sha256 = createHash("sha256").update(fs.readFileSync(f)).digest("hex");
      return `<a href="${html(encodeURIComponent(name))}#sha256=${sha256}">${html(name)}</a>`;
    });
    fs.writeFileSync(path.join(dir, "index.html"), page(`Links for ${project}`, links));
  }
  fs.writeFileSync(
    path.join(simple, "index.html"),
    page(
      "Simple index",
      projects.map((p) => `<a href="${p}/">${p}</a>`),
    ),
  );
  return projects;
}

/**
 * A module path or version as the Go module proxy protocol escapes it in URLs and file names:
 * each upper-case letter becomes `!` and its lower-case form (`github.com/Azure` →
 * `github.com/!azure`).
 */
export function goEscapePath(p: string): string {
  return p.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/** Folders Go never puts in a module zip (version control metadata). */
const VCS_DIRS = new Set([".git", ".hg", ".svn", ".bzr"]);

/**
 * The files of the module rooted at `dir`, as paths relative to it with `/`, sorted, leaving out
 * what `go mod download` never puts in a module zip: version control folders, `vendor/` folders,
 * subfolders holding a `go.mod` of their own (other modules), and anything not a regular file
 * (symbolic links included).
 */
export function goModuleFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (VCS_DIRS.has(entry.name) || entry.name === "vendor") continue;
        if (fs.existsSync(path.join(dir, r, "go.mod"))) continue;
        walk(r);
      } else if (entry.isFile()) out.push(r);
    }
  };
  walk("");
  return out.sort();
}

/** Writes a zip of `entries` (name in the zip → absolute file) with Python's zipfile (deflated). */
function writeZip(zip: string, entries: [string, string][]): void {
  const script = [
    "import json, sys, zipfile",
    "out, entries = sys.argv[1], json.load(sys.stdin)",
    "with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:",
    "    for name, src in entries:",
    "        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))",
    "        info.compress_type = zipfile.ZIP_DEFLATED",
    "        info.external_attr = 0o644 << 16",
    "        with open(src, 'rb') as f:",
    "            z.writestr(info, f.read())",
  ].join("\n");
  execFileSync("python3", ["-c", script, zip], {
    input: JSON.stringify(entries),
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** What {@link writeGoProxyModule} wrote. */
export interface GoProxyModule {
  /** The module's folder in the proxy tree: `<root>/<escaped module path>/@v`. */
  dir: string;
  /** The URL paths Go asks for this version (relative to the proxy's root, leading `/`). */
  paths: { info: string; mod: string; zip: string };
  /** The files packed into the zip, relative to the module's folder. */
  files: string[];
}

/**
 * Writes version `v<version>` of the Go module rooted at `moduleDir` (its `go.mod` names
 * `modulePath`) into the proxy tree `root`, as the GOPROXY protocol lays it out:
 * `<root>/<escaped module path>/@v/list` (the version added to those already listed),
 * `v<version>.info` (`{"Version","Time"}`, `time` or now), `v<version>.mod` (the module's
 * go.mod) and `v<version>.zip`, whose entries are `<module path>@v<version>/<file>` for the
 * files of {@link goModuleFiles}. Serve `root` over HTTP (or as `file://`) and put it first in
 * `GOPROXY`. `version` is without the `v` (`0.1.0`); needs `python3` on PATH for the zip.
 * @throws Error when `moduleDir/go.mod` is missing or names another module.
 */
export function writeGoProxyModule(
  root: string,
  opts: { modulePath: string; version: string; moduleDir: string; time?: Date },
): GoProxyModule {
  const goMod = fs.readFileSync(path.join(opts.moduleDir, "go.mod"), "utf8");
  const declared = /^module\s+(\S+)/m.exec(goMod)?.[1];
  if (declared !== opts.modulePath)
    throw new Error(`${opts.moduleDir}/go.mod declares module ${declared}, not ${opts.modulePath}`);
  const v = `v${opts.version}`;
  const escaped = goEscapePath(opts.modulePath);
  const dir = path.join(root, ...escaped.split("/"), "@v");
  fs.mkdirSync(dir, { recursive: true });
  const listFile = path.join(dir, "list");
  const listed = fs.existsSync(listFile) ? fs.readFileSync(listFile, "utf8").split("\n").filter(Boolean) : [];
  fs.writeFileSync(listFile, [...new Set([...listed, v])].join("\n") + "\n");
  const ev = goEscapePath(v);
  fs.writeFileSync(
    path.join(dir, `${ev}.info`),
    JSON.stringify({ Version: v, Time: (opts.time ?? new Date()).toISOString() }) + "\n",
  );
  fs.writeFileSync(path.join(dir, `${ev}.mod`), goMod);
  const files = goModuleFiles(opts.moduleDir);
  writeZip(
    path.join(dir, `${ev}.zip`),
    files.map((f) => [`${opts.modulePath}@${v}/${f}`, path.join(opts.moduleDir, f)]),
  );
  const at = `/${escaped}/@v/${ev}`;
  return { dir, paths: { info: `${at}.info`, mod: `${at}.mod`, zip: `${at}.zip` }, files };
}
