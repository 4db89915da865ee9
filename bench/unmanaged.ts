/**
 * The bench of the unmanaged check (`npm run bench:unmanaged`, docs/performance.md § Unmanaged
 * check): an account of N event subscriptions and destinations on the emulator (in this process,
 * seeded over HTTP: N / 20 destinations, the rest subscriptions) and 20 stacks' states in a file
 * backend, written here rather than deployed (`pulumi stack import` of states as the native door
 * writes them: each resource's `uri` and a key stamp, each stack stamped with a salt of its own as
 * one provider process per stack would), holding all but 5% of the account between them.
 *
 * Timed, in each run: the two things any such check must do, as baselines, then the check:
 *
 * - **list**: every page of both lists of the account (the client alone, generate.ts's
 *   `listInventory`);
 * - **export**: the 20 states read with `pulumi stack export` (gitops/unmanaged.ts's
 *   `readStackStates`, 4 at once);
 * - **library**: `runUnmanagedCheck` in this process (reads, lists, compares; the key-stamp
 *   derivations, one per stack's salt, are kept from the first run on);
 * - **command line**: `service-drift unmanaged --stack … --json`, the compiled command line in a fresh
 *   process as a user runs it (start-up, reads, lists, compares: its figure includes the key-stamp
 *   derivations, one per stack's salt, about 60 ms each).
 *
 * The figures are seconds (median of the runs, min and max) and the ratio library / (list +
 * export) within each run: 1 means the comparison costs nothing beside the reads. It checks what it
 * measures: the check finds exactly the 5% left out of the states, and throws otherwise.
 *
 * Environment: `BENCH_COUNTS` (N, default `1000,10000`), `BENCH_STACKS` (default 20),
 * `BENCH_RUNS` (default 3), `BENCH_QUICK=1` (N = 100, 2 stacks, one run: a smoke run),
 * `BENCH_OUT` (default `bench/results/latest-unmanaged.json`).
 *
 * @packageDocumentation
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startEmulator } from "service-emulator";
import { ServiceClient } from "../client";
import { listInventory } from "../gitops/generate";
import { readStackStates, runUnmanagedCheck, type StackRef } from "../gitops/unmanaged";
import { keyStamp } from "../provider/impl/keyStamp";
import { runFromCommandLine } from "./command";
import { openEngine } from "./engine";
import { machineInfo } from "./report";
import { round, summarize, type Summary } from "./stats";

/** The figures of one N. */
export interface UnmanagedCell {
  /** Resources of the account. */
  resources: number;
  stacks: number;
  /** Unmanaged resources the check found (5% of `resources`). */
  unmanaged: number;
  seconds: Record<"list" | "export" | "library" | "check", Summary>;
  /** library / (list + export), per run. */
  ratio: Summary;
}

/** The results document (`BENCH_OUT`). */
export interface UnmanagedResults {
  machine: ReturnType<typeof machineInfo>;
  runs: number;
  cells: UnmanagedCell[];
  durationSeconds: number;
}

const API_KEY = "sk_bench_unmanaged_0123456789";
/** The compiled command line, run as a user runs it: a fresh process each time. */
const CLI = path.join(__dirname, "..", "gitops", "cli.js");
const KINESIS = {
  kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/b" } }, streamArn: "arn:aws:kinesis:s" },
};

/** Runs `work` on each item, `limit` at once. */
async function each<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

/** Seeds `n` resources: n / 20 destinations, the rest subscriptions to them. @returns their IDs. */
async function seed(client: ServiceClient, n: number): Promise<{ id: string; sub: boolean }[]> {
  const dests = Math.max(1, Math.round(n / 20));
  const out: { id: string; sub: boolean }[] = [];
  await each([...Array(dests).keys()], 16, async (i) => {
    out.push({
      id: (await client.eventDestinations.create({ description: `d${i}`, target: KINESIS })).id,
      sub: false,
    });
  });
  const destIds = out.map((d) => d.id);
  await each([...Array(n - dests).keys()], 16, async (i) => {
    const s = await client.eventSubscriptions.create({
      description: `s${i}`,
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destIds[i % destIds.length]],
    });
    out.push({ id: s.id, sub: true });
  });
  return out;
}

/** The exported state of stack `name` holding `ids`, as the native door writes it. */
function stateOf(project: string, name: string, baseUrl: string, ids: { id: string; sub: boolean }[]) {
  const stamp = keyStamp(API_KEY, Buffer.from(name.padEnd(16, "_").slice(0, 16)).toString("base64url"));
  const prefix = `urn:pulumi:${name}::${project}::`;
  const provider = {
    urn: `${prefix}pulumi:providers:service::default`,
    custom: true,
    id: "prov-1",
    type: "pulumi:providers:service",
    inputs: { baseUrl },
    outputs: { baseUrl },
  };
  return {
    version: 3,
    deployment: {
      manifest: { time: new Date().toISOString(), magic: "", version: "" },
      resources: [
        {
          urn: `${prefix}pulumi:pulumi:Stack::${project}-${name}`,
          custom: false,
          type: "pulumi:pulumi:Stack",
        },
        provider,
        ...ids.map(({ id, sub }) => {
          const type = sub ? "EventSubscription" : "EventDestination";
          const uri = `${baseUrl}/${sub ? "event_subscriptions" : "event_destinations"}/${id}`;
          return {
            urn: `${prefix}service:index:${type}::${id}`,
            custom: true,
            id,
            type: `service:index:${type}`,
            provider: `${provider.urn}::prov-1`,
            inputs: { description: "" },
            outputs: { description: "", uri, createdAt: "2026-01-01T00:00:00Z", __keyStamp: stamp },
          };
        }),
      ],
    },
  };
}

/** Runs `pulumi args` in `cwd`. @throws Error with its stderr when it fails. */
function pulumi(args: string[], cwd: string, env: NodeJS.ProcessEnv): void {
  const r = spawnSync("pulumi", args, { cwd, env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`pulumi ${args.join(" ")}: ${r.stderr}`);
}

const seconds = async (f: () => Promise<unknown>) => {
  const t = performance.now();
  await f();
  return (performance.now() - t) / 1000;
};

/** Measures one N with `stacks` stacks, `runs` times. */
async function measure(
  n: number,
  stacks: number,
  runs: number,
  log: (l: string) => void,
): Promise<UnmanagedCell> {
  const emulator = await startEmulator({ apiKeys: [API_KEY] });
  const client = new ServiceClient({ apiKey: API_KEY, baseUrl: emulator.url });
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-unmanaged-"));
  const engine = await openEngine(`bench-unmanaged-${n}`);
  try {
    const all = await seed(client, n);
    log(`N = ${n}: seeded`);
    const managed = all.slice(0, all.length - Math.round(n / 20));
    const env = engine.env as Record<string, string>;
    const pulumiCommand = engine.command;
    const project = path.join(dir, "project");
    mkdirSync(project);
    writeFileSync(path.join(project, "Pulumi.yaml"), "name: unmanaged-bench\nruntime: nodejs\n");
    const refs: StackRef[] = [];
    for (let s = 0; s < stacks; s++) {
      const name = `stack${s}`;
      const file = path.join(dir, `${name}.json`);
      writeFileSync(
        file,
        JSON.stringify(
          stateOf(
            "unmanaged-bench",
            name,
            emulator.url,
            managed.filter((_, i) => i % stacks === s),
          ),
        ),
      );
      pulumi(["stack", "init", name, "--non-interactive"], project, env);
      pulumi(["stack", "import", "--file", file, "--stack", name, "--non-interactive"], project, env);
      refs.push({ stack: name, cwd: project });
    }
    log(`N = ${n}: ${stacks} states imported`);
    const samples = {
      list: [] as number[],
      export: [] as number[],
      library: [] as number[],
      check: [] as number[],
      ratio: [] as number[],
    };
    let found = 0;
    for (let run = 0; run < runs; run++) {
      const list = await seconds(() => listInventory(client));
      const exported = await seconds(() => readStackStates(refs, { env, pulumiCommand }));
      const library = await seconds(() =>
        runUnmanagedCheck({
          stacks: refs,
          accounts: [{ name: "bench", baseUrl: emulator.url, apiKey: API_KEY }],
          env,
          pulumiCommand,
        }),
      );
      const check = await seconds(async () => {
        const args = refs.flatMap((r) => ["--stack", `${r.cwd}:${r.stack}`]);
        const run = await promisify(execFile)(process.execPath, [CLI, "unmanaged", ...args, "--json"], {
          env: { ...env, SERVICE_API_KEY: API_KEY, SERVICE_BASE_URL: emulator.url },
          maxBuffer: 256 * 1024 * 1024,
        }).catch((e: { code?: number; stdout?: string; stderr?: string }) => {
          if (e.code !== 2) throw new Error(`service-drift unmanaged: exit ${e.code}: ${e.stderr}`);
          return { stdout: e.stdout ?? "" };
        });
        found = (JSON.parse(run.stdout) as { unmanaged: unknown[] }).unmanaged.length;
      });
      if (found !== all.length - managed.length)
        throw new Error(
          `N = ${n}: the check found ${found} unmanaged, expected ${all.length - managed.length}`,
        );
      samples.list.push(list);
      samples.export.push(exported);
      samples.library.push(library);
      samples.check.push(check);
      samples.ratio.push(library / (list + exported));
      log(
        `N = ${n}, run ${run + 1}/${runs}: list ${round(list)} s, export ${round(exported)} s, library ${round(library)} s, command line ${round(check)} s`,
      );
    }
    return {
      resources: n,
      stacks,
      unmanaged: found,
      seconds: {
        list: summarize(samples.list),
        export: summarize(samples.export),
        library: summarize(samples.library),
        check: summarize(samples.check),
      },
      ratio: summarize(samples.ratio),
    };
  } finally {
    await client.close();
    await emulator.close();
    engine.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The results as a Markdown table. */
export function unmanagedMarkdown(r: UnmanagedResults): string {
  const s = (x: Summary) => `${round(x.median)} (${round(x.min)}–${round(x.max)})`;
  return [
    `Unmanaged check, ${r.runs} run(s), ${r.machine.cores} cores (${r.machine.cpuModel}); seconds, median (min–max)`,
    "",
    "| resources | stacks | unmanaged | list (baseline) | export (baseline) | library | library / (list + export) | command line |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...r.cells.map(
      (c) =>
        `| ${c.resources} | ${c.stacks} | ${c.unmanaged} | ${s(c.seconds.list)} | ${s(c.seconds.export)} | ${s(c.seconds.library)} | ${s(c.ratio)} | ${s(c.seconds.check)} |`,
    ),
  ].join("\n");
}

/** Runs the bench with the environment's settings (see the module's documentation). */
export async function benchUnmanaged(env: NodeJS.ProcessEnv = process.env): Promise<UnmanagedResults> {
  const started = performance.now();
  const quick = env.BENCH_QUICK === "1";
  const ints = (v: string | undefined, name: string, fallback: number[]) => {
    const out = v ? v.split(",").map(Number) : fallback;
    if (out.some((x) => !Number.isInteger(x) || x < 1))
      throw new Error(`${name}: positive whole numbers, got ${v}`);
    return out;
  };
  const counts = ints(env.BENCH_COUNTS, "BENCH_COUNTS", quick ? [100] : [1000, 10000]);
  const [stacks] = ints(env.BENCH_STACKS, "BENCH_STACKS", [quick ? 2 : 20]);
  const [runs] = ints(env.BENCH_RUNS, "BENCH_RUNS", [quick ? 1 : 3]);
  const log = (l: string) => process.stderr.write(`bench:unmanaged: ${l}\n`);
  const machine = machineInfo();
  const cells: UnmanagedCell[] = [];
  for (const n of counts) cells.push(await measure(n, stacks, runs, log));
  return { machine, runs, cells, durationSeconds: round((performance.now() - started) / 1000, 1) };
}

if (require.main === module) {
  const outFile = path.resolve(process.env.BENCH_OUT ?? "bench/results/latest-unmanaged.json");
  const log = (l: string) => process.stderr.write(`bench:unmanaged: ${l}\n`);
  runFromCommandLine(
    benchUnmanaged().then((r) => {
      writeFileSync(outFile, `${JSON.stringify(r, null, 2)}\n`);
      return r;
    }),
    unmanagedMarkdown,
    { outFile, log },
  );
}
