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
 * The emulator's one latency: its settings live in the fault configuration (`latencyMs`,
 * `latencyJitterMs`; `app.faults.latency`), set at start (`--latency-ms`, `--latency-jitter-ms`,
 * `--faults latency:…`, or the `createApp` options of the same names) and at run time
 * (`PUT /_operator/faults`), and read at each request, so a change applies from the next one.
 *
 * @packageDocumentation
 */
import fp from "fastify-plugin";
import { LATENCY_MAX_MS } from "service-contract";
import { accessOf } from "../routeInfo";

export { LATENCY_MAX_MS };

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

/** Options of {@link latencyPlugin}. */
export interface LatencyPluginOptions {
  /** The latency in force, read at each public request (`app.faults.latency` in the app). */
  current: () => Required<LatencyOptions>;
  /** Draws the jitter: numbers in [0, 1). Default `Math.random`. */
  random?: () => number;
}

/**
 * The latency (see the module comment): holds each public request half its round trip on the
 * way in and the rest on the way back; costs nothing while the latency in force is 0.
 */
export const latencyPlugin = fp<LatencyPluginOptions>(
  (app, opts, done) => {
    const random = opts.random ?? Math.random;
    app.decorateRequest("roundTripMs", null);
    app.addHook("onRequest", (request, _reply, next) => {
      const { latencyMs, jitterMs } = opts.current();
      if ((latencyMs === 0 && jitterMs === 0) || accessOf(request) !== "public") {
        next();
        return;
      }
      request.roundTripMs = Math.max(0, Math.round(latencyMs + (2 * random() - 1) * jitterMs));
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
