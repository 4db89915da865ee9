/**
 * Latency plugin (`onRequest` first among the public checks, and `onSend`): the round trip of a
 * network between the client and a real service, added to every answer of the public API.
 *
 * Each public request draws its round trip once, `latencyMs` give or take up to `jitterMs`
 * (uniform), and spends half of it on the way in (held before any check runs, so the rate limit
 * and the handler see it arrive that much later) and the other half on the way back (its answer,
 * an error included, held just before it is sent). So a client never gets an answer sooner than
 * `latencyMs - jitterMs` milliseconds after it sent the request, and a create is committed
 * before its answer reaches the client, as over a real network. The operator endpoints and the
 * OpenAPI document are not delayed (they are the emulator's, not the service's); a connection
 * reset by a fault gets no answer, so only its way in is held.
 *
 * Unlike the `latency` of the fault configuration (one delay before every public request,
 * changeable at run time), this is set once at start and has jitter; both add up when both
 * are set.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { accessOf } from "../routeInfo";

/** Largest round trip the latency options accept: 60,000 ms (a minute). */
export const LATENCY_MAX_MS = 60_000;

/** Options of {@link latencyPlugin}, in **milliseconds**. */
export interface LatencyOptions {
  /** Mean round trip added to every public answer: a whole number from 0 to {@link LATENCY_MAX_MS}. */
  latencyMs: number;
  /** Largest deviation from `latencyMs`, either way (uniform): from 0 to `latencyMs`. Default 0. */
  jitterMs?: number;
}

/**
 * Checks the latency options; `where` names them in the error (`latencyMs`/`latencyJitterMs`
 * for `createApp`, the flags for the command line).
 *
 * @throws Error naming the option and its range when `latencyMs` is not a whole number from 0
 *   to {@link LATENCY_MAX_MS}, or `jitterMs` not a whole number from 0 to `latencyMs`.
 */
export function checkLatency(
  opts: LatencyOptions,
  where: { latency: string; jitter: string } = { latency: "latencyMs", jitter: "latencyJitterMs" },
): Required<LatencyOptions> {
  const { latencyMs, jitterMs = 0 } = opts;
  if (!Number.isSafeInteger(latencyMs) || latencyMs < 0 || latencyMs > LATENCY_MAX_MS)
    throw new Error(
      `${where.latency} must be a whole number of milliseconds from 0 to ${LATENCY_MAX_MS}, got ${String(latencyMs)}`,
    );
  if (!Number.isSafeInteger(jitterMs) || jitterMs < 0 || jitterMs > latencyMs)
    throw new Error(
      `${where.jitter} must be a whole number of milliseconds from 0 to ${where.latency} (${latencyMs}), got ${String(jitterMs)}`,
    );
  return { latencyMs, jitterMs };
}

declare module "fastify" {
  interface FastifyRequest {
    /** The request's round trip in ms (see the latency plugin), `null` until drawn. */
    roundTripMs: number | null;
  }
}

/**
 * The latency (see the module comment). Registered only when `latencyMs` or `jitterMs` is above
 * 0; `random` (default `Math.random`) draws the jitter.
 *
 * @throws Error from {@link checkLatency} when the options are out of range.
 */
export const latencyPlugin = fp<LatencyOptions & { random?: () => number }>(
  (app, opts, done) => {
    const { latencyMs, jitterMs } = checkLatency(opts);
    const random = opts.random ?? Math.random;
    const draw = () => Math.max(0, Math.round(latencyMs + (2 * random() - 1) * jitterMs));
    app.decorateRequest("roundTripMs", null);
    app.addHook("onRequest", (request, _reply, next) => {
      if (accessOf(request) !== "public") {
        next();
        return;
      }
      request.roundTripMs = draw();
      // Unref'd: a request whose client has gone must not hold a closing emulator's process.
      setTimeout(next, Math.floor(request.roundTripMs / 2)).unref();
    });
    app.addHook("onSend", (request, _reply, payload, next) => {
      const total = request.roundTripMs;
      if (total === null) {
        next(null, payload);
        return;
      }
      setTimeout(() => next(null, payload), total - Math.floor(total / 2)).unref();
    });
    done();
  },
  { name: "latency" },
);
