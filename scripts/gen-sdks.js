#!/usr/bin/env node
// Regenerates the SDKs of the native provider from its Pulumi package schema with Pulumi's own
// code generators: Node.js into sdk/nodejs, Python into sdk/python, Go into sdk/go
// (`npm run gen:sdks`). The output is generated, never edited by hand: change the schema
// (provider/native/schema.json, itself generated from the contract) and run this again.
//
// The generators are those of github.com/pulumi/pulumi/pkg/v3 at the oldest supported release
// (OLDEST_PULUMI_VERSION of pulumi-env.js, the floor of the SDKs' `@pulumi/pulumi` range), called
// by tools/pulumi-oldest/pulumi-gen-sdks (a Go program of that module). Not the engine's newer
// release: what a generator writes calls its own release's SDK (3.274's Node.js SDK code calls
// `pulumi.runtime.existsResource`, which 3.248 lacks), and the SDKs must run on the oldest SDK they
// accept. The program is built once into the user's cache,
// `~/.cache/pulumi-service/pulumi-gen-sdks-v<release>-<hash>/` (the hash is taken over its
// source and the module's go.mod/go.sum, so an edit builds it again, and the earlier build is
// removed), like ensure-pulumi.js builds the CLI. That needs Go 1.26+; without it the script stops with a clear error.
//
// The Go SDK's go.sum is then written by `go mod tidy` (from the Go module proxy, or the module
// cache).
//
// Usage: node scripts/gen-sdks.js [--schema FILE] [--out DIR] [--languages nodejs,python,go]
// Prints one line per language (files and bytes written) and the time taken to stderr.
// Exit 1 when the schema binder reports any diagnostic (they are printed) or a build fails.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawnSync } = require("child_process");
const { OLDEST_MODULE, OLDEST_PULUMI_VERSION, REPO_ROOT, cacheBinDir, findOnPath } = require("./pulumi-env");
const { goBuild } = require("./ensure-pulumi");

const GENERATOR_PACKAGE = "pulumi-gen-sdks";
const DEFAULT_SCHEMA = path.join(REPO_ROOT, "provider", "native", "schema.json");
const DEFAULT_OUT = path.join(REPO_ROOT, "sdk");
const LANGUAGES = ["nodejs", "python", "go"];

function fail(msg) {
  process.stderr.write(`gen-sdks: ${msg}\n`);
  process.exit(1);
}

/**
 * The cached path of the Go program `name` of tools/pulumi-oldest (this script's generator, or
 * pulumi-gen-examples for gen-examples.js); the folder name changes whenever its inputs change.
 */
function generatorPath(name = GENERATOR_PACKAGE) {
  const hash = crypto.createHash("sha256");
  for (const f of [path.join(name, "main.go"), "go.mod", "go.sum"])
    hash.update(fs.readFileSync(path.join(OLDEST_MODULE, f)));
  const base = path.dirname(path.dirname(cacheBinDir()));
  const dir = `${name}-v${OLDEST_PULUMI_VERSION}-${hash.digest("hex").slice(0, 12)}`;
  return path.join(base, dir, name);
}

/** Builds the Go program `name` into the cache unless it is there; returns its path. */
async function ensureGenerator(name = GENERATOR_PACKAGE) {
  const target = generatorPath(name);
  if (fs.existsSync(target)) return target;
  if (!findOnPath("go"))
    fail(`${name} is not built (${target}) and there is no Go toolchain to build it: install Go 1.26+.`);
  const tmp = `${target}.build-${process.pid}`;
  fs.mkdirSync(path.dirname(target), { recursive: true });
  process.stderr.write(`gen-sdks: building ${name} into ${path.dirname(target)} (first time only)\n`);
  // goBuild's flags are the oldest CLI build's (ensure-pulumi.js), whose packages this reuses.
  await goBuild(["-ldflags", "-s -w", "-o", tmp, `./${name}`], name, OLDEST_MODULE);
  fs.renameSync(tmp, target);
  // Builds of earlier sources are of no further use.
  const cache = path.dirname(path.dirname(target));
  for (const dir of fs.readdirSync(cache))
    if (dir.startsWith(`${name}-v`) && dir !== path.basename(path.dirname(target)))
      fs.rmSync(path.join(cache, dir), { recursive: true, force: true });
  return target;
}

/**
 * Writes the Go SDK's go.sum (and its indirect requirements) with `go mod tidy`: the generator
 * writes go.mod alone, and a module without go.sum does not build.
 */
function tidyGoModule(dir) {
  const r = spawnSync("go", ["mod", "tidy"], {
    cwd: dir,
    env: { ...process.env, GOFLAGS: "-mod=mod" },
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  if (r.error) fail(`go mod tidy in ${dir}: ${r.error.message}`);
  if (r.status !== 0) fail(`go mod tidy in ${dir} failed:\n${r.stderr}`);
}

/** Files below dir and their total size in bytes. */
function measure(dir) {
  let files = 0;
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        files++;
        bytes += fs.statSync(p).size;
      }
    }
  };
  walk(dir);
  return { files, bytes };
}

function parseArgs(argv) {
  const opts = { schema: DEFAULT_SCHEMA, out: DEFAULT_OUT, languages: LANGUAGES };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) fail(`${flag} needs a value`);
    if (flag === "--schema") opts.schema = path.resolve(value);
    else if (flag === "--out") opts.out = path.resolve(value);
    else if (flag === "--languages") opts.languages = value.split(",");
    else fail(`unknown option ${flag} (--schema FILE, --out DIR, --languages ${LANGUAGES.join(",")})`);
  }
  for (const lang of opts.languages)
    if (!LANGUAGES.includes(lang)) fail(`--languages: unknown language "${lang}" (${LANGUAGES.join(", ")})`);
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  let generator;
  try {
    generator = await ensureGenerator();
  } catch (err) {
    fail(err.message);
  }
  const started = process.hrtime.bigint();
  const r = spawnSync(
    generator,
    ["-schema", opts.schema, "-out", opts.out, "-languages", opts.languages.join(",")],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  if (r.error) fail(r.error.message);
  if (r.status !== 0) process.exit(1);
  if (opts.languages.includes("go")) tidyGoModule(path.join(opts.out, "go"));
  const ms = Number((process.hrtime.bigint() - started) / 1000000n);
  for (const lang of opts.languages) {
    const { files, bytes } = measure(path.join(opts.out, lang));
    process.stderr.write(
      `gen-sdks: ${lang}: ${files} files, ${bytes} bytes in ${path.join(opts.out, lang)}\n`,
    );
  }
  process.stderr.write(`gen-sdks: generated in ${ms} ms\n`);
}

if (require.main === module) main();

module.exports = { generatorPath, ensureGenerator };
