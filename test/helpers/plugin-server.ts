/**
 * A plugin server for tests: serves the files of one folder over HTTP on 127.0.0.1, as a
 * release's assets are served, and records every path asked for (the engine's and
 * `pulumi plugin install --server`'s downloads).
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";

/** A running plugin server. */
export interface PluginServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Every path asked for, in order (`/pulumi-resource-service-v0.1.0-linux-amd64.tar.gz`…). */
  requests: string[];
  /** Stops the server. */
  close(): Promise<void>;
}

/**
 * Serves the files directly in `dir` (no listing, no subfolders): 200 with the file, 404 otherwise.
 * @throws the listen error when no port of 127.0.0.1 can be bound.
 */
export async function startPluginServer(dir: string): Promise<PluginServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(name);
    const file = path.join(dir, path.basename(name));
    if (path.dirname(name) !== "/" || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end(`not found: ${name}`);
      return;
    }
    res.writeHead(200, { "content-type": "application/gzip", "content-length": statSync(file).size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
