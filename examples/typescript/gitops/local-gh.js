#!/usr/bin/env node
// A stand-in for the GitHub CLI (`gh`) when run.js runs the workflow on this machine: the
// `gh issue list | create | edit | close` calls of the drift job, on issues kept in the JSON
// file $LOCAL_GH_STATE instead of a GitHub repository. `--jq` is applied with the real jq.
"use strict";

const { execFileSync } = require("child_process");
const fs = require("fs");

const file = process.env.LOCAL_GH_STATE;
const issues = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : [];
const save = () => fs.writeFileSync(file, JSON.stringify(issues, null, 2));
const [group, command, ...rest] = process.argv.slice(2);
const flag = (name) => {
  const i = rest.indexOf(name);
  return i === -1 ? undefined : rest[i + 1];
};
const byNumber = (n) => issues.find((i) => i.number === Number(n));

if (group !== "issue") throw new Error(`local gh: only "gh issue …" is supported, got ${group}`);
if (command === "list") {
  const open = issues
    .filter((i) => i.state === (flag("--state") ?? "open"))
    .map(({ number, title }) => ({ number, title }));
  const json = JSON.stringify(open);
  const jq = flag("--jq");
  process.stdout.write(jq ? execFileSync("jq", ["-r", jq], { input: json, encoding: "utf8" }) : `${json}\n`);
} else if (command === "create") {
  const issue = {
    number: issues.length + 1,
    title: flag("--title"),
    state: "open",
    body: fs.readFileSync(flag("--body-file"), "utf8"),
    comments: [],
  };
  issues.push(issue);
  save();
  process.stdout.write(`https://github.invalid/issues/${issue.number}\n`);
} else if (command === "edit") {
  byNumber(rest[0]).body = fs.readFileSync(flag("--body-file"), "utf8");
  save();
} else if (command === "close") {
  const issue = byNumber(rest[0]);
  issue.state = "closed";
  if (flag("--comment")) issue.comments.push(flag("--comment"));
  save();
} else {
  throw new Error(`local gh: unsupported command "issue ${command}"`);
}
