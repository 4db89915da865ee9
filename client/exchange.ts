/**
 * One HTTP exchange through undici's `Dispatcher.dispatch`: the request is sent and the whole
 * answer read into a string. It is what `Dispatcher.request` does for the client, without the
 * parts it does not use: the answer's body as a stream and an abort signal to listen to. On the
 * benchmark's sequential GETs that is about a tenth of a request's time (docs/performance.md
 * § Client). Internal: not exported from `client/index.ts`.
 *
 * @packageDocumentation
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";

/** A complete answer: status, headers (names in lower case) and the body decoded as UTF-8. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** An exchange under way: its outcome, and a way to abort it. */
export interface Exchange {
  /** The answer, or the error that ended the exchange (undici's, or the reason given to `abort`). */
  done: Promise<Answer>;
  /**
   * Ends the exchange now: `done` rejects with `reason` at once, and the request is aborted
   * (closing its connection) as soon as undici has started it, if it has not yet.
   */
  abort(reason: Error): void;
}

/** The handler of one exchange (undici's `DispatchHandler` interface). */
class Collector implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: Error | undefined;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  readonly #chunks: Buffer[] = [];
  #settled = false;

  constructor(
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (err: Error) => void,
  ) {}

  abort(reason: Error): void {
    this.#abortReason ??= reason;
    this.#controller?.abort(reason);
    this.fail(reason);
  }

  fail(err: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.reject(err);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason) controller.abort(this.#abortReason);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.#status = status;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    const body = this.#chunks.length === 1 ? this.#chunks[0] : Buffer.concat(this.#chunks);
    this.resolve({ status: this.#status, headers: this.#headers, text: body.toString("utf8") });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.fail(err);
  }
}

/**
 * Starts one exchange on `dispatcher` (any undici `Dispatcher`: the client's `Agent`, a
 * `ProxyAgent`, a `MockAgent`).
 */
export function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions): Exchange {
  let collector!: Collector;
  const done = new Promise<Answer>((resolve, reject) => {
    collector = new Collector(resolve, reject);
  });
  try {
    dispatcher.dispatch(options, collector);
  } catch (err) {
    collector.fail(err instanceof Error ? err : new Error(String(err)));
  }
  return { done, abort: (reason) => collector.abort(reason) };
}
