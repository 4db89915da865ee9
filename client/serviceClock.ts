/**
 * The service's clock as this client has seen it, so that a question such as "what did the
 * service make since this create started?" is asked in the service's time (its `created_at`
 * comes from its own clock), not this machine's, whatever the skew between them.
 *
 * **Which answers count.** Only the service's own successful answers: a 2xx that carries the
 * service's `Operation-Id` header (the service, and the emulator, send it on every answer). A
 * gateway's or a proxy's own page (a 502 or a 504, whose `Date` is the gateway's clock: nginx
 * sends its own by default) has no `Operation-Id` and a 2xx without one is not known to be the
 * service's; neither tells the service's clock. Error answers of the service count neither:
 * only what is known to come from the service that made the resources is taken.
 *
 * **Local time is monotonic.** Each answer's `Date` (whole seconds, RFC 9110) is held against
 * {@link monotonicNowMs} (`performance.timeOrigin + performance.now()`), which NTP steps of this
 * machine's clock do not move, rather than `Date.now()`: a local clock stepped between the start
 * of a create and the answers that tell the service's clock would move the estimate by the step.
 * Callers that ask {@link ServiceClock.now} about a local time of their own (the start of a
 * create) must read it from {@link monotonicNowMs} too. (A monotonic clock may not count the time
 * this machine sleeps: answers after a wake-up then give larger offsets, and the minimum keeps the
 * earlier ones until they fade out, which errs on the early side.)
 *
 * **The estimate is a lower bound: the minimum of recent offsets.** Each answer gives an offset,
 * `Date` − local time of arrival, which is at most the true (service − local) offset: the `Date`
 * is the service's time cut to whole seconds when it answered, and the answer arrived later.
 * The clock keeps the offsets of the last {@link SERVICE_CLOCK_SAMPLES} answers that came within
 * {@link SERVICE_CLOCK_WINDOW_MS} of the latest one and uses their **minimum**, the most
 * conservative of these lower bounds. The latest offset alone (what a "last one wins" clock
 * uses) can be pushed ahead by one odd answer, such as a replica of the service whose clock runs
 * ahead of the one that stamps `created_at`; the minimum cannot: it stays at or below the clock of
 * every replica seen in the window. A minimum is pulled back by a late answer instead (its
 * transit is subtracted), which only widens a lookup's window by that transit; the bounds let such
 * an answer, or a service clock stepped forward, fade out after 32 answers or 5 minutes. The
 * window is counted from the latest answer, so the estimate never lapses back to unknown.
 *
 * **The margin a lookup needs with it.** A resource made after local time `t` has a `created_at`
 * of at least `floor(service time at t)`, more than the service's time at `t` less a second,
 * itself at least the estimate at `t`: `created_at > estimate(t) − 1000 ms`. So a lookup reaching
 * back from the estimate needs 1000 ms for `created_at`'s whole seconds, plus the drift between the two clocks since the answers in the window (at most 5
 * minutes × a few hundred ppm: well under 100 ms), plus any skew between replicas of the service
 * that no answer in the window came from. The provider's `SERVICE_CLOCK_MARGIN_MS` of 2000 ms
 * covers the first two with about 900 ms to spare for the last; it need not change.
 *
 * @packageDocumentation
 */

/**
 * This machine's time in **milliseconds** since the Unix epoch, from a monotonic clock:
 * `performance.timeOrigin + performance.now()`, the wall-clock time at which the process started
 * plus the monotonic time since. NTP steps of the wall clock (and `Date.now()`) do not move it;
 * it may differ from `Date.now()` by the steps made since the process started. The local time
 * {@link ServiceClock} uses by default, and the one its callers must give it. Throws nothing.
 */
export function monotonicNowMs(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * How many answers' offsets {@link ServiceClock} keeps at most (the latest ones): the estimate is
 * the minimum of them.
 */
export const SERVICE_CLOCK_SAMPLES = 32;

/**
 * How long, in **milliseconds** of local (monotonic) time before the latest answer, an answer's
 * offset is kept by {@link ServiceClock}: 5 minutes, so that the drift between the two clocks
 * since the oldest offset used stays well under 100 ms.
 */
export const SERVICE_CLOCK_WINDOW_MS = 5 * 60_000;

/** What {@link ServiceClock.observeAnswer} reads of a response. */
export interface ServiceAnswer {
  /** The HTTP status, e.g. `200` or `502`. */
  status: number;
  /** The `Operation-Id` header, which only the service sends; `undefined` when absent. */
  operationId: string | undefined;
  /** The `Date` header (RFC 9110, whole seconds); `undefined` when absent. */
  date: string | undefined;
}

/** One answer's offset: (its `Date` − the local time it arrived), in **milliseconds**. */
interface Sample {
  localMs: number;
  offsetMs: number;
}

/**
 * The service's clock, estimated from the `Date` headers of its own 2xx answers: a lower bound of
 * the service's time, the minimum of the offsets of the last {@link SERVICE_CLOCK_SAMPLES}
 * answers within {@link SERVICE_CLOCK_WINDOW_MS} of the latest (see the module's comment). Local
 * times are **milliseconds** since the Unix epoch from {@link monotonicNowMs} by default.
 */
export class ServiceClock {
  /** The offsets kept, in the order they were observed. */
  #samples: Sample[] = [];
  /** The latest local time an answer arrived at, in **milliseconds**; `-Infinity` before any. */
  #latestMs = Number.NEGATIVE_INFINITY;

  /**
   * Takes a response when it counts, read at local time `localMs` (**milliseconds** since the
   * Unix epoch, default {@link monotonicNowMs}): a 2xx (200–299) carrying a non-empty
   * `Operation-Id`, the service's own answer, whose `Date` is then given to {@link observe}. Any
   * other response (a gateway's 502 or 504, a 2xx without `Operation-Id`, an error of the
   * service) changes nothing. Throws nothing.
   */
  observeAnswer(answer: ServiceAnswer, localMs: number = monotonicNowMs()): void {
    if (answer.status < 200 || answer.status > 299) return;
    if (!answer.operationId?.trim()) return;
    this.observe(answer.date, localMs);
  }

  /**
   * Takes a `Date` header known to be the service's (see {@link observeAnswer} for which are),
   * read at local time `localMs` (**milliseconds** since the Unix epoch, default
   * {@link monotonicNowMs}): its offset joins the recent ones, and those older than
   * {@link SERVICE_CLOCK_WINDOW_MS} before the latest, or beyond the last
   * {@link SERVICE_CLOCK_SAMPLES}, are dropped. A `Date` is the service's time cut to whole
   * seconds when it answered, so the offset is a lower bound, by up to a second and the answer's
   * transit. A missing or malformed header changes nothing. Throws nothing.
   */
  observe(dateHeader: string | undefined, localMs: number = monotonicNowMs()): void {
    if (!dateHeader) return;
    const serviceMs = Date.parse(dateHeader);
    if (Number.isNaN(serviceMs) || !Number.isFinite(localMs)) return;
    this.#latestMs = Math.max(this.#latestMs, localMs);
    const oldest = this.#latestMs - SERVICE_CLOCK_WINDOW_MS;
    this.#samples = [...this.#samples, { localMs, offsetMs: serviceMs - localMs }]
      .filter((s) => s.localMs >= oldest)
      .slice(-SERVICE_CLOCK_SAMPLES);
  }

  /**
   * The service's time at local time `localMs` (**milliseconds** since the Unix epoch, default
   * {@link monotonicNowMs}; a caller's own local time must come from it too), in **milliseconds**
   * since the Unix epoch: a lower bound, `localMs` plus the least offset kept, behind the
   * service's clock by up to a second and an answer's transit, given the clocks keep their pace
   * since those answers; `undefined` when no answer has told it yet. Throws nothing.
   */
  now(localMs: number = monotonicNowMs()): number | undefined {
    if (this.#samples.length === 0) return undefined;
    let least = Number.POSITIVE_INFINITY;
    for (const s of this.#samples) least = Math.min(least, s.offsetMs);
    return localMs + least;
  }
}
