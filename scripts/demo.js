#!/usr/bin/env node
// `npm run demo [-- up|preview|refresh|destroy]`: deploys examples/typescript/quickstart-dynamic (the root
// Pulumi.yaml) to stack `dev` against a local emulator, with Pulumi's own progress output.
//
// - the engine: scripts/ensure-pulumi.js (run by `predemo`);
// - the emulator: packages/emulator/dist/cli.js on 127.0.0.1:$DEMO_PORT (default 8787), data in
//   .demo/emulator.db, so a second run finds what the first created (and `up` reports no changes);
// - the API key: $SERVICE_API_KEY, else a random one made on the first run and kept in
//   .demo/api-key (an ignored folder, never committed);
// - the state: a local file backend in .pulumi-state/, passphrase $PULUMI_CONFIG_PASSPHRASE
//   (default "local-dev-passphrase"); never the Pulumi Cloud.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { spawn, spawnSync } = require("child_process");
const readline = require("readline");
const { REPO_ROOT, findPulumi, pulumiEnv } = require("./pulumi-env");

const COMMANDS = ["up", "preview", "refresh", "destroy"];
const STACK = process.env.DEMO_STACK || "dev";
const PORT = process.env.DEMO_PORT || "8787";
const DEMO_DIR = path.join(REPO_ROOT, ".demo");

function say(msg) {
  process.stdout.write(`\n\x1b[1m» ${msg}\x1b[0m\n`);
}

function apiKey() {
  if (process.env.SERVICE_API_KEY) return process.env.SERVICE_API_KEY;
  const file = path.join(DEMO_DIR, "api-key");
  if (!fs.existsSync(file)) {
    fs.mkdirSync(DEMO_DIR, { recursive: true });
    fs.writeFileSync(file, `sk_demo_${crypto.randomBytes(18).toString("base64url")}\n`, { mode: 0o600 });
  }
  return fs.readFileSync(file, "utf8").trim();
}

/** Starts the emulator CLI and resolves with `{ url, child }` once it printed its JSON line. */
function startEmulator(key) {
  fs.mkdirSync(DEMO_DIR, { recursive: true });
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, "packages", "emulator", "dist", "cli.js"),
      "--port",
      PORT,
      "--host",
      "127.0.0.1",
      "--data",
      path.join(DEMO_DIR, "emulator.db"),
    ],
    {
      env: { ...process.env, SERVICE_EMULATOR_API_KEYS: key },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: child.stdout });
    rl.once("line", (line) => {
      try {
        resolve({ url: JSON.parse(line).url, child });
      } catch (err) {
        reject(new Error(`emulator printed something unexpected: ${line} (${err.message})`));
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`the emulator exited (code ${code}) before it was ready:\n${stderr}`)),
    );
  });
}

function pulumi(env, args, opts = {}) {
  const r = spawnSync("pulumi", args, {
    cwd: REPO_ROOT,
    env,
    stdio: opts.capture ? "pipe" : "inherit",
    encoding: "utf8",
    input: opts.input,
  });
  if (r.status !== 0 && !opts.allowFailure) {
    throw new Error(`pulumi ${args[0]} failed (exit ${r.status})${opts.capture ? `:\n${r.stderr}` : ""}`);
  }
  return r;
}

async function main() {
  const command = process.argv[2] || "up";
  if (!COMMANDS.includes(command)) {
    console.error(`usage: npm run demo [-- ${COMMANDS.join("|")}]`);
    process.exit(2);
  }
  const found = findPulumi();
  if (!found)
    throw new Error("No Pulumi CLI: run `node scripts/ensure-pulumi.js` (npm run demo does it first).");
  const env = pulumiEnv(found);
  fs.mkdirSync(path.join(REPO_ROOT, ".pulumi-state"), { recursive: true });

  const key = apiKey();
  say(`Starting the emulator on 127.0.0.1:${PORT} (data in .demo/emulator.db)`);
  const { url, child } = await startEmulator(key);
  const stop = () => child.exitCode === null && child.kill("SIGTERM");
  process.on("exit", stop);
  try {
    say(`Stack "${STACK}" on the local backend .pulumi-state/`);
    if (pulumi(env, ["stack", "select", STACK], { capture: true, allowFailure: true }).status !== 0) {
      pulumi(env, ["stack", "init", STACK, "--secrets-provider", "passphrase"]);
    }
    pulumi(env, ["config", "set", "service:baseUrl", url, "--stack", STACK]);
    // The key goes through standard input, so it never appears in a process list.
    pulumi(env, ["config", "set", "--secret", "service:apiKey", "--stack", STACK], {
      input: key,
      capture: true,
    });

    const flags = command === "preview" ? [] : ["--yes"];
    say(`pulumi ${command} ${flags.join(" ")}`.trim());
    pulumi(env, [command, ...flags, "--stack", STACK]);

    if (command !== "destroy") {
      say("Stack outputs");
      pulumi(env, ["stack", "output", "--json", "--stack", STACK]);
    }
    say("Next");
    console.log(
      [
        "  npm run demo               # again: the second `up` reports no changes",
        "  npm run demo -- refresh    # read the live resources back into the state (drift)",
        "  npm run demo -- preview    # what `up` would change",
        "  npm run demo -- destroy    # delete subscriptions and destinations (abuse reports stay)",
        "  npm run emulator           # the emulator alone, to poke at it with curl",
      ].join("\n"),
    );
  } finally {
    stop();
  }
}

main().catch((err) => {
  console.error(`demo: ${err.message}`);
  process.exit(1);
});
