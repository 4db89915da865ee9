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
import { FaultConfig } from "service-contract";
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
    ["", {}],
    ["off", {}],
  ])("reads %j", (spec, expected) => {
    expect(parseFaults(spec)).toEqual(expected);
  });

  it.each([
    ["503:1.5", /between 0 and 1/],
    ["503:0.6,429:0.6", /add up to/],
    ["503:0.6,reset-after:0.6", /add up to/],
    ["500:0.1", /unknown fault kind/],
    ["503", /expected kind:value/],
    ["503:abc", /invalid share/],
    ["latency:fast", /invalid duration/],
    ["seed:1.5", /invalid seed/],
  ])("rejects %j", (spec, message) => {
    expect(() => parseFaults(spec)).toThrow(message);
  });

  it("draws about the configured shares", () => {
    const random = seededRandom(1);
    const counts = { none: 0, "503": 0, "429": 0, reset: 0, "reset-after": 0 };
    for (let i = 0; i < 10_000; i++)
      counts[drawFault({ status503: 0.1, status429: 0.2, reset: 0.3, resetAfter: 0.1 }, random)]++;
    expect(counts["503"] / 10_000).toBeCloseTo(0.1, 1);
    expect(counts["429"] / 10_000).toBeCloseTo(0.2, 1);
    expect(counts.reset / 10_000).toBeCloseTo(0.3, 1);
    expect(counts["reset-after"] / 10_000).toBeCloseTo(0.1, 1);
    expect(drawFault({}, () => 0)).toBe("none");
  });
});

/** The contract's cap on injected latency: 10 minutes, in milliseconds. */
const LATENCY_MAX_MS = 600_000;

describe("one fault schema, the contract's", () => {
  it("holds the latency cap and the shares-sum rule for the command line, createApp and the operator endpoint alike", () => {
    expect(parseFaults(`latency:${LATENCY_MAX_MS}`)).toEqual({ latencyMs: LATENCY_MAX_MS });
    expect(() => parseFaults("latency:11m")).toThrow(new RegExp(`^latencyMs: .*${LATENCY_MAX_MS}`));
    expect(FaultConfig.safeParse({ latencyMs: LATENCY_MAX_MS + 1 }).success).toBe(false);
    expect(FaultConfig.safeParse({ status503: 0.5, resetAfter: 0.5 }).success).toBe(true);
    expect(FaultConfig.safeParse({ status503: 0.5, resetAfter: 0.6 }).error?.issues[0].message).toBe(
      "the shares of 503, 429, reset and reset-after add up to 1.1, more than 1",
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
