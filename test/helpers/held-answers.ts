/**
 * A reverse proxy for engine tests that holds the service's answers: every request is forwarded
 * to the service at once (so the service does what it asks), but the answers of the requests
 * chosen with `hold` reach the client only after a delay. To a client with a shorter timeout, such
 * a create is one the service finished after the timeout fired.
 */
import * as http from "node:http";
import { listenLocally } from "./local-server";

/** A running proxy (see {@link startHoldingProxy}). */
export interface HoldingProxy {
  /** `http://127.0.0.1:<port>`: the base URL to give the provider instead of the service's. */
  url: string;
  /**
   * From now on, holds the answer of each request whose path starts with `path` (of any method,
   * or only of `method` when given: `POST`) until `ms` **milliseconds** after it arrived;
   * `undefined` stops holding.
   */
  hold(rule: { method?: string; path: string; ms: number } | undefined): void;
  /** How many requests were held so far. */
  held(): number;
  /** Stops the proxy and ends its connections. */
  close(): Promise<void>;
}

/**
 * Starts the proxy in front of `target` (the service's base URL, `http://host:port`), on a free
 * port of 127.0.0.1. Headers go through unchanged (`Host` included, so the service's URIs name the
 * proxy).
 * @throws the listen error when no port can be bound.
 */
export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  let rule: { method?: string; path: string; ms: number } | undefined;
  let held = 0;
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const arrived = Date.now();
    const holdMs =
      rule && (rule.method ?? req.method) === req.method && (req.url ?? "").startsWith(rule.path)
        ? rule.ms
        : 0;
    if (holdMs > 0) held++;
    const out = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          const send = () => {
            if (res.destroyed) return;
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(chunks));
          };
          setTimeout(send, Math.max(0, arrived + holdMs - Date.now())).unref();
        });
      },
    );
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  const listening = await listenLocally(server);
  return {
    url: listening.url,
    hold: (r) => {
      rule = r;
    },
    held: () => held,
    close: listening.close,
  };
}
