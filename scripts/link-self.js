#!/usr/bin/env node
// Links this package into its own node_modules (node_modules/pulumi-service -> ..), as
// `npm install pulumi-service` would for a user. The examples import the package by its name,
// and the dynamic providers load their implementation by package name in the provider
// process, which resolves modules from the program's folder upwards. Run by `prepare`, and
// again by `pretest`, `predemo` and `bench` (`npm install <pkg>` prunes the link).
"use strict";
const fs = require("fs");
const path = require("path");

const root = path.resolve(__dirname, "..");
const { name } = require(path.join(root, "package.json"));
const link = path.join(root, "node_modules", name);
fs.mkdirSync(path.dirname(link), { recursive: true });
try {
  const st = fs.lstatSync(link);
  if (st.isSymbolicLink() && fs.realpathSync(link) === root) process.exit(0);
  fs.rmSync(link, { recursive: true, force: true });
} catch {
  // absent: create it below
}
fs.symlinkSync(path.relative(path.dirname(link), root), link, "dir");
