/**
 * Throughput of the emulator for `GET /event_subscriptions/{id}` (issue 3, "Done when"):
 * autocannon with 32 connections for 10 s against the compiled command line
 * (`dist/emulator/cli.js`) on a file-backed store, in its own process so that the load generator
 * does not share the server's event loop.
 *
 * Run after `npm run build`: `node dist/bench/emulator.js [--connections 32] [--duration 10]`.
 * Prints one line of JSON: requests per second (average), latency p50/p99 in milliseconds, and
 * the counts of non-2xx responses and errors.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The part of autocannon's result this script reads. */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (opts: {
  url: string;
  connections: number;
  duration: number;
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;

// autocannon ships without type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as Autocannon;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const connections = arg("connections", 32);
  const duration = arg("duration", 10);
  const dir = mkdtempSync(path.join(tmpdir(), "emulator-bench-"));
  const key = "bench-key";
  const child = spawn(
    process.execPath,
    [
      path.resolve(__dirname, "../emulator/cli.js"),
      "--port",
      "0",
      "--data",
      path.join(dir, "data.db"),
      "--api-key",
      key,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const i = out.indexOf("\n");
        if (i >= 0) resolve((JSON.parse(out.slice(0, i)) as { url: string }).url);
      });
      child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
    });
    const headers = {
      authorization: `Bearer ${key}`,
      "service-version": "2",
      "content-type": "application/json",
    };
    const post = async (p: string, body: unknown) => {
      const res = await fetch(url + p, { method: "POST", headers, body: JSON.stringify(body) });
      if (res.status !== 201) throw new Error(`${p}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: string };
    };
    const dest = await post("/event_destinations", {
      target: { kinesis: { auth: { role: { role_arn: "arn:r" } }, stream_arn: "arn:s" } },
    });
    const sub = await post("/event_subscriptions", {
      description: "bench",
      sources: [{ type: "ip_policy_created.v0" }, { type: "domain_updated.v0" }],
      destination_ids: [dest.id],
    });
    const { "content-type": _ct, ...getHeaders } = headers;
    const result = await autocannon({
      url: `${url}/event_subscriptions/${sub.id}`,
      connections,
      duration,
      headers: getHeaders,
    });
    process.stdout.write(
      JSON.stringify({
        endpoint: "GET /event_subscriptions/{id}",
        store: "file (WAL)",
        connections,
        durationSeconds: duration,
        requestsPerSecond: result.requests.average,
        totalRequests: result.requests.total,
        latencyMs: { average: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      }) + "\n",
    );
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
