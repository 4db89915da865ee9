#!/usr/bin/env node
// A stand-in for the GitHub CLI (`gh`) when run.js runs the workflow on this machine, keeping the
// repository's issues and comments in the JSON file $LOCAL_GH_STATE instead of on GitHub:
//   - `gh issue list | create | edit | close` (the nightly jobs' issue);
//   - `gh api repos/<owner>/<repo>/issues/<n>/comments` (GET, or POST with `-F body=@file`) and
//     `gh api --method PATCH repos/<owner>/<repo>/issues/comments/<id> -F body=@file` (the pull
//     request's preview comment), answering with GitHub's JSON (`id`, `body`, …).
// `--jq` is applied with the real jq; `--paginate` is accepted (one page holds everything).
"use strict";

const { execFileSync } = require("child_process");
const fs = require("fs");

const file = process.env.LOCAL_GH_STATE;
const state = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : { issues: [], comments: [] };
const { issues, comments } = state;
const save = () => fs.writeFileSync(file, JSON.stringify(state, null, 2));
const [group, command, ...rest] = process.argv.slice(2);
const args = [command, ...rest];
const flag = (name, list = rest) => {
  const i = list.findIndex((a) => a === name || a.startsWith(`${name}=`));
  if (i === -1) return undefined;
  return list[i].includes("=") && list[i].startsWith("--") ? list[i].slice(name.length + 1) : list[i + 1];
};
const byNumber = (n) => issues.find((i) => i.number === Number(n));
const print = (value, jq) =>
  process.stdout.write(
    jq
      ? execFileSync("jq", ["-r", jq], { input: JSON.stringify(value), encoding: "utf8" })
      : `${JSON.stringify(value)}\n`,
  );

/** `gh api <endpoint> [--method M] [-F key=value|key=@file]... [--jq q] [--paginate]`. */
function api() {
  const fields = {};
  let endpoint;
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i];
    if (a === "-F" || a === "--field" || a === "-f" || a === "--raw-field") {
      const [key, ...v] = args[++i].split("=");
      const value = v.join("=");
      fields[key] = value.startsWith("@") ? fs.readFileSync(value.slice(1), "utf8") : value;
    } else if (a === "--method" || a === "-X" || a === "--jq" || a === "-q") i += 1;
    else if (!a.startsWith("-")) endpoint = a;
  }
  const method = (
    flag("--method", args) ??
    flag("-X", args) ??
    (Object.keys(fields).length ? "POST" : "GET")
  ).toUpperCase();
  const jq = flag("--jq", args) ?? flag("-q", args);
  let m = /^repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(endpoint);
  if (m && method === "GET")
    return print(
      comments.filter((c) => c.issue_number === Number(m[1])),
      jq,
    );
  if (m && method === "POST") {
    const comment = { id: 9000 + comments.length + 1, issue_number: Number(m[1]), body: fields.body };
    comments.push(comment);
    save();
    return print(comment, jq);
  }
  m = /^repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(endpoint);
  if (m && method === "PATCH") {
    const comment = comments.find((c) => c.id === Number(m[1]));
    if (!comment) throw new Error(`local gh: no comment ${m[1]} (HTTP 404)`);
    comment.body = fields.body;
    save();
    return print(comment, jq);
  }
  throw new Error(`local gh: unsupported "gh api ${method} ${endpoint}"`);
}

if (group === "api") api();
else if (group !== "issue")
  throw new Error(`local gh: only "gh issue …" and "gh api …" are supported, got ${group}`);
else if (command === "list") {
  const open = issues
    .filter((i) => i.state === (flag("--state") ?? "open"))
    .map(({ number, title }) => ({ number, title }));
  print(open, flag("--jq"));
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
