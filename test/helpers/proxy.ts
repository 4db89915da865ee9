/**
 * An HTTP proxy for tests: the npm package `proxy` (an ES module, so it runs in a child process
 * of its own rather than in Jest's module system), listening on 127.0.0.1, reporting every
 * `CONNECT` it tunnels and every plain request it forwards.
 */
import { spawn } from "node:child_process";
import path from "node:path";

/** A running proxy (see {@link startProxy}). */
export interface TestProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Targets of the `CONNECT` requests seen so far, e.g. `127.0.0.1:40123`. */
  connects(): string[];
  /** Absolute URLs of the plain (not tunnelled) requests seen so far. */
  forwarded(): string[];
  /** Stops the child process. */
  close(): Promise<void>;
}

const SCRIPT = `
import http from "node:http";
import { createProxy } from "proxy";
const server = createProxy(http.createServer());
const say = (o) => process.stdout.write(JSON.stringify(o) + "\\n");
server.on("connect", (req) => say({ connect: req.url }));
server.on("request", (req) => say({ request: req.url }));
server.listen(0, "127.0.0.1", () => say({ port: server.address().port }));
`;

/**
 * Starts the proxy in a child process; resolves once it listens.
 * @throws Error when the package is missing or the proxy prints nothing in 10 s.
 */
export function startProxy(): Promise<TestProxy> {
  const root = path.resolve(__dirname, "../..");
  const child = spawn(process.execPath, ["--input-type=module", "-e", SCRIPT], {
    cwd: root,
    // The proxy itself goes direct, whatever the test sets.
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const connects: string[] = [];
  const forwarded: string[] = [];
  let stderr = "";
  let buffered = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise<TestProxy>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the proxy printed nothing in 10 s; stderr: ${stderr}`));
    }, 10_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the proxy exited (${code}); stderr: ${stderr}`));
    });
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      buffered += d;
      let i: number;
      while ((i = buffered.indexOf("\n")) >= 0) {
        const msg = JSON.parse(buffered.slice(0, i)) as { port?: number; connect?: string; request?: string };
        buffered = buffered.slice(i + 1);
        if (msg.connect) connects.push(msg.connect);
        if (msg.request) forwarded.push(msg.request);
        if (msg.port) {
          clearTimeout(timer);
          resolve({
            url: `http://127.0.0.1:${msg.port}`,
            connects: () => [...connects],
            forwarded: () => [...forwarded],
            close: () => {
              if (child.exitCode === null && child.signalCode === null) child.kill();
              return exited;
            },
          });
        }
      }
    });
  });
}
