/**
 * The service's clock as this client has seen it: every response's `Date` header (whole seconds,
 * RFC 9110) against this machine's clock when the response arrived. The service's `created_at`
 * comes from its own clock, so a question such as "what did the service make since this create
 * started?" is asked in the service's time, not this machine's, whatever the skew between them.
 *
 * @packageDocumentation
 */

/** The service's clock, estimated from the `Date` headers of its responses. */
export class ServiceClock {
  /** The latest estimate of (service time − local time), in **milliseconds**; `undefined` before any `Date`. */
  #offsetMs: number | undefined;

  /**
   * Takes a response's `Date` header, read at local time `localMs` (**milliseconds** since the Unix
   * epoch). A `Date` is the service's time cut to whole seconds when it answered, so the estimate
   * is a lower bound of the service's time, by up to a second and the answer's transit. A missing
   * or malformed header changes nothing.
   */
  observe(dateHeader: string | undefined, localMs: number): void {
    if (!dateHeader) return;
    const serviceMs = Date.parse(dateHeader);
    if (Number.isNaN(serviceMs)) return;
    this.#offsetMs = serviceMs - localMs;
  }

  /**
   * The service's time at local time `localMs` (default now), in **milliseconds** since the Unix
   * epoch: a lower bound, by up to a second and a response's transit, given the clocks keep their
   * pace since the last `Date` seen; `undefined` when no response has carried one yet.
   */
  now(localMs: number = Date.now()): number | undefined {
    return this.#offsetMs === undefined ? undefined : localMs + this.#offsetMs;
  }
}
