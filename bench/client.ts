/**
 * Overhead of the typed client: 2,000 sequential GETs and 2,000 GETs at
 * concurrency 32 of one subscription (`GET /event_subscriptions/{id}`) through `ServiceClient`,
 * timed against a bare undici `Pool` loop making the same requests (same headers; it reads the
 * body and `JSON.parse`s it, but does no case mapping, no zod parsing, no retry bookkeeping) in
 * the same run. Each figure is the median of `rounds` runs; within a run, bare and client take
 * turns batch by batch (100 GETs sequentially, 500 at concurrency 32), each going first in
 * turn; ratios are client time / bare time (1.00 = no overhead).
 *
 * Run: `npx ts-node --transpile-only bench/client.ts` or, after `npm run build`,
 * `node dist/bench/client.js`. Against a running service set `SERVICE_BASE_URL` and
 * `SERVICE_API_KEY`; otherwise an emulator is started in a child process (the compiled CLI
 * when built, else in this process). Prints one line of JSON, then a table on stderr.
 */
import { existsSync } from "node:fs";
import { Pool } from "undici";
import { SDK_VERSION, SERVICE_VERSION, ServiceClient } from "../client";
import { type Summary, summarize } from "./stats";

/** One mode (sequential or concurrent) of this benchmark. */
export interface ClientModeResult {
  /** 1 (sequential) or the concurrency. */
  concurrency: number;
  /** Wall time of the GETs through `ServiceClient`, ms. */
  clientMs: Summary;
  /** Wall time of the same GETs through a bare undici pool, ms. */
  undiciMs: Summary;
  /** client / undici, computed within each run. */
  ratio: Summary;
}

/** The client benchmark's figures (bench/client.ts), per run paired. */
export interface ClientResults {
  /** GETs per measurement. */
  requests: number;
  /** Sequential, then concurrent. */
  modes: ClientModeResult[];
}

/** Options of {@link benchClient}. */
export interface ClientBenchOptions {
  baseUrl: string;
  apiKey: string;
  /** GETs per measurement; default 2000. */
  requests?: number;
  /** Concurrent workers of the concurrent measurement; default 32. */
  concurrency?: number;
  /** Repetitions of each measurement (the median is reported); default 5. */
  rounds?: number;
}

/** One comparison: milliseconds of the bare loop and of the client, and client / bare. */
export interface Comparison {
  bareMs: Summary;
  clientMs: Summary;
  /** Median client time / median bare time. */
  ratio: number;
  /** Client requests per second (median run). */
  clientRps: number;
}

/** Result of {@link benchClient}. */
export interface ClientBenchResult {
  requests: number;
  concurrency: number;
  rounds: number;
  sequential: Comparison;
  concurrent: Comparison;
}

/** Batches of a sequential measurement (100 GETs each of 2,000): see {@link benchClient}. */
const SEQUENTIAL_BATCHES = 20;
/** Batches of a concurrent one (500 GETs each of 2,000, so that 32 workers stay busy). */
const CONCURRENT_BATCHES = 4;

async function timed(n: number, concurrency: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await one();
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/**
 * Measures the client against a bare undici loop on the given service.
 * @throws Error when a bare request does not answer 200, or anything the client throws.
 */
export async function benchClient(opts: ClientBenchOptions): Promise<ClientBenchResult> {
  const n = opts.requests ?? 2000;
  const concurrency = opts.concurrency ?? 32;
  const rounds = opts.rounds ?? 5;
  const client = new ServiceClient({ apiKey: opts.apiKey, baseUrl: opts.baseUrl });
  const url = new URL(opts.baseUrl);
  const pool = new Pool(url.origin);
  try {
    const ed = await client.eventDestinations.create({
      target: { kinesis: { auth: { role: { roleArn: "arn:r" } }, streamArn: "arn:s" } },
    });
    const sub = await client.eventSubscriptions.create({
      description: "bench",
      sources: [{ type: "ip_policy_created.v0" }, { type: "domain_updated.v0" }],
      destinationIds: [ed.id],
    });
    const subPath = `${url.pathname.replace(/\/+$/, "")}/event_subscriptions/${sub.id}`;
    // The headers the client sends on a GET.
    const headers = {
      authorization: `Bearer ${opts.apiKey}`,
      "service-version": SERVICE_VERSION,
      "user-agent": `pulumi-service-sdk/${SDK_VERSION} node/${process.version}`,
      accept: "application/json",
    };
    const bare = async () => {
      const res = await pool.request({ path: subPath, method: "GET", headers });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`bare GET answered ${res.statusCode}`);
      JSON.parse(text);
    };
    const typed = async () => {
      await client.eventSubscriptions.get(sub.id);
    };
    // Warm up connections and JIT on both paths.
    await timed(200, concurrency, bare);
    await timed(200, concurrency, typed);

    const compare = async (c: number): Promise<Comparison> => {
      const bareMs: number[] = [];
      const clientMs: number[] = [];
      // Each round's n GETs of each side run in batches, bare and client taking turns batch
      // by batch and going first in turn, so that both meet the same machine: on a shared
      // 2-core machine, how fast one request follows another drifts within a fraction of a
      // second, more than the client's own cost.
      const batches = c === 1 ? SEQUENTIAL_BATCHES : CONCURRENT_BATCHES;
      for (let r = 0; r < rounds; r++) {
        let b = 0;
        let t = 0;
        for (let i = 0; i < batches; i++) {
          const size = Math.floor(n / batches) + (i < n % batches ? 1 : 0);
          if ((r + i) % 2 === 0) {
            b += await timed(size, c, bare);
            t += await timed(size, c, typed);
          } else {
            t += await timed(size, c, typed);
            b += await timed(size, c, bare);
          }
        }
        bareMs.push(b);
        clientMs.push(t);
      }
      const b = summarize(bareMs);
      const t = summarize(clientMs);
      return { bareMs: b, clientMs: t, ratio: t.median / b.median, clientRps: (n / t.median) * 1000 };
    };
    const sequential = await compare(1);
    const concurrent = await compare(concurrency);

    await client.eventSubscriptions.delete(sub.id);
    await client.eventDestinations.delete(ed.id);
    return { requests: n, concurrency, rounds, sequential, concurrent };
  } finally {
    await pool.close();
    await client.close();
  }
}

/**
 * Starts an emulator for the benchmark: the compiled CLI in a child process, in memory, when
 * built ({@link spawnEmulatorProcess}); otherwise in this process.
 */
async function startService(): Promise<{
  baseUrl: string;
  apiKey: string;
  where: string;
  stop: () => Promise<void>;
}> {
  // Loaded only here: the emulator benchmark's module loads autocannon.
  const { EMULATOR_CLI, spawnEmulatorProcess } = await import("./emulator");
  if (!existsSync(EMULATOR_CLI)) {
    const apiKey = "bench-client-key";
    const { startEmulator } = await import("service-emulator");
    const emu = await startEmulator({ apiKeys: [apiKey] });
    return { baseUrl: emu.url, apiKey, where: "in process", stop: () => emu.close() };
  }
  const emu = await spawnEmulatorProcess({ store: "memory" });
  return { baseUrl: emu.url, apiKey: emu.apiKey, where: "child process", stop: emu.stop };
}

async function main(): Promise<void> {
  const fromEnv = process.env.SERVICE_BASE_URL && process.env.SERVICE_API_KEY;
  const service = fromEnv
    ? {
        baseUrl: process.env.SERVICE_BASE_URL!,
        apiKey: process.env.SERVICE_API_KEY!,
        where: "given",
        stop: async () => {},
      }
    : await startService();
  try {
    const result = await benchClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    process.stdout.write(`${JSON.stringify({ service: service.where, ...result })}\n`);
    const row = (name: string, c: Comparison) =>
      `${name.padEnd(16)} bare ${c.bareMs.median.toFixed(0).padStart(6)} ms   client ${c.clientMs.median
        .toFixed(0)
        .padStart(6)} ms   ratio ${c.ratio.toFixed(2)}   client ${c.clientRps.toFixed(0)} req/s\n`;
    process.stderr.write(
      `${result.requests} GETs, median of ${result.rounds} rounds, service ${service.where}\n` +
        row("sequential", result.sequential) +
        row(`concurrency ${result.concurrency}`, result.concurrent),
    );
  } finally {
    await service.stop();
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
