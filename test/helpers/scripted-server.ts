/**
 * A tiny HTTP server for client tests: each incoming request is answered by the next step of a
 * script (the last step repeats). Records every request it sees.
 */
import http from "node:http";
import { listenLocally } from "./local-server";

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One scripted answer. Return nothing; write to `res`, destroy the socket, or never answer. */
export type Step = (req: SeenRequest, res: http.ServerResponse, socket: import("node:net").Socket) => void;

export interface ScriptedServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/** JSON answer with an `Operation-Id` header. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Step {
  return (_req, res) => {
    res.writeHead(status, {
      "content-type": "application/json",
      "operation-id": `op_${"x".repeat(27)}`,
      ...headers,
    });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  };
}

/**
 * The last page of the list of `collection` (e.g. `event_subscriptions`), as the service answers
 * it: `items` (wire form, snake_case; none by default), no next page.
 */
export function lastPage(collection: string, items: unknown[] = []): Step {
  return json(200, { [collection]: items, uri: `http://svc/${collection}`, next_page_uri: null });
}

/** The service's error body. */
export function serviceError(
  status: number,
  code: number,
  msg: string,
  headers: Record<string, string> = {},
): Step {
  const opId = `op_${"E".repeat(27)}`;
  return json(
    status,
    { error_code: `ERR_SERVICE_${code}`, status_code: status, msg, details: { operation_id: opId } },
    { "operation-id": opId, ...headers },
  );
}

/** 503 with `Retry-After: 0`: the service turning a request away for now, so even a POST is sent again. */
export const busy: Step = serviceError(503, 500, "busy", { "retry-after": "0" });

/** Kills the connection without answering (after the request was read). */
export const reset: Step = (_req, _res, socket) => {
  socket.destroy();
};

/** Never answers. */
export const hang: Step = () => undefined;

export async function startScriptedServer(steps: Step[]): Promise<ScriptedServer> {
  const requests: SeenRequest[] = [];
  let i = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      requests.push(seen);
      const step = steps[Math.min(i++, steps.length - 1)];
      step(seen, res, req.socket);
    });
  });
  return { ...(await listenLocally(server)), requests };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A well-formed ID with the given prefix; `n` varies the body. */
export function fakeId(prefix: string, n = 0): string {
  let body = "";
  let x = n;
  for (let k = 0; k < 27; k++) {
    body = BASE62[x % 62] + body;
    x = Math.floor(x / 62);
  }
  return prefix + body;
}

/** The fields every resource the service returns has (snake_case), in `collection` (a URL). */
function wireCommon(collection: string, id: string, description: string): Record<string, unknown> {
  return { id, uri: `${collection}/${id}`, created_at: "2026-11-21T09:30:00Z", metadata: "", description };
}

/**
 * An event destination as the service returns it (snake_case): destination `n`, a Firehose target
 * whose write-only secret comes back blank.
 */
export function wireDestination(base: string, n = 1): Record<string, unknown> {
  const id = fakeId("ed_", n);
  return {
    ...wireCommon(`${base}/event_destinations`, id, ""),
    format: "json",
    target: {
      firehose: {
        auth: { creds: { aws_access_key_id: "AK", aws_secret_access_key: "" } },
        delivery_stream_arn: "arn:x",
      },
    },
  };
}

/** A wire-form (snake_case) event subscription. */
export function wireSubscription(base: string, n = 0): Record<string, unknown> {
  const id = fakeId("esb_", n);
  const ed = fakeId("ed_", n);
  return {
    ...wireCommon(`${base}/event_subscriptions`, id, `sub ${n}`),
    sources: [
      { type: "ip_policy_created.v0", uri: `${base}/event_subscriptions/${id}/sources/ip_policy_created.v0` },
    ],
    destinations: [{ id: ed, uri: `${base}/event_destinations/${ed}` }],
  };
}
