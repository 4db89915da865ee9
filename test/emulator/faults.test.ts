/**
 * Parsing of durations, rate limits and fault specs, and seeded fault draws (emulator/faults.ts).
 */
import {
  drawFault,
  parseDuration,
  parseFaults,
  parseRateLimit,
  seededRandom,
} from "../../packages/emulator/faults";
import { FAULT_OUTCOMES } from "../../packages/emulator/faults";
import { FAULT_SHARES, FaultConfig, LATENCY_MAX_MS } from "service-contract";
import { createApp } from "../../packages/emulator/app";
import { openStore } from "../../packages/emulator/store";

describe("parseDuration and parseRateLimit", () => {
  it.each([
    ["200ms", "ms", 200],
    ["30s", "ms", 30_000],
    ["1.5m", "ms", 90_000],
    ["2h", "ms", 7_200_000],
    ["250", "ms", 250],
    ["30", "s", 30_000],
    ["1d", "ms", 86_400_000],
  ] as const)("%s (bare unit %s) is %i ms", (text, unit, ms) => {
    expect(parseDuration(text, unit)).toBe(ms);
  });

  it.each(["", "soon", "-1s", "1 2s", "1e3x"])("rejects %j", (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/);
  });

  it.each([
    ["120/60s", { max: 120, windowMs: 60_000 }],
    ["5/1m", { max: 5, windowMs: 60_000 }],
    ["10/30", { max: 10, windowMs: 30_000 }],
  ])("reads %s", (text, expected) => {
    expect(parseRateLimit(text)).toEqual(expected);
  });

  it.each(["120", "0/60s", "x/60s", "120/0s"])("rejects rate limit %j", (text) => {
    expect(() => parseRateLimit(text)).toThrow(/invalid rate limit/);
  });
});

describe("parseFaults", () => {
  it.each([
    [
      "503:0.1,429:0.05,reset:0.02,latency:200ms",
      { status503: 0.1, status429: 0.05, reset: 0.02, latencyMs: 200 },
    ],
    ["503:10%", { status503: 0.1 }],
    ["reset:1,seed:7", { reset: 1, seed: 7 }],
    ["reset-after:5%,reset:0.01", { resetAfter: 0.05, reset: 0.01 }],
    ["latency:2s", { latencyMs: 2000 }],
    ["latency:150", { latencyMs: 150 }],
    ["latency:150ms,latency-jitter:20", { latencyMs: 150, latencyJitterMs: 20 }],
    [
      "500:1%,502:2%,500-after:3%,502-after:4%,503-after:5%,truncate:6%",
      {
        status500: 0.01,
        status502: 0.02,
        status500After: 0.03,
        status502After: 0.04,
        status503After: 0.05,
        truncate: 0.06,
      },
    ],
    ["slow:0.1,slow-after:0.2,slow-ms:3s", { slow: 0.1, slowAfter: 0.2, slowMs: 3000 }],
    ["", {}],
    ["off", {}],
  ])("reads %j", (spec, expected) => {
    expect(parseFaults(spec)).toEqual(expected);
  });

  it.each([
    ["503:1.5", /between 0 and 1/],
    ["503:0.6,429:0.6", /add up to/],
    ["503:0.6,reset-after:0.6", /add up to/],
    [
      "501:0.1",
      /unknown fault kind "501" \(expected 503, 429, reset, reset-after, 500, 502, 500-after, 502-after, 503-after, truncate, slow, slow-after, latency, latency-jitter, slow-ms or seed\)/,
    ],
    ["slow:0.1", /^slowMs: required when slow or slowAfter is set/],
    ["slow-after:0.1", /^slowMs: required when slow or slowAfter is set/],
    ["truncate:0.5,slow:0.3,503-after:0.3,slow-ms:1s", /add up to 1.1/],
    ["503", /expected kind:value/],
    ["503:abc", /invalid share/],
    ["latency:fast", /invalid duration/],
    ["latency:100,latency-jitter:101", /^latencyJitterMs: must be at most latencyMs \(100\)/],
    ["latency-jitter:5", /^latencyJitterMs: must be at most latencyMs \(0\)/],
    ["seed:1.5", /invalid seed/],
  ])("rejects %j", (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(message);
  });

  it("draws about the configured shares", () => {
    const random = seededRandom(1);
    const counts: Record<string, number> = {};
    for (let i = 0; i < 10_000; i++) {
      const outcome = drawFault({ status503: 0.1, status429: 0.2, reset: 0.3, resetAfter: 0.1 }, random);
      counts[outcome] = (counts[outcome] ?? 0) + 1;
    }
    expect(counts["503"] / 10_000).toBeCloseTo(0.1, 1);
    expect(counts["429"] / 10_000).toBeCloseTo(0.2, 1);
    expect(counts.reset / 10_000).toBeCloseTo(0.3, 1);
    expect(counts["reset-after"] / 10_000).toBeCloseTo(0.1, 1);
    expect(drawFault({}, () => 0)).toBe("none");
  });

  it("draws every share in FAULT_SHARES order, each named by FAULT_OUTCOMES, none past their sum", () => {
    // Twelve shares of 0.05 each: r in [0.05·i, 0.05·(i+1)) picks the i-th; 0.6 and above picks none.
    const cfg = Object.fromEntries(FAULT_SHARES.map((share) => [share, 0.05]));
    const drawn = FAULT_SHARES.map((_share, i) => drawFault(cfg, () => 0.05 * i + 0.01));
    expect(drawn).toEqual([
      "503",
      "429",
      "reset",
      "reset-after",
      "500",
      "502",
      "500-after",
      "502-after",
      "503-after",
      "truncate",
      "slow",
      "slow-after",
    ]);
    expect(drawn).toEqual(FAULT_SHARES.map((share) => FAULT_OUTCOMES[share]));
    expect(drawFault(cfg, () => 0.6)).toBe("none");
    // A share added after the first four never changes what a seed drew for them.
    const old = { status503: 0.1, status429: 0.1, reset: 0.1, resetAfter: 0.1 };
    const [a, b] = [seededRandom(9), seededRandom(9)];
    const first = Array.from({ length: 200 }, () => drawFault(old, a));
    const withNew = Array.from({ length: 200 }, () => drawFault({ ...old, truncate: 0.1 }, b));
    expect(withNew.map((o) => (o === "truncate" ? "none" : o))).toEqual(first);
  });
});

describe("one fault schema, the contract's", () => {
  it("holds the latency cap and the shares-sum rule for the command line, createApp and the operator endpoint alike", () => {
    expect(parseFaults(`latency:${LATENCY_MAX_MS}`)).toEqual({ latencyMs: LATENCY_MAX_MS });
    expect(() => parseFaults("latency:601s")).toThrow(
      `latencyMs: must be a whole number of milliseconds from 0 to ${LATENCY_MAX_MS}`,
    );
    expect(FaultConfig.safeParse({ latencyMs: LATENCY_MAX_MS + 1 }).success).toBe(false);
    expect(FaultConfig.safeParse({ latencyMs: 150.5 }).success).toBe(false);
    expect(FaultConfig.safeParse({ status503: 0.5, resetAfter: 0.5 }).success).toBe(true);
    expect(FaultConfig.safeParse({ status503: 0.5, resetAfter: 0.6 }).error?.issues[0].message).toBe(
      "the shares of the faults add up to 1.1, more than 1",
    );
    const store = openStore(":memory:");
    try {
      expect(() => createApp({ store, faults: { latencyMs: LATENCY_MAX_MS + 1 } })).toThrow(/latencyMs/);
      expect(() => createApp({ store, faults: { reset: 0.7, status429: 0.7 } })).toThrow(/add up to/);
    } finally {
      store.close();
    }
  });
});
