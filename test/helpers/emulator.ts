/**
 * Test helpers around the emulator, shared by every test suite (emulator, HTTP client, provider).
 *
 * - {@link startEmulator}: in-process emulator on a free port (`:memory:` store by default).
 * - {@link spawnEmulator}: the compiled command line (`packages/emulator/dist/cli.js`, built by
 *   `npm run build`) as a child process.
 * - {@link rawRequest} / {@link apiRequest}: plain `node:http` requests with full control over
 *   headers and bodies (bodies on GET, no Content-Type, malformed JSON, …), one connection each.
 * - Operator helpers: {@link getRequestLog}, {@link clearRequestLog}, {@link setFaults},
 *   {@link review}, {@link addApiKey}, {@link revokeApiKey}.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import path from "node:path";
// "service-emulator" is the package's sources (jest's moduleNameMapper, tsconfig's paths): the
// folder, packages/emulator, would be its package.json's main, the compiled dist of the last build.
import type { FaultConfig, RequestLogEntry } from "service-emulator";
import {
  startEmulator as startEmulatorApp,
  type RunningEmulator,
  type StartEmulatorOptions,
} from "service-emulator";
import { attachResponseValidation } from "./openapi";

export type { RunningEmulator, StartEmulatorOptions } from "service-emulator";

/**
 * The emulator in process (see `startEmulator` of `emulator/`), with every response it sends
 * validated against `docs/openapi.json`: `close()` rejects when any broke the document.
 */
export function startEmulator(opts: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulatorApp({
    ...opts,
    onApp: async (app) => {
      await attachResponseValidation(app as never);
      await opts.onApp?.(app);
    },
  });
}
export type { FaultConfig, RequestLogEntry } from "service-emulator";

/** Absolute path of the compiled command line. */
export const CLI_PATH = path.resolve(__dirname, "../../packages/emulator/dist/cli.js");

/** A response read in full. */
export interface RawResponse {
  status: number;
  /** Lower-cased header names. */
  headers: http.IncomingHttpHeaders;
  /** Body as text (`""` when none). */
  text: string;
  /** Body parsed as JSON (`undefined` when empty). @throws SyntaxError when it is not JSON. */
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A request for {@link rawRequest}. */
export interface RawRequest {
  method: string;
  /** Absolute URL. */
  url: string;
  /**
   * Request target sent verbatim instead of the URL's normalized path (e.g. `/./x`, `//x`,
   * `/%5Fx`): only scheme, host and port are taken from `url`.
   */
  path?: string;
  headers?: Record<string, string>;
  /** Sent as is; `Content-Length` is set from it unless `chunked` is true. */
  body?: string | Buffer;
  /** Send the body with `Transfer-Encoding: chunked` instead of a length. */
  chunked?: boolean;
  /** Milliseconds before the request is abandoned; default 30 000. */
  timeoutMs?: number;
  /** The connection pool to send it through (e.g. a keep-alive agent); default a fresh connection. */
  agent?: http.Agent;
}

/**
 * Sends one HTTP request (on a fresh connection unless `agent` is given) and reads the whole response.
 *
 * @throws Error when the connection fails or is reset (e.g. an injected `reset` fault), or on
 * timeout.
 */
export function rawRequest(req: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(req.url);
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (req.body !== undefined && !req.chunked)
      headers["content-length"] = String(Buffer.byteLength(req.body));
    const r = http.request(
      {
        method: req.method,
        hostname: u.hostname,
        port: u.port,
        path: req.path ?? u.pathname + u.search,
        headers,
        agent: req.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: () => (text === "" ? undefined : JSON.parse(text)),
          });
        });
      },
    );
    r.setTimeout(req.timeoutMs ?? 30_000, () => r.destroy(new Error(`timeout: ${req.method} ${req.url}`)));
    r.on("error", reject);
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/**
 * Calls the public API the way a client does: `Authorization: Bearer <apiKey>`,
 * `Service-Version: 2`, and for a body `Content-Type: application/json` (objects are
 * JSON-encoded; strings are sent as is). `headers` are added last; a header set to `""` is
 * left out.
 */
export function apiRequest(
  baseUrl: string,
  apiKey: string,
  method: string,
  urlPath: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const h: Record<string, string> = { authorization: `Bearer ${apiKey}`, "service-version": "2" };
  let payload: string | undefined;
  if (body !== undefined) {
    h["content-type"] = "application/json";
    payload = typeof body === "string" ? body : JSON.stringify(body);
  }
  for (const [k, v] of Object.entries(headers)) {
    if (v === "") delete h[k.toLowerCase()];
    else h[k.toLowerCase()] = v;
  }
  return rawRequest({ method, url: baseUrl + urlPath, headers: h, body: payload });
}

/**
 * Calls an operator endpoint (`/_operator/…`) of the emulator at `url` as is, whatever it
 * answers: `Authorization: Bearer <key>` (the admin key, or any key a test sends instead), and
 * for a body `Content-Type: application/json` (objects are JSON-encoded; strings are sent as is).
 *
 * @throws Error only when the connection fails (see {@link rawRequest}).
 */
export function operatorRequest(
  url: string,
  key: string,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<RawResponse> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return rawRequest({
    method,
    url: url + urlPath,
    headers,
    body: body === undefined || typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** {@link operatorRequest} with the admin key. @throws Error when the answer is not a 2xx. */
async function operator(
  url: string,
  adminKey: string,
  method: string,
  urlPath: string,
  body?: unknown,
): Promise<RawResponse> {
  const res = await operatorRequest(url, adminKey, method, urlPath, body);
  if (res.status >= 300) throw new Error(`${method} ${urlPath} answered ${res.status}: ${res.text}`);
  return res;
}

/**
 * Reads the emulator's request log: every entry whose `seq` is greater than `since`, oldest
 * first, following the pages of `GET /_operator/requests` (`{ requests, next_page_uri }`).
 */
export async function getRequestLog(
  url: string,
  adminKey: string,
  since?: number,
): Promise<{ requests: RequestLogEntry[] }> {
  const requests: RequestLogEntry[] = [];
  let next: string | null = `/_operator/requests${since === undefined ? "" : `?since=${since}`}`;
  while (next !== null) {
    const page: { requests: RequestLogEntry[]; next_page_uri: string | null } = (
      await operator(url, adminKey, "GET", next)
    ).json();
    requests.push(...page.requests);
    next =
      page.next_page_uri === null
        ? null
        : new URL(page.next_page_uri).pathname + new URL(page.next_page_uri).search;
  }
  return { requests };
}

/** The sequence number of the emulator's newest request log entry (0 when the log is empty). */
export async function lastRequestSeq(url: string, adminKey: string): Promise<number> {
  return Math.max(0, ...(await getRequestLog(url, adminKey)).requests.map((r) => r.seq));
}

/** Empties the emulator's request log. */
export async function clearRequestLog(url: string, adminKey: string): Promise<void> {
  await operator(url, adminKey, "DELETE", "/_operator/requests");
}

/** Replaces the fault configuration (`{}` switches injection off); returns the one now in force. */
export async function setFaults(url: string, adminKey: string, cfg: FaultConfig): Promise<FaultConfig> {
  return (await operator(url, adminKey, "PUT", "/_operator/faults", cfg)).json<FaultConfig>();
}

/** Operator review: sets hostname statuses of an abuse report; returns the report (wire form). */
export async function review(
  url: string,
  adminKey: string,
  id: string,
  hostnames: { hostname: string; status: "PENDING" | "BANNED" | "UNBANNED" | "IGNORE" }[],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<any> {
  return (
    await operator(url, adminKey, "POST", `/_operator/abuse_reports/${id}/review`, { hostnames })
  ).json();
}

/**
 * What `POST /_operator/keys` and `POST /_operator/keys/revoke` answer: the account (`acct_…`, as
 * the request log's `account_id`) and how many keys it has after the change. Never a key.
 */
export interface ApiKeyAccount {
  account_id: string;
  key_count: number;
}

/**
 * Key rotation: makes `newKey` a key of the account of `sameAccountAs` (`POST /_operator/keys`).
 * From then on `newKey` sees and manages that account's resources, as `sameAccountAs` does; the
 * emulator keeps its SHA-256 in the data file, so it outlives a restart on the same file.
 *
 * @throws Error with the error body when the emulator refuses (400 / 215: `sameAccountAs` is no
 * key it accepts, `newKey` is malformed or already a key of an account).
 */
export async function addApiKey(
  url: string,
  adminKey: string,
  newKey: string,
  sameAccountAs: string,
): Promise<ApiKeyAccount> {
  const body = { api_key: newKey, same_account_as: sameAccountAs };
  return (await operator(url, adminKey, "POST", "/_operator/keys", body)).json<ApiKeyAccount>();
}

/**
 * Revokes `key` (`POST /_operator/keys/revoke`): from then on it answers 401 / 203, as an unknown
 * key does, while the other keys of its account go on working. Returns the account and the
 * number of keys it has left.
 *
 * @throws Error with the error body when the emulator accepts no such key (404: unknown, or
 * revoked already).
 */
export async function revokeApiKey(url: string, adminKey: string, key: string): Promise<ApiKeyAccount> {
  return (
    await operator(url, adminKey, "POST", "/_operator/keys/revoke", { api_key: key })
  ).json<ApiKeyAccount>();
}

/** An emulator running as a child process (see {@link spawnEmulator}). */
export interface SpawnedEmulator {
  url: string;
  apiKeys: string[];
  restrictedApiKeys: string[];
  adminKey: string;
  process: ChildProcess;
  /** The line of JSON the emulator printed on start, as printed. */
  firstLine: string;
  /** Everything written to stdout after the first line (should stay empty). */
  stdoutRest(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code once the process is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs `node packages/emulator/dist/cli.js ...args` (build first with `npm run build`), waits for its one
 * line of JSON on stdout, and returns it with the child process.
 *
 * @param env - added to the current environment.
 * @throws Error when the CLI is not built, exits before printing, or prints nothing in 20 s.
 */
export function spawnEmulator(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<SpawnedEmulator> {
  if (!existsSync(CLI_PATH))
    return Promise.reject(new Error(`${CLI_PATH} is missing; run npm run build first`));
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));

  return new Promise<SpawnedEmulator>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      child.kill("SIGKILL");
      reject(new Error(`the emulator printed nothing in 20 s; stderr: ${stderr}`));
    }, 20_000);
    const onData = () => {
      const i = stdout.indexOf("\n");
      if (i < 0) return;
      cleanup();
      const line = stdout.slice(0, i);
      let info: { url: string; apiKeys: string[]; restrictedApiKeys: string[]; adminKey: string };
      try {
        info = JSON.parse(line);
      } catch {
        child.kill("SIGKILL");
        reject(new Error(`the emulator's first line is not JSON: ${line}`));
        return;
      }
      resolve({
        ...info,
        process: child,
        firstLine: line,
        stdoutRest: () => stdout.slice(i + 1),
        stderr: () => stderr,
        stop(signal: NodeJS.Signals = "SIGTERM") {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(
        new Error(`the emulator exited (${code ?? signal}) before printing its address; stderr: ${stderr}`),
      );
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      child.off("exit", onExit);
    };
    child.stdout!.on("data", onData);
    child.once("exit", onExit);
  });
}
