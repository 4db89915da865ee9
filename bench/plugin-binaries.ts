/**
 * The native plugin as a self-contained executable (scripts/build-plugin-binaries.js) against
 * the launcher `bin/pulumi-resource-service` (Node.js on PATH, dist/ and node_modules), in the
 * same run: the start-up, in fresh processes started in turn (bin, bundle, executable, bin, …),
 * and the executables' sizes.
 *
 * - **port**: from the spawn to the port line on stdout (all the engine waits for);
 * - **round trip**: from the spawn to the answer of a first `GetPluginInfo` over gRPC.
 *
 * Three commands: `bin` (the launcher, under the `node` on PATH), `bundle` (the esbuild bundle
 * the executable carries, under that same `node`: what bundling alone changes) and `exe` (the
 * linux-amd64 executable, with Node.js 22.23.2 inside). Each figure is the median of `runs`; the
 * ratios (bundle / bin, exe / bin) are taken run by run, then their median; 1.00 = as fast as
 * the launcher, below 1 faster.
 *
 * Run: `npm run bench:plugin-binaries` (builds the executables first), or after it
 * `node dist/bench/plugin-binaries.js [runs]` (default 10). Prints one line of JSON on stdout,
 * then a table on stderr. Only on Linux x64 (the executable it starts is linux-amd64's).
 *
 * @packageDocumentation
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { REPO_ROOT } from "./engine";
import { summarize, type Summary } from "./stats";

const OUT = path.join(REPO_ROOT, "dist", "plugin-binaries");

/** The commands compared, each started as `<command> 127.0.0.1:1` (an engine address). */
const COMMANDS = {
  bin: { file: path.join(REPO_ROOT, "bin", "pulumi-resource-service"), args: [] as string[] },
  bundle: { file: process.execPath, args: [path.join(OUT, ".build", "pulumi-resource-service.js")] },
  exe: { file: path.join(OUT, "linux-amd64", "pulumi-resource-service"), args: [] as string[] },
};
type Name = keyof typeof COMMANDS;

/** One start: milliseconds from the spawn to the port line, and to GetPluginInfo's answer. */
interface Start {
  portMs: number;
  roundTripMs: number;
}

/** The figures of one command (milliseconds), with its ratios to `bin` taken run by run. */
export interface StartupFigures {
  portMs: Summary;
  roundTripMs: Summary;
  /** Per-run port / bin's port of the same round; 1 for bin itself. */
  portRatio: Summary;
  /** Per-run round trip / bin's round trip of the same round; 1 for bin itself. */
  roundTripRatio: Summary;
}

/** The benchmark's result: start-up per command, and each executable's size in bytes. */
export interface PluginBinariesResults {
  runs: number;
  /** The `node` that runs `bin` and `bundle`, e.g. `v20.20.2`. */
  node: string;
  startup: Record<Name, StartupFigures>;
  /** `<os>-<arch>` → bytes, for every executable in dist/plugin-binaries. */
  sizes: Record<string, number>;
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * Starts one command, waits for its port and one GetPluginInfo answer, then kills it.
 * @throws Error when it exits before printing a port or the call fails.
 */
async function startOnce(name: Name): Promise<Start> {
  const { file, args } = COMMANDS[name];
  const t0 = now();
  const child = spawn(file, [...args, "127.0.0.1:1"], { stdio: ["ignore", "pipe", "pipe"] });
  let client: ResourceProviderClient | undefined;
  try {
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("error", reject);
      child.on("exit", (code) => reject(new Error(`${name} exited with ${code}: ${err.slice(-500)}`)));
    });
    const portMs = now() - t0;
    client = new ResourceProviderClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    await new Promise<void>((resolve, reject) =>
      client!.getPluginInfo(new Empty(), (e) => (e ? reject(e) : resolve())),
    );
    return { portMs, roundTripMs: now() - t0 };
  } finally {
    client?.close();
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill();
    await exited;
  }
}

/**
 * Starts each command `runs` times, in turn within each round (after one unmeasured round that
 * warms the file cache).
 * @throws Error when an executable is missing (run `npm run build:plugin-binaries`), this is not
 * Linux x64, or a start fails.
 */
export async function benchPluginBinaries(
  runs = 10,
  log: (line: string) => void = () => {},
): Promise<PluginBinariesResults> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `the executable started here is linux-amd64's; this is ${process.platform}-${process.arch}`,
    );
  }
  for (const c of Object.values(COMMANDS)) {
    const f = c.args[0] ?? c.file;
    if (!existsSync(f)) throw new Error(`${f} is missing: run npm run build:plugin-binaries first`);
  }
  const names = Object.keys(COMMANDS) as Name[];
  const samples = Object.fromEntries(names.map((n) => [n, [] as Start[]])) as Record<Name, Start[]>;
  for (let round = -1; round < runs; round++) {
    for (const n of names) {
      const s = await startOnce(n);
      if (round >= 0) samples[n].push(s);
    }
    if (round >= 0)
      log(
        `round ${round + 1}/${runs}: ${names.map((n) => `${n} ${samples[n][round].portMs.toFixed(0)} ms`).join(", ")}`,
      );
  }
  const figures = (n: Name): StartupFigures => ({
    portMs: summarize(samples[n].map((s) => s.portMs)),
    roundTripMs: summarize(samples[n].map((s) => s.roundTripMs)),
    portRatio: summarize(samples[n].map((s, i) => s.portMs / samples.bin[i].portMs)),
    roundTripRatio: summarize(samples[n].map((s, i) => s.roundTripMs / samples.bin[i].roundTripMs)),
  });
  const sizes: Record<string, number> = {};
  for (const dir of readdirSync(OUT)
    .filter((d) => !d.startsWith("."))
    .sort()) {
    for (const exe of ["pulumi-resource-service", "pulumi-resource-service.exe"]) {
      if (existsSync(path.join(OUT, dir, exe))) sizes[dir] = statSync(path.join(OUT, dir, exe)).size;
    }
  }
  return {
    runs,
    node: process.version,
    startup: { bin: figures("bin"), bundle: figures("bundle"), exe: figures("exe") },
    sizes,
  };
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 10);
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`runs must be a positive integer, got ${process.argv[2]}`);
  const r = await benchPluginBinaries(runs, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${JSON.stringify(r)}\n`);
  const row = (n: Name) => {
    const f = r.startup[n];
    return (
      `${n.padEnd(7)} port ${f.portMs.median.toFixed(0).padStart(5)} ms (x${f.portRatio.median.toFixed(2)})` +
      `   GetPluginInfo ${f.roundTripMs.median.toFixed(0).padStart(5)} ms (x${f.roundTripRatio.median.toFixed(2)})\n`
    );
  };
  process.stderr.write(
    `start-up, median of ${runs} runs, ratios to bin run by run (bin and bundle under node ${r.node})\n` +
      row("bin") +
      row("bundle") +
      row("exe") +
      Object.entries(r.sizes)
        .map(([name, bytes]) => `${name.padEnd(14)} ${(bytes / 1024 / 1024).toFixed(1)} MiB\n`)
        .join(""),
  );
}

if (require.main === module) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
