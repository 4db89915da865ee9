/**
 * A static file server for tests that serves a whole folder tree over HTTP on 127.0.0.1, the way
 * a package index is served: a Python "simple" index (PEP 503) and a Go module proxy are plain
 * files, so this is all either needs. It records every path asked for, so that a test can check
 * who asked for what (pip for `/simple/pulumi-service/`, Go for `…/@v/v0.1.0.zip`).
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { createServer } from "node:http";
import * as path from "node:path";
import { listenLocally } from "./local-server";

/** A running file tree server. */
export interface FileTreeServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Every path asked for, in order, decoded, without the query (`/simple/pulumi-service/`…). */
  requests: string[];
  /** Stops the server (resolves once every connection is closed). */
  close(): Promise<void>;
}

/** Content types by file extension; anything else is `application/octet-stream`. */
const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".json": "application/json",
  ".info": "application/json",
  ".mod": "text/plain; charset=utf-8",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".whl": "application/zip",
};

/**
 * Serves the files below `root` for GET and HEAD: a file's path is its URL path (200 with the
 * file); a path ending in `/` serves that folder's `index.html` (404 without one); a folder asked
 * for without the trailing `/` is redirected (301) to it, as web servers do, so relative links of
 * an index page resolve. Everything else, and any path leaving `root`, is 404; other methods 405.
 * The files are read when asked for, so the tree may change while the server runs.
 * @throws the listen error when no port of 127.0.0.1 can be bound.
 */
export async function startFileTreeServer(root: string): Promise<FileTreeServer> {
  const base = path.resolve(root);
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname);
    requests.push(name);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405).end();
      return;
    }
    let file = path.join(base, name);
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(404).end(`not found: ${name}`);
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) {
      if (!name.endsWith("/")) {
        res.writeHead(301, { location: `${name}/` }).end();
        return;
      }
      file = path.join(file, "index.html");
    }
    if (!existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end(`not found: ${name}`);
      return;
    }
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "content-length": statSync(file).size,
    });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
  });
  return { ...(await listenLocally(server)), requests };
}
