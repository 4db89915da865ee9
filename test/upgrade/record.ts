/**
 * Records the fixtures of the upgrade tests for one release: deploys test/upgrade/program through
 * both doors with the code of a git worktree of that release, against the emulator of that same
 * worktree, and writes into `--out`:
 *
 * - `dynamic.json`, `native.json`: `pulumi stack export` of each stack (no `--show-secrets`: the
 *   secrets stay encrypted with the passphrase {@link RECORDING.passphrase});
 * - `dynamic.config.yaml`, `native.config.yaml`: each stack's `Pulumi.<stack>.yaml` (its
 *   encryption salt and secret config, encrypted alike);
 * - `service.json`: what the emulator held ({@link RecordedService}): its SQLite tables as rows
 *   with the schema that made them, and the resources as the API answered them.
 *
 * Run from the checkout of today (so that the Pulumi CLI is the repository's):
 *
 *     git worktree add /tmp/upgrade-<commit> <commit>
 *     (cd /tmp/upgrade-<commit> && npm ci && npm run build)
 *     npx ts-node --transpile-only test/upgrade/record.ts --worktree /tmp/upgrade-<commit> --out test/upgrade/<version>
 *     npx prettier --write test/upgrade/<version>
 *
 * The program is copied into the worktree at the same path, so that its `pulumi-service` (the
 * worktree's workspace link) and its plugin path (`../../../bin`) are the release's.
 */
import { execFileSync, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import Database from "better-sqlite3";
import { findPulumi, pulumiEnv, REPO_ROOT } from "../../scripts/pulumi-env";
import { DOORS, RECORDING, type RecordedService } from "../helpers/upgrade";

const PROGRAM = path.join(REPO_ROOT, "test", "upgrade", "program");

function arg(name: string): string {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0 || !process.argv[i + 1]) throw new Error(`usage: record.ts --worktree <dir> --out <dir>`);
  return path.resolve(process.argv[i + 1]);
}

/** The worktree's emulator (its compiled command line) on a free port with the given data file. */
async function startOldEmulator(worktree: string, data: string) {
  const child = spawn(
    process.execPath,
    [
      path.join(worktree, "packages/emulator/dist/cli.js"),
      "--port",
      "0",
      "--data",
      data,
      "--api-key",
      RECORDING.apiKey,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`the emulator exited (${code}) before its address`)));
  });
  const url = (JSON.parse(line) as { url: string }).url;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The collection of each resource type of either door, by the type token's last part. */
const COLLECTIONS = {
  EventDestination: "event_destinations",
  EventSubscription: "event_subscriptions",
  AbuseReport: "abuse_reports",
} as const;

/**
 * Each resource of the exported states as the API answers `GET /<collection>/<id>` (abuse reports
 * have no list), by collection, in the states' order.
 */
async function wireOf(baseUrl: string, exports: string[]): Promise<RecordedService["wire"]> {
  const wire: RecordedService["wire"] = {
    event_destinations: [],
    event_subscriptions: [],
    abuse_reports: [],
  };
  for (const text of exports) {
    const resources = (JSON.parse(text) as { deployment: { resources?: { type: string; id?: string }[] } })
      .deployment.resources;
    for (const r of resources ?? []) {
      const kind = r.type.split(":").pop() as keyof typeof COLLECTIONS;
      const collection = COLLECTIONS[kind];
      if (!collection || !r.id) continue;
      const res = await fetch(`${baseUrl}/${collection}/${r.id}`, {
        headers: { authorization: `Bearer ${RECORDING.apiKey}`, "service-version": "2" },
      });
      if (!res.ok) throw new Error(`GET ${collection}/${r.id}: ${res.status} ${await res.text()}`);
      wire[collection].push((await res.json()) as Record<string, unknown>);
    }
  }
  return wire;
}

/**
 * The SQLite file as its schema statements and the rows of every table but the request log, each
 * table's rows sorted by their JSON (some tables have no rowid to order by).
 */
function dumpDatabase(file: string): Pick<RecordedService, "schema" | "tables"> {
  const db = new Database(file, { readonly: true });
  try {
    const objects = db
      .prepare("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
      .all() as { type: string; name: string; sql: string }[];
    // SQLite's own tables (sqlite_sequence of AUTOINCREMENT) are made by the statements of ours.
    const ours = objects.filter((o) => !o.name.startsWith("sqlite_"));
    const tables: Record<string, Record<string, unknown>[]> = {};
    for (const o of ours) {
      if (o.type !== "table" || o.name === "request_log") continue;
      const rows = db.prepare(`SELECT * FROM "${o.name}"`).all() as Record<string, unknown>[];
      tables[o.name] = rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    }
    return { schema: ours.map((o) => o.sql), tables };
  } finally {
    db.close();
  }
}

async function main(): Promise<void> {
  const worktree = arg("worktree");
  const out = arg("out");
  const found = findPulumi();
  if (!found) throw new Error("No Pulumi CLI: run `node scripts/ensure-pulumi.js` first.");
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: worktree, encoding: "utf8" }).trim();
  const version = (
    JSON.parse(fs.readFileSync(path.join(worktree, "package.json"), "utf8")) as { version: string }
  ).version;

  const program = path.join(worktree, "test", "upgrade", "program");
  fs.mkdirSync(program, { recursive: true });
  for (const f of ["Pulumi.yaml", "index.ts"]) fs.copyFileSync(path.join(PROGRAM, f), path.join(program, f));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "upgrade-record-"));
  const data = path.join(tmp, "service.db");
  const emulator = await startOldEmulator(worktree, data);
  fs.mkdirSync(out, { recursive: true });
  try {
    for (const door of DOORS) {
      const backend = path.join(tmp, `backend-${door}`);
      fs.mkdirSync(backend);
      const env = {
        ...pulumiEnv(found, { ...process.env, PULUMI_BACKEND_URL: `file://${backend}` }),
        PULUMI_CONFIG_PASSPHRASE: RECORDING.passphrase,
      };
      const pulumi = (...args: string[]) =>
        execFileSync("pulumi", args, {
          cwd: program,
          env,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "inherit"],
        });
      fs.rmSync(path.join(program, `Pulumi.${door}.yaml`), { force: true });
      pulumi("stack", "init", door);
      pulumi("config", "set", "service:baseUrl", emulator.url);
      pulumi("config", "set", "--secret", "service:apiKey", RECORDING.apiKey);
      for (const [key, value] of Object.entries(RECORDING.programSecrets))
        pulumi("config", "set", "--secret", key, value);
      process.stderr.write(pulumi("up", "--yes", "--skip-preview"));
      fs.writeFileSync(path.join(out, `${door}.json`), pulumi("stack", "export"));
      fs.copyFileSync(path.join(program, `Pulumi.${door}.yaml`), path.join(out, `${door}.config.yaml`));
    }
    const wire = await wireOf(
      emulator.url,
      DOORS.map((door) => fs.readFileSync(path.join(out, `${door}.json`), "utf8")),
    );
    await emulator.stop();
    const service: RecordedService = {
      recorded: {
        version,
        commit,
        date: new Date().toISOString(),
        pulumi: found.version,
        baseUrl: emulator.url,
      },
      ...dumpDatabase(data),
      wire,
    };
    fs.writeFileSync(path.join(out, "service.json"), JSON.stringify(service, null, 2) + "\n");
  } finally {
    await emulator.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  process.stderr.write(`recorded ${version} (${commit}) into ${out}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
