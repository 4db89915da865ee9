#!/usr/bin/env node
// `node scripts/check-release.js <tag>` (the release workflow's first step): the five packages
// (pulumi-service, service-cli-kit, service-contract, service-emulator, service-policy) are at one version, that
// version is the tag's (`v0.2.0` → 0.2.0), and each pins the others at exactly that version.
// Prints one line and exits 0, or prints what differs on stderr and exits 1.
"use strict";

const fs = require("fs");
const path = require("path");

const ROOT = path.resolve(__dirname, "..");
const PACKAGES = {
  "pulumi-service": ".",
  "service-cli-kit": "packages/cli",
  "service-contract": "packages/contract",
  "service-emulator": "packages/emulator",
  "service-policy": "packages/policy",
};

/**
 * The problems with releasing `tag` (`v<major>.<minor>.<patch>`): packages not at its version,
 * or pinning each other at another.
 * @returns {string[]} one line per problem; empty when the packages may be released.
 */
function check(tag) {
  const problems = [];
  if (!/^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(tag ?? "")) {
    return [`the tag ${JSON.stringify(tag ?? "")} is not v<major>.<minor>.<patch>`];
  }
  const version = tag.slice(1);
  for (const [name, dir] of Object.entries(PACKAGES)) {
    const m = JSON.parse(fs.readFileSync(path.join(ROOT, dir, "package.json"), "utf8"));
    if (m.name !== name) problems.push(`${dir}/package.json is named ${m.name}, not ${name}`);
    if (m.version !== version) problems.push(`${name} is at ${m.version}, the tag says ${version}`);
    for (const deps of [m.dependencies ?? {}, m.devDependencies ?? {}]) {
      for (const other of Object.keys(PACKAGES)) {
        if (deps[other] !== undefined && deps[other] !== version)
          problems.push(`${name} depends on ${other} ${deps[other]}, not ${version}`);
      }
    }
  }
  return problems;
}

module.exports = { PACKAGES, check };

if (require.main === module) {
  const tag = process.argv[2];
  const problems = check(tag);
  if (problems.length > 0) {
    process.stderr.write(`release check failed:\n${problems.map((p) => `  ${p}\n`).join("")}`);
    process.exit(1);
  }
  process.stdout.write(`release ${tag}: ${Object.keys(PACKAGES).join(", ")} at ${tag.slice(1)}\n`);
}
