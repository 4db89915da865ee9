/**
 * The rules of the emulator's fault injection that span members (packages/contract/operator.ts,
 * `FaultConfig`): the shares add up to at most 1, `slowMs` comes with `slow` or `slowAfter`, and
 * the latency's jitter is at most the latency. A configuration breaking one is refused by the
 * operator endpoint, `--faults` and `createApp` alike, each with the message checked here.
 */
import { FaultConfig } from "service-contract";

/** The messages of the problems of `cfg`, or `[]` when FaultConfig accepts it. */
function problems(cfg: Record<string, unknown>): string[] {
  const result = FaultConfig.safeParse(cfg);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

it("accepts shares adding up to exactly 1, summing every share given", () => {
  expect(problems({ status503: 0.5, status429: 0.5 })).toEqual([]);
  expect(problems({ status503: 0.1, status429: 0.2, slow: 0.7, slowMs: 10 })).toEqual([]);
  // A sum over 1 by no more than 1e-9 is floating point's rounding, still one draw's worth.
  expect(problems({ status503: 0.5, status429: 0.500000001 })).toEqual([]);
  expect(problems({ status503: 1 })).toEqual([]);
});

it("refuses shares adding up to more than 1, naming their sum", () => {
  expect(problems({ status503: 0.5, status429: 0.5, truncate: 0.01 })).toEqual([
    ": the shares of the faults add up to 1.01, more than 1",
  ]);
  expect(problems({ status503: 0.5, status429: 0.625 })).toEqual([
    ": the shares of the faults add up to 1.125, more than 1",
  ]);
  expect(problems({ status503: 0.6, status500After: 0.6 })).toEqual([
    ": the shares of the faults add up to 1.2, more than 1",
  ]);
});

it("asks for slowMs when slow or slowAfter holds requests, and not otherwise", () => {
  const required = "slowMs: required when slow or slowAfter is set (how long a held request is held, in ms)";
  expect(problems({ slow: 0.1 })).toEqual([required]);
  expect(problems({ slowAfter: 0.1 })).toEqual([required]);
  expect(problems({ slow: 0.1, slowMs: 50 })).toEqual([]);
  expect(problems({ slowAfter: 0.1, slowMs: 0 })).toEqual([]);
  expect(problems({ slow: 0, slowAfter: 0 })).toEqual([]);
  expect(problems({})).toEqual([]);
});

it("keeps the latency's jitter at most the latency, naming the latency", () => {
  expect(problems({ latencyMs: 100, latencyJitterMs: 100 })).toEqual([]);
  expect(problems({ latencyMs: 100, latencyJitterMs: 101 })).toEqual([
    "latencyJitterMs: must be at most latencyMs (100), the round trip it varies",
  ]);
  expect(problems({ latencyJitterMs: 1 })).toEqual([
    "latencyJitterMs: must be at most latencyMs (0), the round trip it varies",
  ]);
  expect(problems({ latencyMs: 5 })).toEqual([]);
});
