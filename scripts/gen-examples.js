#!/usr/bin/env node
// Regenerates the TypeScript, Python and Go versions of the docs' examples from their one
// source each, a PCL program in docs/examples/<name>.pp (`npm run gen:examples`), with Pulumi's
// own program generators (tools/pulumi/pulumi-gen-examples, built into the user's cache
// like pulumi-gen-sdks, see gen-sdks.js) over the native provider's schema.
//
// Each generated block sits in a Markdown file between
//   <!-- generated from docs/examples/<name>.pp: <language> (npm run gen:examples) -->
//   <!-- end of generated block -->
// (language: typescript, python or go); the script rewrites what is between them as a fenced
// block, then formats the file with Prettier as `npm run lint` expects (which lays out the
// TypeScript blocks; Python and Go are left as their generators format them).
//
// Usage: node scripts/gen-examples.js [--check] [FILE.md...]   (default: docs/resources.md and docs/_index.md)
// --check writes nothing and exits 1, naming each stale file, when a file differs from what
// the generators give. Exit 1 also when a marker names an unknown example or language, or the
// generator fails (its diagnostics are printed).
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
];
/** The Node.js SDK ships in the package pulumi-service (exports "./native"). */
const NODEJS_PACKAGE = "pulumi-service/native";
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

async function main() {
  const args = process.argv.slice(2);
  const check = args[0] === "--check";
  const files = args.slice(check ? 1 : 0);
  if (files.some((f) => f.startsWith("-"))) fail("usage: gen-examples.js [--check] [FILE.md...]");
  const examples = await generate();
  let stale = 0;
  for (const doc of files.length > 0 ? files.map((f) => path.resolve(f)) : DEFAULT_DOCUMENTS) {
    const rel = path.relative(REPO_ROOT, doc);
    const text = fs.readFileSync(doc, "utf8");
    const options = { ...(await prettier.resolveConfig(doc)), filepath: doc };
    const next = await prettier.format(render(text, examples, rel), options);
    if (next === text) continue;
    stale++;
    // A file of the repository by its relative path, any other by its absolute one.
    const shown = rel.startsWith("..") || path.isAbsolute(rel) ? doc : rel;
    if (check) process.stderr.write(`gen-examples: ${shown} is stale: run npm run gen:examples\n`);
    else fs.writeFileSync(doc, next);
  }
  if (check && stale > 0) process.exit(1);
}

if (require.main === module) main();

module.exports = { render, BLOCK };
