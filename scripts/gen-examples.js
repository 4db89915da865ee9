#!/usr/bin/env node
// Regenerates the TypeScript, Python and Go versions of the docs' examples from their one
// source each, a PCL program in docs/examples/<name>.pp (`npm run gen:examples`), with Pulumi's
// own program generators (tools/pulumi-oldest/pulumi-gen-examples, built into the user's cache
// like pulumi-gen-sdks, see gen-sdks.js) over the native provider's schema: the blocks of the
// docs, and the programs of the example projects examples/<language>/<name>/ (PROJECTS).
//
// Each generated block sits in a Markdown file between
//   <!-- generated from docs/examples/<name>.pp: <language> (npm run gen:examples) -->
//   <!-- end of generated block -->
// (language: typescript, python or go); the script rewrites what is between them as a fenced
// block, then formats the file with Prettier as `npm run lint` expects (which lays out the
// TypeScript blocks; Python and Go are left as their generators format them).
//
// Each example project's program file (index.ts, __main__.py, main.go) is the generator's
// output for its language, the TypeScript one formatted by Prettier with this repository's
// settings; the project's other files (Pulumi.yaml, the manifest, README.md) are written by hand.
//
// Usage: node scripts/gen-examples.js [--check] [--examples DIR] [FILE.md...]
// Without FILE.md and --examples: docs/resources.md, docs/_index.md, docs/providers.md and the
// programs of the example projects in examples/. With FILE.md: only those documents. With --examples DIR: the
// programs go to DIR/<language>/<name>/<file> instead (the folders are made), e.g. a temporary
// folder to compare with examples/.
// --check writes nothing and exits 1, naming each stale file, when a file differs from what
// the generators give (or is missing). Exit 1 also when a marker names an unknown example or
// language, or the generator fails (its diagnostics are printed).
"use strict";

const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const prettier = require("prettier");
const { REPO_ROOT } = require("./pulumi-env");
const { ensureGenerator } = require("./gen-sdks");

const EXAMPLES_DIR = path.join(REPO_ROOT, "docs", "examples");
const SCHEMA = path.join(REPO_ROOT, "provider", "native", "schema.json");
/** The documents that hold generated blocks. */
const DEFAULT_DOCUMENTS = [
  path.join(REPO_ROOT, "docs", "resources.md"),
  path.join(REPO_ROOT, "docs", "_index.md"),
  path.join(REPO_ROOT, "docs", "providers.md"),
];
/** The Node.js SDK ships in the package pulumi-service (exports "./native"). */
const NODEJS_PACKAGE = "pulumi-service/native";
/** The example projects whose program is generated: examples/<language>/<name>/<file>. */
const PROJECTS = [
  { name: "quickstart", language: "typescript", file: "index.ts" },
  { name: "quickstart", language: "python", file: "__main__.py" },
  { name: "quickstart", language: "go", file: "main.go" },
  { name: "multi-account", language: "python", file: "__main__.py" },
  { name: "multi-account", language: "go", file: "main.go" },
];
/** Fence language of each generated language. */
const FENCES = { typescript: "ts", python: "python", go: "go" };
const BLOCK =
  /(<!-- generated from docs\/examples\/([\w-]+)\.pp: (\w+) \(npm run gen:examples\) -->\n)[\s\S]*?(<!-- end of generated block -->)/g;

function fail(msg) {
  process.stderr.write(`gen-examples: ${msg}\n`);
  process.exit(1);
}

/** Runs the generator over every docs/examples/*.pp; returns name → language → source. */
async function generate() {
  const generator = await ensureGenerator("pulumi-gen-examples");
  const files = fs
    .readdirSync(EXAMPLES_DIR)
    .filter((f) => f.endsWith(".pp"))
    .sort()
    .map((f) => path.join(EXAMPLES_DIR, f));
  const r = spawnSync(generator, ["-schema", SCHEMA, "-nodejs-package", NODEJS_PACKAGE, ...files], {
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.error) fail(r.error.message);
  if (r.status !== 0) process.exit(1);
  return JSON.parse(r.stdout);
}

/** The document's text with every generated block replaced by the generators' output. */
function render(text, examples, doc) {
  return text.replace(BLOCK, (_, open, name, lang, close) => {
    const source = examples[name]?.[lang];
    if (source === undefined) fail(`${doc}: no example "${name}" in ${lang} (docs/examples/${name}.pp)`);
    return `${open}\n\`\`\`${FENCES[lang]}\n${source.trimEnd()}\n\`\`\`\n\n${close}`;
  });
}

/**
 * The program file of an example project as the generators give it: the TypeScript one formatted
 * by Prettier as `npm run lint` expects of examples/typescript/<name>/<file> (this repository's
 * settings, wherever it is written), the others as generated with one final newline.
 */
async function programText(project, examples) {
  const source = examples[project.name]?.[project.language];
  if (source === undefined)
    fail(`no example "${project.name}" in ${project.language} (docs/examples/${project.name}.pp)`);
  if (project.language !== "typescript") return `${source.trimEnd()}\n`;
  const home = path.join(REPO_ROOT, "examples", project.language, project.name, project.file);
  return prettier.format(source, { ...(await prettier.resolveConfig(home)), filepath: home });
}

/** Parses the command line: `{ check, examplesDir, files }`; exits with the usage on an unknown flag. */
function parseArgs(args) {
  const usage = "usage: gen-examples.js [--check] [--examples DIR] [FILE.md...]";
  let check = false;
  let examplesDir;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--check") check = true;
    else if (args[i] === "--examples" && i + 1 < args.length) examplesDir = path.resolve(args[++i]);
    else if (args[i].startsWith("-")) fail(usage);
    else files.push(path.resolve(args[i]));
  }
  const all = files.length === 0 && examplesDir === undefined;
  return {
    check,
    examplesDir: all ? path.join(REPO_ROOT, "examples") : examplesDir,
    files: all ? DEFAULT_DOCUMENTS : files,
  };
}

async function main() {
  const { check, examplesDir, files } = parseArgs(process.argv.slice(2));
  const examples = await generate();
  let stale = 0;
  /** Writes `next`, the generators' text of `file` (absolute), or reports it when it differs. */
  const update = (file, next) => {
    const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
    if (next === text) return;
    stale++;
    // A file of the repository by its relative path, any other by its absolute one.
    const rel = path.relative(REPO_ROOT, file);
    const shown = rel.startsWith("..") || path.isAbsolute(rel) ? file : rel;
    if (check) process.stderr.write(`gen-examples: ${shown} is stale: run npm run gen:examples\n`);
    else {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, next);
    }
  };
  for (const doc of files) {
    const rel = path.relative(REPO_ROOT, doc);
    const text = fs.readFileSync(doc, "utf8");
    const options = { ...(await prettier.resolveConfig(doc)), filepath: doc };
    update(doc, await prettier.format(render(text, examples, rel), options));
  }
  if (examplesDir !== undefined)
    for (const project of PROJECTS)
      update(
        path.join(examplesDir, project.language, project.name, project.file),
        await programText(project, examples),
      );
  if (check && stale > 0) process.exit(1);
}

if (require.main === module) main();

module.exports = { render, BLOCK, PROJECTS };
