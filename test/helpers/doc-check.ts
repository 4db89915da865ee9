/**
 * What the documentation (README.md, docs/, examples/) says about this repository's packages,
 * held against the manifests that define them: package names, versions, module paths, `service:`
 * settings and the Pulumi releases named as tested or supported. Used by
 * test/docs/consistency.test.ts; each function returns the problems it finds as
 * `<file>:<line>: <what is wrong>` strings (an empty list when all agree).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { commands, docBlocks, isRun } from "./doc-blocks";

/** One text file of the documentation: its path relative to the repository, and its text. */
export interface DocText {
  file: string;
  text: string;
}

/** Extensions of the examples' files read as documentation (sources, manifests, READMEs). */
const TEXT_EXTENSIONS = new Set([
  ".md",
  ".ts",
  ".js",
  ".py",
  ".go",
  ".mod",
  ".txt",
  ".yaml",
  ".yml",
  ".json",
  ".toml",
  ".pp",
]);
/** Files that are lock files or checksums: what a tool wrote, not what a reader is told. */
const NOT_DOCS = new Set(["package-lock.json", "go.sum"]);

/**
 * README.md, every `.md` of docs/ (and docs/examples/*.pp) and every text file under examples/
 * that git does not ignore (tracked or new; not `node_modules`, stack settings written by runs,
 * venvs), lock files and go.sum aside, read from `repo`.
 * @throws Error when git cannot list the files of `repo`.
 */
export function docTexts(repo: string): DocText[] {
  const out: DocText[] = [];
  const add = (rel: string) => out.push({ file: rel, text: fs.readFileSync(path.join(repo, rel), "utf8") });
  add("README.md");
  for (const f of fs.readdirSync(path.join(repo, "docs")).sort()) if (f.endsWith(".md")) add(`docs/${f}`);
  for (const f of fs.readdirSync(path.join(repo, "docs/examples")).sort()) add(`docs/examples/${f}`);
  const git = spawnSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "examples"], {
    cwd: repo,
    encoding: "utf8",
  });
  if (git.status !== 0)
    throw new Error(`git ls-files in ${repo} failed: ${git.error?.message ?? git.stderr}`);
  for (const rel of [...new Set(git.stdout.split("\0").filter(Boolean))].sort())
    if (
      TEXT_EXTENSIONS.has(path.extname(rel)) &&
      !NOT_DOCS.has(path.basename(rel)) &&
      fs.existsSync(path.join(repo, rel))
    )
      add(rel);
  return out;
}

/** 1-based line of character `index` of `text`. */
export function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** What the manifests define: names, the one version, module entry points, the SDKs' folders. */
export interface Manifests {
  /** The release every manifest names (package.json files, pyproject.toml, the schema). */
  version: string;
  /** npm package names: the four packages of the workspace and the generated Node.js SDK. */
  npm: Set<string>;
  /** The Python SDK's distribution name (sdk/python/pyproject.toml), also its import name. */
  pypi: string;
  /** The Go SDK's module path (sdk/go/go.mod). */
  goModule: string;
  /** `exports` of each npm package, by name (`"."`, `"./client"`, `"./provider/*"`, …). */
  exports: Map<string, { dir: string; exports: Record<string, unknown> }>;
}

/** Reads a JSON file. */
function json<T>(file: string): T {
  return JSON.parse(fs.readFileSync(file, "utf8")) as T;
}

/**
 * The manifests of `repo`: package.json of the root and of packages/*, sdk/nodejs/package.json,
 * sdk/python/pyproject.toml, sdk/go/go.mod and the schema's version.
 * @throws Error when two manifests name different versions (then no one version is "ours").
 */
export function readManifests(repo: string): Manifests {
  type Pkg = { name: string; version: string; exports?: Record<string, unknown> };
  const dirs = [
    ".",
    ...fs.readdirSync(path.join(repo, "packages")).map((p) => `packages/${p}`),
    "sdk/nodejs",
  ];
  const versions = new Map<string, string>();
  const npm = new Set<string>();
  const exports = new Map<string, { dir: string; exports: Record<string, unknown> }>();
  for (const dir of dirs) {
    const file = path.join(repo, dir, "package.json");
    if (!fs.existsSync(file)) continue;
    const pkg = json<Pkg>(file);
    npm.add(pkg.name);
    versions.set(`${dir}/package.json`, pkg.version);
    exports.set(pkg.name, { dir: path.join(repo, dir), exports: pkg.exports ?? { ".": "./index.js" } });
  }
  const pyproject = fs.readFileSync(path.join(repo, "sdk/python/pyproject.toml"), "utf8");
  const pyName = /^\s*name\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
  const pyVersion = /^\s*version\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
  if (!pyName || !pyVersion) throw new Error("sdk/python/pyproject.toml: no [project] name or version");
  versions.set("sdk/python/pyproject.toml", pyVersion);
  versions.set(
    "provider/native/schema.json",
    json<{ version: string }>(path.join(repo, "provider/native/schema.json")).version,
  );
  const goModule = /^module\s+(\S+)/m.exec(fs.readFileSync(path.join(repo, "sdk/go/go.mod"), "utf8"))?.[1];
  if (!goModule) throw new Error("sdk/go/go.mod: no module line");
  const distinct = [...new Set(versions.values())];
  if (distinct.length !== 1)
    throw new Error(
      `the manifests name ${distinct.length} versions: ${[...versions].map(([f, v]) => `${f} ${v}`).join(", ")}`,
    );
  return { version: distinct[0], npm, pypi: pyName, goModule, exports };
}

/** PEP 503's normal form of a Python distribution name. */
function pep503(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

/** Whether an npm name looks like one of ours (so a misspelling of ours is caught). */
const OURS_NPM = /^(pulumi-service|service-[a-z0-9-]+|@pulumi-service\/[a-z0-9-]+)$/;

/** The package name of an npm import specifier or install argument (`@scope/name/sub@1` → `@scope/name`). */
function npmName(spec: string): string {
  const noVersion = spec.replace(/(?<=.)@[^/]*$/, "");
  const parts = noVersion.split("/");
  return noVersion.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/**
 * Every package name of ours the documentation names where a reader would use it: arguments of
 * `npm install`/`pip install`/`go get`, module specifiers of `import`/`require`/`from`, the
 * dependencies of the examples' package.json files, requirements files and go.mod files, and any
 * `github.com/<our module>…` path. Names that look like ours (`pulumi-service…`, `service-…`,
 * `@pulumi-service/…`, `pulumi[-_]service` on PyPI) must be ones the manifests define.
 */
export function checkPackageNames(texts: DocText[], m: Manifests, repo: string): string[] {
  const problems: string[] = [];
  const npmSeen = (file: string, text: string, index: number, spec: string) => {
    const name = npmName(spec);
    if (OURS_NPM.test(name) && !m.npm.has(name))
      problems.push(
        `${file}:${lineOf(text, index)}: npm package "${name}" is not one of ours (${[...m.npm].join(", ")})`,
      );
  };
  const pySeen = (file: string, text: string, index: number, name: string) => {
    if (/^pulumi[-_.]service/i.test(name) && pep503(name) !== pep503(m.pypi))
      problems.push(`${file}:${lineOf(text, index)}: Python package "${name}" is not ${m.pypi}`);
  };
  for (const { file, text } of texts) {
    for (const line of text.matchAll(/\bnpm\s+(?:install|i|add)\b([^\n#]*)/g))
      for (const arg of line[1].matchAll(/(?<=\s)['"]?([@a-z0-9][\w./@^~-]*)/gi))
        if (!arg[1].startsWith("-")) npmSeen(file, text, line.index, arg[1]);
    for (const spec of text.matchAll(/\b(?:from|require|import)\s*\(?\s*["']([^"'\s]+)["']/g))
      if (!spec[1].startsWith(".") && !spec[1].startsWith("node:")) npmSeen(file, text, spec.index, spec[1]);
    if (file.endsWith("package.json")) {
      const pkg = JSON.parse(text) as Record<string, Record<string, string> | undefined>;
      for (const field of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"])
        for (const name of Object.keys(pkg[field] ?? {}))
          npmSeen(file, text, text.indexOf(`"${name}"`), name);
    }
    for (const line of text.matchAll(/\bpip3?\s+install\b([^\n#]*)/g))
      for (const arg of line[1].matchAll(/(?<=\s)['"]?([a-z0-9][\w.-]*)/gi))
        pySeen(file, text, line.index, arg[1]);
    if (/requirements[\w-]*\.txt$/.test(file))
      for (const req of text.matchAll(/^\s*([A-Za-z0-9][\w.-]*)/gm)) pySeen(file, text, req.index, req[1]);
    for (const imp of text.matchAll(/^\s*(?:import|from)\s+(pulumi[-_.]?service\w*)/gim))
      if (imp[1] !== m.pypi)
        problems.push(`${file}:${lineOf(text, imp.index)}: Python module "${imp[1]}" is not ${m.pypi}`);
    // Go: our module, or a package folder of it; `@v/` is the module proxy's protocol path.
    const owner = m.goModule.split("/").slice(0, 2).join("/");
    for (const go of text.matchAll(new RegExp(`${owner.replace(/[./]/g, "\\$&")}/[\\w./-]*`, "g"))) {
      const p = go[0].replace(/[./]+$/, "");
      if (!p.startsWith(`${owner}/pulumi-service/sdk`)) continue; // the repository itself (links, clones)
      const rel =
        p === m.goModule ? "" : p.startsWith(`${m.goModule}/`) ? p.slice(m.goModule.length + 1) : null;
      const ok =
        rel !== null &&
        (rel === "" || rel === "@v" || fs.existsSync(path.join(repo, "sdk/go", rel, "doc.go")));
      if (!ok)
        problems.push(
          `${file}:${lineOf(text, go.index)}: Go path ${p} is not ${m.goModule} or a package of it`,
        );
    }
  }
  return problems;
}

/** A version of ours that differs from the manifests': where, which, and the line it is on. */
interface VersionMention {
  file: string;
  text: string;
  index: number;
  version: string;
}

/** Whether semantic version `a` is older than `b` (numeric major.minor.patch). */
function older(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split(/[.-]/).slice(0, 3).map(Number));
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i];
  return false;
}

/**
 * The rule that tells a historical mention from a stale one: a version older than the current
 * one is history when the text dates it: the word before it is `in`, `until`, `before`, `since`
 * or `from` ("its name in 0.1.0"), or it is in a measurement's record, a paragraph that carries
 * the date of the measurement (`Date: 2026-11-23…` or "measured on 2026-…"). `v0.0.0` beside a
 * `replace` of our Go module in the same command is Go's placeholder for a module a replace
 * supplies. Anything else, newer versions included, is stale.
 */
export function isHistory(v: VersionMention, current: string, goModule: string): boolean {
  const { text, index, version } = v;
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  const before = text.slice(lineStart, index);
  if (version === "0.0.0") {
    const around = text.slice(lineStart, text.indexOf("\n", text.indexOf("\n", index) + 1));
    return around.includes(`-replace=${goModule}=`) || around.includes(`replace ${goModule} =>`);
  }
  if (!older(version, current)) return false;
  if (/\b(in|until|before|since|from)\s+v?$/i.test(before)) return true;
  const paraStart = text.lastIndexOf("\n\n", index) + 1;
  const paraEnd = text.indexOf("\n\n", index);
  const para = text.slice(paraStart, paraEnd === -1 ? undefined : paraEnd);
  return /\bDate:\s*\d{4}-\d{2}-\d{2}|\bmeasured on \d{4}-\d{2}-\d{2}/i.test(para);
}

/**
 * Every version written next to one of our packages equals the manifests' version, history
 * aside (see {@link isHistory}). "Next to" is, on one line:
 * - a line naming one of our packages (`pulumi-service`, `service-emulator`, `service-contract`,
 *   `service-cli-kit`, `@pulumi-service/service`, `pulumi_service`, our Go module,
 *   `pulumi-resource-service`, `resource service` of `pulumi plugin install`, and the file names
 *   `pulumi-resource-service-v<x.y.z>-…` and `pulumi_service-<x.y.z>-…`): each `x.y.z` on
 *   it, except one that belongs to another package (`pulumi==3.248.0`, `@pulumi/pulumi@3.248.0`,
 *   `"jest": "^29.7.0"`, `Node.js v20…`, `Pulumi CLI v3…`) and the parts of an IP address;
 *   a version of another major than ours on such a line, not attached to one of our names, is
 *   another product's (`3.274.1, the release pulumi-service is tested with`);
 * - `version: x.y.z` of a YAML program whose resources are ours (it names `service:index:`).
 */
export function checkVersions(texts: DocText[], m: Manifests): { problems: string[]; history: string[] } {
  const problems: string[] = [];
  const history: string[] = [];
  const ours = new RegExp(
    `(?<![\\w./-])(${[...m.npm].map((n) => n.replace(/[/.]/g, "\\$&")).join("|")}|${m.pypi}|${m.goModule.replace(/[./]/g, "\\$&")}|pulumi-resource-service|plugin install resource service)(?![\\w-])|(pulumi-resource-service-v|${m.pypi}-)\\d`,
  );
  const ourNames = new Set([...m.npm, m.pypi]);
  const judge = (mention: VersionMention) => {
    if (mention.version === m.version) return;
    const at = `${mention.file}:${lineOf(mention.text, mention.index)}`;
    const line = mention.text.slice(
      mention.text.lastIndexOf("\n", mention.index - 1) + 1,
      mention.text.indexOf("\n", mention.index),
    );
    if (isHistory(mention, m.version, m.goModule))
      history.push(`${at}: ${mention.version} (${line.trim().slice(0, 100)})`);
    else
      problems.push(
        `${at}: version ${mention.version} of one of our packages, not ${m.version}: ${line.trim().slice(0, 140)}`,
      );
  };
  for (const { file, text } of texts) {
    let offset = 0;
    for (const line of text.split("\n")) {
      if (ours.test(line)) {
        for (const v of line.matchAll(
          /(?<![\d.])v?(\d+\.\d+\.\d+(?:-(?:rc|alpha|beta|pre|dev)[\w.]*)?)(?!\.?\d)/g,
        )) {
          const before = line.slice(0, v.index);
          // A version attached to a name (`name==`, `name@`, `"name": "^`) is that name's.
          const owner =
            /(@?[\w./-]*[\w])\s*(?:==|>=|<=|~=|!=|@|>|<)\s*['"]?$/.exec(before)?.[1] ??
            /"(@?[\w./-]+)"\s*:\s*"[\^~>=<]*$/.exec(before)?.[1];
          if (owner !== undefined) {
            const mine =
              ourNames.has(owner) || ourNames.has(owner.split("/").pop()!) || owner.includes(m.goModule);
            if (!mine) continue;
          } else if (v[1].split(".")[0] !== m.version.split(".")[0]) continue; // another major: another product's
          judge({ file, text, index: offset + v.index, version: v[1] });
        }
      }
      offset += line.length + 1;
    }
    // YAML programs of ours: every `version:` (a resource option) names our plugin's release.
    for (const yaml of yamlTexts(file, text)) {
      if (!yaml.body.includes("service:index:")) continue;
      for (const v of yaml.body.matchAll(/^\s*version:\s*['"]?v?(\d+\.\d+\.\d+(?:-[\w.]+)?)/gm))
        judge({ file, text, index: yaml.start + v.index + v[0].indexOf(v[1]), version: v[1] });
    }
  }
  return { problems, history };
}

/** The YAML of a file: all of a .yaml file, or each ```yaml block of a Markdown one (with its offset). */
function yamlTexts(file: string, text: string): { start: number; body: string }[] {
  if (/\.ya?ml$/.test(file)) return [{ start: 0, body: text }];
  if (!file.endsWith(".md")) return [];
  return [...text.matchAll(/^([ \t]*)```ya?ml[^\n]*\n([\s\S]*?)^\1```/gm)].map((b) => ({
    start: b.index + b[0].indexOf("\n") + 1,
    body: b[2],
  }));
}

/** Whether `file` (a path, maybe with one `*` folder or file part) exists: `*` matches any entry. */
function existsPattern(file: string): boolean {
  if (!file.includes("*")) return fs.existsSync(file);
  const [dir, rest] = [path.dirname(file.slice(0, file.indexOf("*") + 1)), file.slice(file.indexOf("*"))];
  if (!fs.existsSync(dir)) return false;
  const suffix = rest.slice(1);
  return fs.readdirSync(dir).some((e) => e.endsWith(suffix) || fs.existsSync(path.join(dir, e, suffix)));
}

/**
 * Resolves `sub` (`client`, `provider/impl/runtime`, `provider/impl/` for any module of a folder)
 * of npm package `pkg` through its `exports`, as Node.js does: the target file must exist (the
 * packages must be built). Returns the problem, or undefined when it resolves.
 */
export function resolveSubpath(m: Manifests, pkg: string, sub: string): string | undefined {
  const entry = m.exports.get(pkg);
  if (!entry) return `${pkg} is not one of our packages`;
  const key = `./${sub}`;
  for (const [pattern, target] of Object.entries(entry.exports)) {
    const t =
      typeof target === "string"
        ? target
        : ((target as Record<string, string>).default ?? (target as Record<string, string>).require);
    let file: string | undefined;
    if (pattern === key) file = t;
    else if (pattern.endsWith("*") && key.startsWith(pattern.slice(0, -1))) {
      const star = key.slice(pattern.length - 1);
      // A folder (`provider/impl/`) or a placeholder (`provider/impl/<kind>`): some module of it.
      file = t.replace("*", star === "" || star.endsWith("/") ? `${star}*` : star);
    }
    if (file === undefined) continue;
    return existsPattern(path.join(entry.dir, file))
      ? undefined
      : `${pkg}/${sub} maps to ${file}, which does not exist (npm run build)`;
  }
  // A folder (`provider/impl/`) or a placeholder (`provider/impl/<kind>`, `provider/impl/*`) named
  // where the exports list its modules one by one: some listed module lies in it.
  const folder = key.replace(/\*$/, "");
  if (folder.endsWith("/") && Object.keys(entry.exports).some((k) => k.startsWith(folder) && k !== folder))
    return undefined;
  return `"${pkg}/${sub}" is not in ${pkg}'s package.json exports (${Object.keys(entry.exports).join(", ")})`;
}

/**
 * Every module path under one of our npm packages the documentation names (`pulumi-service/native`,
 * `pulumi-service/provider/impl/runtime`, `service-emulator/…`, in code or prose) resolves through
 * that package's `exports`; every `pulumi_service.<name>` is a module or a public name of the
 * Python SDK (see {@link pythonSdkNames}).
 */
export function checkModulePaths(texts: DocText[], m: Manifests, repo: string): string[] {
  const problems: string[] = [];
  const names = [...m.npm].filter((n) => !n.startsWith("@")).map((n) => n.replace(/[.]/g, "\\."));
  const re = new RegExp(`(?<![\\w./@~-])(${names.join("|")})/((?:[\\w.-]+/)*(?:[\\w.-]+|\\*|(?=<))?)`, "g");
  const py = pythonSdkNames(repo, m.pypi);
  for (const { file, text } of texts) {
    for (const ref of text.matchAll(re)) {
      const problem = resolveSubpath(m, ref[1], ref[2]);
      if (problem) problems.push(`${file}:${lineOf(text, ref.index)}: ${problem}`);
    }
    for (const ref of text.matchAll(new RegExp(`\\b${m.pypi}\\.(\\w+)`, "g")))
      if (!py.has(ref[1]))
        problems.push(
          `${file}:${lineOf(text, ref.index)}: ${m.pypi}.${ref[1]} is neither a module nor a public name of sdk/python/${m.pypi}`,
        );
  }
  return problems;
}

/**
 * The public names of the Python SDK: its modules and sub-packages, and the `__all__` of every
 * module its `__init__.py` star-imports (read from the source, so no Python is needed).
 */
export function pythonSdkNames(repo: string, pkg: string): Set<string> {
  const dir = path.join(repo, "sdk/python", pkg);
  const names = new Set<string>();
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory() && fs.existsSync(path.join(dir, e.name, "__init__.py"))) names.add(e.name);
    else if (e.name.endsWith(".py") && e.name !== "__init__.py") names.add(e.name.slice(0, -3));
  }
  const init = fs.readFileSync(path.join(dir, "__init__.py"), "utf8");
  for (const star of init.matchAll(/^from \.(\w+) import \*/gm)) {
    const mod = fs.readFileSync(path.join(dir, `${star[1]}.py`), "utf8");
    const all = /^__all__\s*=\s*\[([\s\S]*?)\]/m.exec(mod)?.[1] ?? "";
    for (const n of all.matchAll(/['"](\w+)['"]/g)) names.add(n[1]);
  }
  return names;
}

/**
 * Every `service:<key>` setting named is a config variable of the schema (`service:index:…`
 * type tokens aside), and every document that lists settings lists the required ones:
 * - a configuration table (rows whose first cell is a `service:<key>`) that lists one required
 *   key lists them all;
 * - a Markdown document whose run shell blocks configure a stack (`pulumi config set service:…`) sets each
 *   required one, by `pulumi config set` or by exporting its environment fallback.
 * @param required the keys without which the provider refuses to run, with their environment fallbacks.
 */
export function checkSettings(
  repo: string,
  texts: DocText[],
  schemaConfig: Record<string, unknown>,
  required: { key: string; env: string }[],
): string[] {
  const problems: string[] = [];
  for (const { file, text } of texts) {
    for (const s of text.matchAll(/\bservice:([a-z][A-Za-z0-9]*)\b(?!:)/g))
      if (!(s[1] in schemaConfig))
        problems.push(
          `${file}:${lineOf(text, s.index)}: service:${s[1]} is not a config variable of the schema (${Object.keys(schemaConfig).join(", ")})`,
        );
    if (!file.endsWith(".md")) continue;
    const rows = [...text.matchAll(/^\|\s*`service:(\w+)`\s*\|/gm)];
    if (rows.some((r) => required.some((q) => q.key === r[1]))) {
      const listed = new Set(rows.map((r) => r[1]));
      for (const r of required)
        if (!listed.has(r.key))
          problems.push(
            `${file}:${lineOf(text, rows[0].index)}: its table of settings leaves out the required service:${r.key}`,
          );
    }
    const script = docBlocks(path.join(repo, file), file).filter(isRun).map(commands).join("\n");
    const sets = [...script.matchAll(/pulumi config set (?:--secret |--plaintext )*service:(\w+)/g)];
    if (sets.length > 0) {
      for (const r of required)
        if (!sets.some((s) => s[1] === r.key) && !new RegExp(`\\bexport\\b[^\\n]*\\b${r.env}=`).test(script))
          problems.push(
            `${file}: its commands configure a stack (pulumi config set service:${sets[0][1]}) without the required service:${r.key} (or ${r.env})`,
          );
    }
  }
  return problems;
}

/** The Pulumi releases the repository names as its own (scripts/pulumi-env.js and the consumer test). */
export interface PulumiReleases {
  /** The engine every test runs (PULUMI_VERSION). */
  engine: string;
  /** The oldest supported release, the floor of the peer range (OLDEST_PULUMI_VERSION). */
  oldest: string;
  /** The newest `@pulumi/pulumi` the consumer test runs (NEWEST_SDK of test/e2e/consumer.test.ts). */
  newestSdk: string;
}

/**
 * In each sentence that names a Pulumi release as the tested or supported one (it says
 * `tested` or `supported`), every Pulumi version (`3.x` or `3.x.y`, with or without `v`) is one of
 * `releases` (a `3.x` is a prefix of one); and every Pulumi SDK a reader is told to install (an
 * install line, an example's manifest) is the oldest supported release, the one the lock file
 * holds and `npm test` runs.
 */
export function checkPulumiVersions(texts: DocText[], releases: PulumiReleases): string[] {
  const known = [releases.engine, releases.oldest, releases.newestSdk];
  const problems: string[] = [];
  for (const { file, text } of texts) {
    for (const sentence of sentences(text)) {
      if (!/\b(tested|supported)\b/i.test(sentence.text)) continue;
      // A range (`>=3.269`, `^3.248.0`) is a requirement, not a release named as tested.
      for (const v of sentence.text.matchAll(/(?<![\w.]|[<>=~^]\s*)v?(3\.\d{3}(?:\.\d+)?)(?![\w.]*\d)/g)) {
        const ok = known.some((k) => k === v[1] || k.startsWith(`${v[1]}.`));
        if (!ok)
          problems.push(
            `${file}:${lineOf(text, sentence.start + v.index)}: Pulumi ${v[1]} named as tested/supported is none of engine ${releases.engine}, oldest ${releases.oldest}, newest SDK ${releases.newestSdk}`,
          );
      }
    }
    for (const pin of pulumiSdkPins(file, text))
      if (pin.version !== releases.oldest)
        problems.push(
          `${file}:${lineOf(text, pin.index)}: the Pulumi SDK is installed at ${pin.version}, not the oldest supported ${releases.oldest} the repository tests with`,
        );
  }
  return problems;
}

/**
 * The Pulumi SDK releases a reader installs beside our packages: `@pulumi/pulumi@x` of an
 * `npm install`, `"@pulumi/pulumi": "~x"` of an example's package.json, `pulumi==x` (or `~=`)
 * of a `pip install` or a requirements file, `github.com/pulumi/pulumi/sdk/v3 vx` of a go.mod.
 */
function pulumiSdkPins(file: string, text: string): { index: number; version: string }[] {
  const pins: { index: number; version: string }[] = [];
  const add = (re: RegExp, within = text, offset = 0) => {
    for (const m of within.matchAll(re)) pins.push({ index: offset + m.index, version: m[1] });
  };
  for (const line of text.matchAll(/\bnpm\s+(?:install|i|add)\b[^\n]*/g))
    add(/@pulumi\/pulumi@[~^]?(\d+\.\d+\.\d+)/g, line[0], line.index);
  for (const line of text.matchAll(/\bpip3?\s+install\b[^\n]*/g))
    add(/(?<![\w-])pulumi\s*(?:==|~=)\s*(\d+\.\d+\.\d+)/g, line[0], line.index);
  if (file.endsWith("package.json")) add(/"@pulumi\/pulumi"\s*:\s*"[~^]?(\d+\.\d+\.\d+)"/g);
  if (/requirements[\w-]*\.txt$/.test(file)) add(/^pulumi\s*(?:==|~=)\s*(\d+\.\d+\.\d+)/gm);
  if (file.endsWith("go.mod")) add(/github\.com\/pulumi\/pulumi\/sdk\/v3 v(\d+\.\d+\.\d+)/g);
  return pins;
}

/** The sentences of a text (split at `. `, `; `, `: ` before a capital, and at blank lines), with offsets. */
function sentences(text: string): { start: number; text: string }[] {
  const out: { start: number; text: string }[] = [];
  const re = /[.;!?](?=\s+[A-Z(`*])|\n\s*\n|\n(?=\s*[-|#])/g;
  let start = 0;
  for (const m of text.matchAll(re)) {
    out.push({ start, text: text.slice(start, m.index + 1) });
    start = m.index + m[0].length;
  }
  out.push({ start, text: text.slice(start) });
  return out;
}
