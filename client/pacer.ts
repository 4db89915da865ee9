/**
 * The pace of the client's requests: when the next attempt may be sent. The retry policy
 * (retry.ts) decides *whether* an attempt is made again; the pacer decides *when* any attempt,
 * first or retry, leaves. Both are driven from one place, `Transport.call`.
 *
 * Two sources of a rate, combined (the lower wins):
 * - a **ceiling** the user configures (`maxRequestsPerSecond`, with `requestBurst`): a token
 *   bucket that holds at most `burst` requests and refills `ceiling` per second;
 * - a **learned rate** (AIMD): unset until the service answers 429; then every request waits
 *   out the 429's `Retry-After` (one pause for all, not one per request), and the rate becomes an
 *   estimate of what the service let through, the **limit**: the requests answered in the last
 *   k seconds ÷ (k + the `Retry-After`), the highest over every k up to `ESTIMATE_WINDOW_S` (60)
 *   (a rolling window's 429 asks to wait until its oldest request leaves it, so k + `Retry-After`
 *   is the window; the highest, so that idle seconds before the sending do not lower it). The
 *   rate starts at {@link FIRST_CUT} × the limit. Each later 429 that comes after the pause
 *   lowers the limit to the rate that drew it and multiplies the rate by {@link LATER_CUT};
 *   every answer that is not a 429 raises the rate by {@link CREEP_PER_S} of itself per second
 *   since the last raise, counting at most two intervals of the rate (an idle account's rate does
 *   not grow), and never past {@link LIMIT_SHARE} × the limit: a rate the service refused is not
 *   tried again while the state lasts.
 *
 * The state is a plain JSON-able object ({@link PaceState}) changed by two pure functions
 * ({@link takeToken}, {@link observeAnswer}), so one state can be kept in memory
 * ({@link LocalPacer}) or in a file that several processes share (the provider's shared pacer,
 * provider/impl/process/sharedPacer.ts).
 *
 * @packageDocumentation
 */

/** Share of the estimated rate the first 429 sets the learned rate to: 0.9. */
export const FIRST_CUT = 0.9;
/** Factor a later 429 (after the pause of the one before) multiplies the learned rate by: 0.8. */
export const LATER_CUT = 0.8;
/** Raise of the learned rate per second without a 429, as a share of itself: 0.02 (2 % a second). */
export const CREEP_PER_S = 0.02;
/** Share of the learned limit the rate creeps up to and no further: 0.95. */
export const LIMIT_SHARE = 0.95;
/** Seconds of answers the first estimate counts: 60. */
export const ESTIMATE_WINDOW_S = 60;
/**
 * Seconds of lateness a waiting request is credited, 0.1: a request told to wait that comes back
 * later than asked (timers, a busy event loop, the shared bucket's file) finds the tokens that
 * accrued meanwhile, up to this many seconds of the rate beyond one, so that the pace keeps its
 * rate instead of losing each request's delay. An idle bucket still holds `burst` at most.
 */
export const LATENESS_S = 0.1;
/** Lowest learned rate, in requests per second: 0.05 (one request every 20 s). */
export const MIN_RATE = 0.05;
/** Pause after a 429 without `Retry-After`, in milliseconds: 1,000. */
export const DEFAULT_PAUSE_MS = 1_000;
/** Highest ceiling and burst accepted: 10,000 (requests per second; requests). */
export const MAX_PACE = 10_000;

/** The configured part of a pacer. */
export interface PaceSettings {
  /** Most requests per second (the ceiling); `undefined`: only the learned rate paces. */
  maxRequestsPerSecond?: number;
  /** Requests an idle client may send at once under the ceiling or the learned rate; at least 1. */
  burst: number;
}

/** The changing part of a pacer, shared by whoever paces together. Times in ms since the epoch. */
export interface PaceState {
  /** The learned rate in requests per second; `null` until a 429 taught one. */
  rate: number | null;
  /**
   * The lowest rate known to draw a 429, in requests per second (the estimate of the first 429,
   * then the rate each later one came at); `null` until a 429 taught one. The rate creeps up to
   * 0.95 of it (`LIMIT_SHARE`) and no further.
   */
  limit: number | null;
  /** Tokens in the bucket at time {@link PaceState.at}. */
  tokens: number;
  /** When {@link PaceState.tokens} was counted (ms since the epoch); `0`: never (the bucket is full). */
  at: number;
  /** No request is sent before this time (ms since the epoch): the pause of the last 429. */
  pausedUntil: number;
  /** When the learned rate was last raised (ms since the epoch). */
  raisedAt: number;
  /** Whether the last request that asked for a token was told to wait (the bucket then holds up to `LATENESS_S` more). */
  waiting: boolean;
  /** Answers other than 429 per whole second (epoch seconds as keys), the last `ESTIMATE_WINDOW_S` (60) seconds. */
  answered: Record<string, number>;
}

/** A state that has learned nothing: no rate, a full bucket, no pause. */
export function freshState(): PaceState {
  return {
    rate: null,
    limit: null,
    tokens: 0,
    at: 0,
    pausedUntil: 0,
    raisedAt: 0,
    waiting: false,
    answered: {},
  };
}

/** The rate that paces now, in requests per second: the lower of the ceiling and the learned rate (`Infinity`: none). */
export function paceRate(state: PaceState, settings: PaceSettings): number {
  return Math.min(settings.maxRequestsPerSecond ?? Infinity, state.rate ?? Infinity);
}

/**
 * Takes a token for one request at time `now` (ms), changing `state`.
 * A request told to wait that asks again late finds the tokens of its lateness, up to 0.1 s
 * (`LATENESS_S`) of the rate beyond one: a pace whose waiters are late keeps its rate.
 * @returns `0` when the request may be sent now (the token is taken), else the ms to wait
 *   before asking again.
 */
export function takeToken(state: PaceState, settings: PaceSettings, now: number): number {
  if (now < state.pausedUntil) return state.pausedUntil - now;
  const rate = paceRate(state, settings);
  if (rate === Infinity) return 0;
  const burst = settings.burst;
  // A request that was told to wait is credited the tokens that accrued while it came back late.
  const holds = state.waiting ? Math.max(burst, 1 + rate * LATENESS_S) : burst;
  state.tokens =
    state.at === 0 ? burst : Math.min(holds, state.tokens + (Math.max(0, now - state.at) * rate) / 1000);
  state.at = now;
  if (state.tokens >= 1) {
    state.tokens -= 1;
    state.waiting = false;
    return 0;
  }
  state.waiting = true;
  return Math.max(1, Math.ceil(((1 - state.tokens) * 1000) / rate));
}

/** The answer the pacer learns from: its HTTP status and `Retry-After` in seconds, if any. */
export interface PacedAnswer {
  status: number;
  retryAfterSeconds?: number;
}

/** Drops the counts of {@link PaceState.answered} older than the window. */
function prune(state: PaceState, nowS: number): void {
  for (const s of Object.keys(state.answered))
    if (Number(s) <= nowS - ESTIMATE_WINDOW_S) delete state.answered[s];
}

/**
 * Learns from one answer received at time `now` (ms), changing `state`: a 429 pauses every
 * request for its `Retry-After` and sets or cuts the learned rate (once per pause: the 429s of
 * requests sent before the pause began cut nothing); any other answer is counted and raises the
 * learned rate.
 */
export function observeAnswer(
  state: PaceState,
  settings: PaceSettings,
  answer: PacedAnswer,
  now: number,
): void {
  const nowS = Math.floor(now / 1000);
  prune(state, nowS);
  if (answer.status !== 429) {
    state.answered[nowS] = (state.answered[nowS] ?? 0) + 1;
    if (state.rate !== null && now > state.pausedUntil) {
      // Only time spent sending counts: at most two intervals of the rate since the last answer,
      // so a pause between operations does not raise the rate past what was learned.
      const sendingMs = Math.min(Math.max(0, now - state.raisedAt), 2000 / state.rate);
      const top = Math.min(MAX_PACE, LIMIT_SHARE * (state.limit ?? Infinity));
      state.rate = Math.max(state.rate, Math.min(top, state.rate * (1 + (CREEP_PER_S * sendingMs) / 1000)));
      state.raisedAt = now;
    }
    return;
  }
  const pauseMs =
    answer.retryAfterSeconds === undefined ? DEFAULT_PAUSE_MS : Math.max(0, answer.retryAfterSeconds * 1000);
  // A 429 answered while paused is of a request sent before the pause began: it teaches nothing new.
  const cut = now >= state.pausedUntil;
  state.pausedUntil = Math.max(state.pausedUntil, now + pauseMs);
  if (!cut) return;
  if (state.rate === null) {
    // The highest of the estimates over the last k seconds of answers, for every k: the seconds
    // before the sending began (a program still starting, an idle gap) only lower an estimate, and
    // a limit estimated too high is lowered by the next 429, one too low never raised.
    let counted = 0;
    let estimate = 0;
    for (const second of Object.keys(state.answered)
      .map(Number)
      .sort((a, b) => b - a)) {
      counted += state.answered[second];
      estimate = Math.max(estimate, counted / Math.max(nowS - second + pauseMs / 1000, 1));
    }
    state.limit = Math.max(MIN_RATE, Math.min(estimate, settings.maxRequestsPerSecond ?? Infinity));
    state.rate = Math.max(MIN_RATE, FIRST_CUT * state.limit);
  } else {
    state.limit = Math.min(state.limit ?? Infinity, state.rate);
    state.rate = Math.max(MIN_RATE, state.rate * LATER_CUT);
  }
  state.tokens = Math.min(1, settings.burst);
  state.at = state.pausedUntil;
  state.raisedAt = state.pausedUntil;
}

/**
 * What paces a client's requests. `Transport.call` awaits {@link Pacer.acquire} before every
 * attempt and tells {@link Pacer.observe} every answer.
 */
export interface Pacer {
  /** Resolves when one request may be sent (its token is then taken). */
  acquire(): Promise<void>;
  /** Learns from an answer (status, `Retry-After` in seconds). Never throws. */
  observe(answer: PacedAnswer): void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Checks a pace setting: the ceiling a positive number of requests per second up to
 * {@link MAX_PACE}, the burst a whole number of requests from 1 to {@link MAX_PACE}.
 * @param from - how the error names the setting (an option, a config key).
 * @throws Error naming `from`, the unit and the range.
 */
export function checkPace(kind: "maxRequestsPerSecond" | "burst", value: number, from: string): number {
  const ok =
    kind === "burst"
      ? Number.isInteger(value) && value >= 1 && value <= MAX_PACE
      : Number.isFinite(value) && value > 0 && value <= MAX_PACE;
  if (!ok) {
    const what =
      kind === "burst" ? `a whole number of requests from 1` : "a number of requests per second above 0";
    throw new Error(`${from} must be ${what} up to ${MAX_PACE}, got ${value}`);
  }
  return value;
}

/**
 * A pacer of one process: the state in memory, the waiting requests served first come, first
 * served. The default of every `ServiceClient`.
 */
export class LocalPacer implements Pacer {
  /** The state (exposed to tests and to the request log). */
  readonly state: PaceState = freshState();
  #queue: Promise<void> = Promise.resolve();

  /**
   * A pacer with nothing learned yet: a full bucket, no rate until a 429 teaches one.
   * @param settings - the ceiling (requests per second) and burst; without a ceiling, the rate is
   *   learned from 429s.
   * @param now - the clock, in **milliseconds** since the Unix epoch (tests give their own).
   */
  constructor(
    /** Ceiling and burst. */
    readonly settings: PaceSettings,
    private readonly now: () => number = Date.now,
  ) {}

  acquire(): Promise<void> {
    const turn = this.#queue.then(async () => {
      for (let wait = takeToken(this.state, this.settings, this.now()); wait > 0;) {
        await sleep(wait);
        wait = takeToken(this.state, this.settings, this.now());
      }
    });
    this.#queue = turn;
    return turn;
  }

  observe(answer: PacedAnswer): void {
    observeAnswer(this.state, this.settings, answer, this.now());
  }
}
