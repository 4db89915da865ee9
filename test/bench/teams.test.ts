/**
 * The bench of parallel stacks (`npm run bench:teams`, bench/teams.ts): its settings from the
 * environment, its checks (every operation of a batch succeeded, the emulator holds what it
 * should), its figures from samples (PostgreSQL / file included) and its table; and its quick
 * mode through the real engine (2 stacks of 2 resources, one run) on the file backend alone, the
 * cheapest (bench/scale.ts's test runs the engine on the PostgreSQL backend): the document has
 * its shape, with positive figures and ratios that are the quotients of its own figures.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { allSucceeded, benchTeams, expectHeld, teamsOptions } from "../../bench/teams";
import { teamsMarkdown } from "../../bench/teams-markdown";
import { teamsFigures, type TeamsResults } from "../../bench/teams-results";
import { summarize, type Summary } from "../../bench/stats";
import { useTempDir } from "../helpers/temp-dir";

describe("teamsOptions", () => {
  it.each([
    [{}, { quick: false, stacks: 4, subscriptions: 5, runs: 3 }],
    [{ BENCH_QUICK: "1" }, { quick: true, stacks: 2, subscriptions: 1, runs: 1 }],
    [
      { BENCH_QUICK: "1", BENCH_STACKS: "8", BENCH_SUBSCRIPTIONS: "20", BENCH_RUNS: "2" },
      { quick: true, stacks: 8, subscriptions: 20, runs: 2 },
    ],
  ])("%j: %j, both backends", (env, expected) => {
    expect(teamsOptions(env)).toMatchObject({ ...expected, backends: ["file", "postgres"] });
  });

  it("reads BENCH_BACKENDS and BENCH_OUT", () => {
    expect(teamsOptions({ BENCH_BACKENDS: "postgres", BENCH_OUT: "x/teams.json" })).toMatchObject({
      backends: ["postgres"],
      outFile: path.resolve("x/teams.json"),
    });
  });

  it("reads the door, the latency and the account's rate limit; by default the dynamic door, no latency, no limit", () => {
    expect(teamsOptions({})).toMatchObject({ door: "real", latencyMs: 0, rateLimit: undefined });
    expect(
      teamsOptions({ BENCH_DOOR: "native", BENCH_LATENCY_MS: "150", BENCH_RATE_LIMIT: "120/60s" }),
    ).toMatchObject({ door: "native", latencyMs: 150, rateLimit: { max: 120, windowMs: 60_000 } });
    expect(teamsOptions({ BENCH_RATE_LIMIT: "20/1s", BENCH_RATE_LIMIT_BURST: "40" }).rateLimit).toEqual({
      max: 20,
      windowMs: 1000,
      burst: 40,
    });
  });

  it.each([
    [{ BENCH_DOOR: "yaml" }, "BENCH_DOOR must be real (the dynamic door) or native, got yaml"],
    [{ BENCH_LATENCY_MS: "-1" }, "BENCH_LATENCY_MS must be a whole number from 0 up, got -1"],
    [
      { BENCH_RATE_LIMIT: "20 per s" },
      "BENCH_RATE_LIMIT must be <max>/<window>, e.g. 20/1s or 120/60s, got 20 per s",
    ],
    [{ BENCH_STACKS: "1" }, "BENCH_STACKS must be a whole number from 2 up, got 1"],
    [{ BENCH_SUBSCRIPTIONS: "0" }, "BENCH_SUBSCRIPTIONS must be a whole number from 1 up, got 0"],
    [{ BENCH_RUNS: "2.5" }, "BENCH_RUNS must be a whole number from 1 up, got 2.5"],
    [
      { BENCH_BACKENDS: "file,s3" },
      "BENCH_BACKENDS must name backends among file, postgres, each once, got s3",
    ],
    [
      { BENCH_BACKENDS: "file,file" },
      "BENCH_BACKENDS must name backends among file, postgres, each once, got file",
    ],
  ])("rejects %j", (env, message) => {
    expect(() => teamsOptions(env)).toThrow(message);
  });
});

describe("the bench's checks", () => {
  it("allSucceeded waits for every operation and names each one that failed", async () => {
    let lateEnded = false;
    const late = new Promise<number>((resolve) =>
      setTimeout(() => {
        lateEnded = true;
        resolve(3);
      }, 50),
    );
    await expect(
      allSucceeded("up", [
        { stack: "a", run: Promise.resolve(1) },
        { stack: "b", run: Promise.reject(new Error("the stack is currently locked")) },
        { stack: "c", run: late },
      ]),
    ).rejects.toThrow("up: 1 of 3 failed: b: the stack is currently locked");
    expect(lateEnded).toBe(true);
    await expect(
      allSucceeded("up", [
        { stack: "a", run: Promise.resolve(1) },
        { stack: "b", run: Promise.resolve(2) },
      ]),
    ).resolves.toEqual([1, 2]);
  });

  it("expectHeld throws unless the emulator holds exactly the resources expected", () => {
    const snapshot = (d: number, s: number) => ({
      event_destinations: Array.from({ length: d }),
      event_subscriptions: Array.from({ length: s }),
    });
    expect(() => expectHeld("destroy", snapshot(0, 0), { destinations: 0, subscriptions: 0 })).not.toThrow();
    expect(() => expectHeld("destroy", snapshot(0, 1), { destinations: 0, subscriptions: 0 })).toThrow(
      "destroy: the emulator holds 0 destinations and 1 subscriptions, expected 0 and 0",
    );
    expect(() => expectHeld("up", snapshot(4, 19), { destinations: 4, subscriptions: 20 })).toThrow(
      "up: the emulator holds 4 destinations and 19 subscriptions, expected 4 and 20",
    );
  });
});

describe("teamsFigures", () => {
  const sample = (ms: number, cpuMs: number | null = ms / 2) => ({ ms, cpuMs });
  const samples = new Map([
    ["file", { parallel: [sample(6000), sample(9000)], sequential: [sample(12000), sample(12000)] }],
    ["postgres", { parallel: [sample(9000), sample(9000)], sequential: [sample(12000), sample(15000)] }],
  ] as const);

  it("takes each ratio within a run: parallel / one after the other, PostgreSQL / file", () => {
    const f = teamsFigures(["postgres", "file"], samples);
    expect(f.backends.map((b) => b.backend)).toEqual(["postgres", "file"]);
    const [pg, file] = f.backends;
    expect(file.parallelMs).toEqual(summarize([6000, 9000]));
    expect(file.sequentialMs).toEqual(summarize([12000, 12000]));
    expect(file.cpuMs).toEqual({ parallel: summarize([3000, 4500]), sequential: summarize([6000, 6000]) });
    expect(file.ratio.samples).toEqual([0.5, 0.75]);
    expect(pg.ratio.samples).toEqual([0.75, 0.6]);
    expect(f.postgresOverFile!.parallel.samples).toEqual([1.5, 1]);
    expect(f.postgresOverFile!.sequential.samples).toEqual([1, 1.25]);
  });

  it("has no PostgreSQL / file with one backend, and no CPU time when a sample lacks it", () => {
    const one = new Map([["file", { parallel: [sample(6000, null)], sequential: [sample(12000)] }]] as const);
    const f = teamsFigures(["file"], one);
    expect(f.postgresOverFile).toBeNull();
    expect(f.backends[0].cpuMs).toBeNull();
    expect(() => teamsFigures(["file", "postgres"], one)).toThrow("no samples of the postgres backend");
  });
});

describe("teamsMarkdown", () => {
  /** A document of 4 stacks on a 2-core machine, with `fields` of its own. */
  const results = (fields: Record<string, unknown>) =>
    ({
      stacks: 4,
      quick: false,
      machine: { cores: 2, loadAverageAtStart: 1.5 },
      ...fields,
    }) as unknown as TeamsResults;

  it("prints each backend's batches and their ratio, and PostgreSQL / files", () => {
    const b = (backend: "file" | "postgres", parallel: number[], sequential: number[], cpu: boolean) => ({
      backend,
      parallelMs: summarize(parallel),
      sequentialMs: summarize(sequential),
      cpuMs: cpu ? { parallel: summarize([26_000]), sequential: summarize([25_000, 27_000]) } : null,
      ratio: summarize(parallel.map((p, i) => p / sequential[i])),
    });
    const md = teamsMarkdown(
      results({
        resourcesPerStack: 6,
        runs: 3,
        backends: [
          b("file", [6000, 7000, 8000], [12000, 14000, 16000], true),
          b("postgres", [7000], [14000], false),
        ],
        postgresOverFile: { parallel: summarize([1.1, 1.2, 1.3]), sequential: summarize([1, 1, 1]) },
      }),
    );
    expect(md.split("\n")).toEqual([
      "**4 stacks of 6 resources each, `up` from empty** (median (min–max) of 3 runs; ratios taken within each run; 2 cores, load average 1.5 at the start)",
      "",
      "| backend | 4 stacks in parallel | the same 4 one after the other | parallel / one after the other | CPU time, in parallel | CPU time, one after the other |",
      "| --- | ---: | ---: | ---: | ---: | ---: |",
      "| files | 7.0 s (6.0–8.0) | 14.0 s (12.0–16.0) | 0.50 | 26.0 s | 26.0 s (25.0–27.0) |",
      "| PostgreSQL | 7.0 s | 14.0 s | 0.50 | — | — |",
      "| PostgreSQL / files | 1.20 (1.10–1.30) | 1.00 | | | |",
    ]);
  });

  it("names the account's limit, the door and each run's answers of 429 when the run had a limit", () => {
    const md = teamsMarkdown(
      results({
        resourcesPerStack: 101,
        runs: 1,
        backends: [],
        postgresOverFile: null,
        service: {
          door: "native",
          latencyMs: 150,
          rateLimit: { max: 120, windowMs: 60_000 },
          answers429: { file: { parallel: [9], sequential: [1] } },
        },
      }),
    );
    expect(md.split("\n").slice(-1)).toEqual([
      "One account at 120 requests per rolling 60 s, 150 ms a round trip, the native door; answers of 429 in each run's `up`s (all retried) — files: 9 in parallel, 1 one after the other.",
    ]);
  });
});

describe("benchTeams, quick mode, file backend", () => {
  const dir = useTempDir("bench-teams-");

  /** A figure of one run: one sample, positive. */
  function expectOneSample(s: Summary): number {
    expect(s.samples).toHaveLength(1);
    expect(s.median).toBeGreaterThan(0);
    expect([s.min, s.max]).toEqual([s.median, s.median]);
    return s.median;
  }

  it("deploys 2 stacks in parallel and one after the other, destroys them, and writes the figures", async () => {
    const outFile = path.join(dir(), "teams.json");
    const lines: string[] = [];
    // The native door against one account's limit of 2 requests a second, in bursts of 2.
    const env = { BENCH_QUICK: "1", BENCH_BACKENDS: "file", BENCH_DOOR: "native" };
    const r = await benchTeams({
      ...teamsOptions({ ...env, BENCH_RATE_LIMIT: "2/1s", BENCH_RATE_LIMIT_BURST: "2" }),
      outFile,
      log: (l) => lines.push(l),
    });
    expect(r).toMatchObject({
      kind: "teams",
      quick: true,
      runs: 1,
      stacks: 2,
      subscriptions: 1,
      resourcesPerStack: 2,
      postgresOverFile: null,
    });
    expect(r.backends.map((b) => b.backend)).toEqual(["file"]);
    const [b] = r.backends;
    const parallel = expectOneSample(b.parallelMs);
    const sequential = expectOneSample(b.sequentialMs);
    expect(expectOneSample(b.ratio)).toBeCloseTo(parallel / sequential, 2);
    if (process.platform === "linux") {
      expect(b.cpuMs).not.toBeNull();
      expectOneSample(b.cpuMs!.parallel);
      expectOneSample(b.cpuMs!.sequential);
    }
    expect(r.service).toEqual({
      door: "native",
      latencyMs: 0,
      rateLimit: { max: 2, windowMs: 1000, burst: 2 },
      answers429: { file: { parallel: [expect.any(Number)], sequential: [expect.any(Number)] } },
    });
    expect(lines).toEqual([
      expect.stringMatching(
        /^run 1\/1 file, 2 stacks: parallel [\d.]+ s \(\d+ × 429\), sequential [\d.]+ s \(\d+ × 429\)$/,
      ),
    ]);
    expect(JSON.parse(readFileSync(outFile, "utf8"))).toEqual(r);
    expect(teamsMarkdown(r)).toMatch(
      /^\| files \| [\d.]+ s \| [\d.]+ s \| [\d.]+ \| ([\d.]+ s|—) \| ([\d.]+ s|—) \|$/m,
    );
  }, 600_000);
});
