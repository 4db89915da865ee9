/**
 * Throughput of the emulator: autocannon against
 * the compiled command line (`packages/emulator/dist/cli.js`) on a file-backed store, in its own process
 * so that the load generator does not share the server's event loop.
 *
 * - As a script, after `npm run build`: `node dist/bench/emulator.js [--connections 32]
 *   [--duration 10]` loads `GET /event_subscriptions/{id}` and prints one line of JSON: requests
 *   per second (average), latency p50/p99 in milliseconds, and the counts of non-2xx responses
 *   and errors.
 * - As a module (bench/run.ts): {@link benchEmulator} loads `GET /event_subscriptions/{id}`,
 *   `POST /event_subscriptions` and a 100-item list page, each on a fresh emulator, several
 *   runs; {@link spawnEmulatorProcess} is shared with the client benchmark.
 *
 * @packageDocumentation
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { summarize, type Summary } from "./stats";

/** The part of autocannon's result this module reads. */
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
  method?: string;
  body?: string;
  headers: Record<string, string>;
}) => Promise<AutocannonResult>;

// autocannon ships without type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require("autocannon") as Autocannon;

/** The compiled command line of the emulator (the `service-emulator` package's bin). */
export const EMULATOR_CLI = path.join(
  path.dirname(require.resolve("service-emulator/package.json")),
  "dist",
  "cli.js",
);

/** An emulator running as a child process with a file-backed (WAL) store of its own. */
export interface EmulatorProcess {
  /** Listening URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** The authorized API key. */
  apiKey: string;
  /** Stops it (SIGTERM) and deletes its data folder. */
  stop(): Promise<void>;
}

/**
 * Starts `node packages/emulator/dist/cli.js --port 0 --data <tmp>/data.db --api-key <key>` and waits
 * for its first line. With `store: "memory"`, `--data :memory:` instead: no file writes (of the
 * request log, say) whose timing would land on some requests and not others.
 * @throws Error when the CLI is not built or exits before printing its address.
 */
export async function spawnEmulatorProcess(
  opts: { store?: "file" | "memory" } = {},
): Promise<EmulatorProcess> {
  if (!existsSync(EMULATOR_CLI)) throw new Error(`${EMULATOR_CLI} is missing: run npm run build first`);
  const dir = mkdtempSync(path.join(tmpdir(), "emulator-bench-"));
  const apiKey = "bench-key";
  const data = opts.store === "memory" ? ":memory:" : path.join(dir, "data.db");
  const child = spawn(process.execPath, [EMULATOR_CLI, "--port", "0", "--data", data, "--api-key", apiKey], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Kept for the error message only: the emulator's stop notice would clutter the report.
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise((r) => child.once("exit", r));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (d: Buffer) => {
        out += d.toString();
        const i = out.indexOf("\n");
        if (i >= 0) resolve((JSON.parse(out.slice(0, i)) as { url: string }).url);
      });
      child.once("exit", (code) => reject(new Error(`emulator exited with ${code}: ${stderr}`)));
    });
    return { url, apiKey, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** Headers of an API call with a JSON body. */
export function apiHeaders(apiKey: string): Record<string, string> {
  return { authorization: `Bearer ${apiKey}`, "service-version": "2", "content-type": "application/json" };
}

/** A subscription body of the benchmarks (two sources, one destination). */
export function subscriptionBody(destinationId: string, i = 0): Record<string, unknown> {
  return {
    description: `bench ${i}`,
    sources: [{ type: "ip_policy_created.v0" }, { type: "domain_updated.v0" }],
    destination_ids: [destinationId],
  };
}

/**
 * Creates one destination and `subscriptions` subscriptions (at least one) over HTTP.
 * @returns the destination's ID and the first subscription's ID.
 * @throws Error when a create does not answer 201.
 */
export async function seed(
  url: string,
  apiKey: string,
  subscriptions = 1,
): Promise<{ destinationId: string; subscriptionId: string }> {
  const headers = apiHeaders(apiKey);
  const post = async (p: string, body: unknown) => {
    const res = await fetch(url + p, { method: "POST", headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: string };
  };
  const dest = await post("/event_destinations", {
    target: { kinesis: { auth: { role: { role_arn: "arn:r" } }, stream_arn: "arn:s" } },
  });
  let first = "";
  for (let i = 0; i < Math.max(1, subscriptions); i++) {
    const sub = await post("/event_subscriptions", subscriptionBody(dest.id, i));
    if (i === 0) first = sub.id;
  }
  return { destinationId: dest.id, subscriptionId: first };
}

/** The endpoints of benchmark 4. */
export type Endpoint = "get" | "post" | "list";

/** Labels of {@link Endpoint}s as printed. */
export const ENDPOINT_LABELS: Record<Endpoint, string> = {
  get: "GET /event_subscriptions/{id}",
  post: "POST /event_subscriptions",
  list: "GET /event_subscriptions?limit=100 (100 items)",
};

/** One autocannon run. */
export interface LoadRun {
  /** Average of autocannon's per-second request counts. */
  requestsPerSecond: number;
  /** Requests completed in the run. */
  totalRequests: number;
  /** Latency in milliseconds (autocannon's, whole milliseconds for the percentiles). */
  latencyMs: { average: number; p50: number; p99: number };
  /** Responses whose status was not 2xx. */
  non2xx: number;
  /** Connection errors. */
  errors: number;
  /** Requests that timed out. */
  timeouts: number;
}

/**
 * Loads one endpoint of a fresh emulator process (seeded with a destination and one
 * subscription, or 100 for `list`) with autocannon.
 * @throws Error when seeding fails or the list page does not hold 100 items.
 */
export async function loadOnce(endpoint: Endpoint, connections: number, duration: number): Promise<LoadRun> {
  const emu = await spawnEmulatorProcess();
  try {
    const { destinationId, subscriptionId } = await seed(emu.url, emu.apiKey, endpoint === "list" ? 100 : 1);
    const { "content-type": _ct, ...getHeaders } = apiHeaders(emu.apiKey);
    const target =
      endpoint === "get"
        ? { url: `${emu.url}/event_subscriptions/${subscriptionId}`, headers: getHeaders }
        : endpoint === "list"
          ? { url: `${emu.url}/event_subscriptions?limit=100`, headers: getHeaders }
          : {
              url: `${emu.url}/event_subscriptions`,
              method: "POST",
              body: JSON.stringify(subscriptionBody(destinationId)),
              headers: apiHeaders(emu.apiKey),
            };
    if (endpoint === "list") {
      const page = (await (await fetch(target.url, { headers: getHeaders })).json()) as {
        event_subscriptions: unknown[];
      };
      if (page.event_subscriptions.length !== 100) {
        throw new Error(`list page holds ${page.event_subscriptions.length} items, expected 100`);
      }
    }
    const result = await autocannon({ ...target, connections, duration });
    return {
      requestsPerSecond: result.requests.average,
      totalRequests: result.requests.total,
      latencyMs: { average: result.latency.average, p50: result.latency.p50, p99: result.latency.p99 },
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
    };
  } finally {
    await emu.stop();
  }
}

/** Options of {@link benchEmulator}. */
export interface EmulatorBenchOptions {
  /** autocannon connections (32). */
  connections: number;
  /** Seconds of each autocannon run (10). */
  duration: number;
  /** Runs of each endpoint. */
  runs: number;
  /** Progress lines (to stderr). */
  log: (line: string) => void;
}

/** Results of one endpoint over the runs. */
export interface EndpointResult {
  /** Which endpoint. */
  endpoint: Endpoint;
  /** The endpoint as printed, e.g. `GET /event_subscriptions/{id}`. */
  label: string;
  /** Requests per second. */
  requestsPerSecond: Summary;
  /** Median latency, ms. */
  p50Ms: Summary;
  /** 99th-percentile latency, ms. */
  p99Ms: Summary;
  /** Requests that failed at the connection level or timed out, over every run. */
  errors: number;
}

/** Results of {@link benchEmulator}. */
export interface EmulatorResults {
  /** autocannon connections. */
  connections: number;
  /** Seconds of each autocannon run. */
  durationSeconds: number;
  /** The emulator's store and process, as printed. */
  store: string;
  /** GET, POST and list, in that order. */
  endpoints: EndpointResult[];
}

/**
 * Runs benchmark 4: every endpoint `runs` times (interleaved), each on a fresh emulator.
 * @throws Error when any response is not 2xx.
 */
export async function benchEmulator(opts: EmulatorBenchOptions): Promise<EmulatorResults> {
  const endpoints: Endpoint[] = ["get", "post", "list"];
  const runs = new Map<Endpoint, LoadRun[]>(endpoints.map((e) => [e, []]));
  for (let run = 0; run < opts.runs; run++) {
    for (const e of endpoints) {
      const r = await loadOnce(e, opts.connections, opts.duration);
      // A wrong request would measure an error path, not the endpoint.
      if (r.non2xx > 0) throw new Error(`${ENDPOINT_LABELS[e]}: ${r.non2xx} responses were not 2xx`);
      runs.get(e)!.push(r);
      opts.log(
        `emulator: run ${run + 1}/${opts.runs} ${ENDPOINT_LABELS[e]}: ${Math.round(r.requestsPerSecond)} req/s, ` +
          `p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms`,
      );
    }
  }
  return {
    connections: opts.connections,
    durationSeconds: opts.duration,
    store: "file (SQLite WAL), CLI child process",
    endpoints: endpoints.map((e) => {
      const rs = runs.get(e)!;
      return {
        endpoint: e,
        label: ENDPOINT_LABELS[e],
        requestsPerSecond: summarize(rs.map((r) => r.requestsPerSecond)),
        p50Ms: summarize(rs.map((r) => r.latencyMs.p50)),
        p99Ms: summarize(rs.map((r) => r.latencyMs.p99)),
        errors: rs.reduce((s, r) => s + r.errors + r.timeouts, 0),
      };
    }),
  };
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

async function main(): Promise<void> {
  const connections = arg("connections", 32);
  const duration = arg("duration", 10);
  const r = await loadOnce("get", connections, duration);
  process.stdout.write(
    JSON.stringify({
      endpoint: ENDPOINT_LABELS.get,
      store: "file (WAL)",
      connections,
      durationSeconds: duration,
      ...r,
    }) + "\n",
  );
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
