/**
 * The recorded releases of the upgrade tests (test/upgrade/<version>/, written by
 * test/upgrade/record.ts): what a release's stacks and service held, and how a test rebuilds them
 * for today's code.
 *
 * - {@link RECORDING}: the fixed API key, passphrase and program secrets every recording uses.
 * - {@link recordedVersions} / {@link loadRecording}: the recorded files of a release.
 * - {@link writeServiceDatabase}: the emulator's SQLite file as the release left it, to start
 *   today's emulator on (same accounts, IDs, creation times and secrets).
 * - {@link rewriteBaseUrl}: a recorded state or config pointed at another emulator.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";

/** test/upgrade: one folder per recorded release, named for its version. */
export const UPGRADE_DIR = path.resolve(__dirname, "../upgrade");

/** The two doors, which are also the stack names of test/upgrade/program. */
export const DOORS = ["dynamic", "native"] as const;
export type Door = (typeof DOORS)[number];

/**
 * The fixed values of every recording (documented in each release's README): the one account's
 * API key (`service:apiKey`), the passphrase of the stacks' secrets (`PULUMI_CONFIG_PASSPHRASE`)
 * and the secret config the program reads. Test values only.
 */
export const RECORDING = {
  apiKey: "key_upgrade_recorded_0123456789abcdef",
  passphrase: "upgrade-recorded-passphrase",
  programSecrets: {
    "upgrade:datadogApiKey": "dd-upgrade-recorded-key",
    "upgrade:awsSecret": "aws-upgrade-recorded-secret",
    "upgrade:azureClientSecret": "azure-upgrade-recorded-secret",
  },
} as const;

/** `service.json` of a recorded release: what its emulator held once both stacks were up. */
export interface RecordedService {
  recorded: {
    /** The package version of the recorded commit. */
    version: string;
    /** The commit deployed (40 hex digits). */
    commit: string;
    /** When it was recorded, ISO 8601. */
    date: string;
    /** The Pulumi CLI version that deployed. */
    pulumi: string;
    /** The emulator's URL during the recording: the base of every `uri` in the states. */
    baseUrl: string;
  };
  /** The `CREATE` statements of the release's data file (tables and indexes), in order. */
  schema: string[];
  /** Every table's rows but the request log's, column name to value (all TEXT or INTEGER). */
  tables: Record<string, Record<string, unknown>[]>;
  /** The resources as the API answered them (`GET /<collection>`, wire form), by collection. */
  wire: Record<"event_destinations" | "event_subscriptions" | "abuse_reports", Record<string, unknown>[]>;
}

/** One recorded release. */
export interface Recording {
  version: string;
  dir: string;
  service: RecordedService;
  /** `pulumi stack export` of each door's stack (secrets encrypted), parsed. */
  states: Record<Door, { version: number; deployment: Record<string, unknown> }>;
  /** `Pulumi.<door>.yaml` of each stack as recorded (encryption salt, secret config), as text. */
  configs: Record<Door, string>;
}

/** The versions recorded under test/upgrade/, oldest first (folders holding a service.json). */
export function recordedVersions(): string[] {
  return fs
    .readdirSync(UPGRADE_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(UPGRADE_DIR, e.name, "service.json")))
    .map((e) => e.name)
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** Reads test/upgrade/<version>/. @throws Error when a file is missing or not JSON. */
export function loadRecording(version: string): Recording {
  const dir = path.join(UPGRADE_DIR, version);
  const read = (f: string) => fs.readFileSync(path.join(dir, f), "utf8");
  return {
    version,
    dir,
    service: JSON.parse(read("service.json")) as RecordedService,
    states: Object.fromEntries(DOORS.map((d) => [d, JSON.parse(read(`${d}.json`))])) as Recording["states"],
    configs: Object.fromEntries(DOORS.map((d) => [d, read(`${d}.config.yaml`)])) as Recording["configs"],
  };
}

/**
 * Writes at `file` (which must not exist) the SQLite database the recorded emulator left: its
 * schema statements, then its rows. Today's emulator opened on it (`startEmulator({ data: file,
 * apiKeys: [RECORDING.apiKey] })`) migrates it as it would the release's own file and serves the
 * same resources under the same IDs to the same account.
 *
 * @throws Error from better-sqlite3 when a statement or row does not fit.
 */
export function writeServiceDatabase(service: RecordedService, file: string): void {
  const db = new Database(file);
  try {
    db.transaction(() => {
      for (const sql of service.schema) db.exec(sql);
      // Parents before children: the recorded schema holds the foreign keys.
      db.pragma("defer_foreign_keys = ON");
      for (const [table, rows] of Object.entries(service.tables)) {
        for (const row of rows) {
          const cols = Object.keys(row);
          db.prepare(
            `INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
          ).run(...cols.map((c) => row[c]));
        }
      }
    })();
  } finally {
    db.close();
  }
}

/**
 * A deep copy of `value` with every string starting with `from` (a recorded emulator's base URL)
 * starting with `to` instead: the provider config `service:baseUrl` and the `uri` outputs of a
 * state. What a user moving a stack to another service would not do; the tests do it because
 * their emulator listens on another port than the recording's.
 */
export function rewriteBaseUrl<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value), (_key, v: unknown) =>
    typeof v === "string" && v.startsWith(from) ? to + v.slice(from.length) : v,
  ) as T;
}
