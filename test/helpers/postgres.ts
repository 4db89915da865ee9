/**
 * The throw-away PostgreSQL server of the tests that share Pulumi state the way a team does:
 * scripts/postgres-server.ts, which the scale benchmark (bench/scale.ts) starts too; and what a
 * test reads of the state Pulumi's PostgreSQL backend keeps there.
 */
import { gunzipSync } from "node:zlib";
import { Client } from "pg";

export { findPostgresBin, startPostgres, type RunningPostgres } from "../../scripts/postgres-server";

/** Bytes as UTF-8 text, gunzipped first when they are gzip data. */
function bytesAsText(bytes: Buffer): string {
  const gzip = bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  return (gzip ? gunzipSync(bytes) : bytes).toString("utf8");
}

/**
 * A value of a row as text: a byte column as UTF-8, JSON as JSON. A JSON object's `data` string
 * (where Pulumi's PostgreSQL backend keeps a file's content, base64-encoded) is decoded too.
 */
function asText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Buffer.isBuffer(value)) return bytesAsText(value);
  if (typeof value !== "object") return String(value);
  const data = (value as { data?: unknown }).data;
  const decoded = typeof data === "string" ? `\t${bytesAsText(Buffer.from(data, "base64"))}` : "";
  return JSON.stringify(value) + decoded;
}

/**
 * Everything the database at `url` holds, as stored at rest: every row of every table of its
 * `public` schema (the tables Pulumi's PostgreSQL backend creates on first use), each value as
 * text (see asText), one line per row. A secret found here would be in the team's backend in plain form.
 * @throws Error when the database holds no table (nothing was stored: a check would read nothing).
 */
export async function readTables(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    if (tables.rows.length === 0) throw new Error(`no table in ${url}`);
    const lines: string[] = [];
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`SELECT * FROM "${table_name.replace(/"/g, '""')}"`);
      for (const row of rows.rows) lines.push(Object.values(row).map(asText).join("\t"));
    }
    return lines.join("\n");
  } finally {
    await client.end();
  }
}
