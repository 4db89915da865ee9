/**
 * TLS for tests: a throw-away certificate authority made with the `openssl` command line (Node's
 * crypto parses X.509 but cannot issue it), and the emulator served over TLS with a certificate
 * that authority signed.
 *
 * - {@link makeTestCa}: a CA and a server certificate for `127.0.0.1` and `localhost`, in a
 *   temporary folder that `remove()` deletes.
 * - {@link startTlsEmulator}: the in-process emulator (`startEmulator` of `./emulator`) behind a
 *   TLS listener of this process; `url` is `https://127.0.0.1:<port>`.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { type RunningEmulator, type StartEmulatorOptions, startEmulator } from "./emulator";

/** A throw-away CA and a server certificate it signed (PEM text, and the files they are in). */
export interface TestCa {
  /** The CA's certificate (PEM) and its file. */
  caPem: string;
  caPath: string;
  /** The server's certificate (PEM, signed by the CA; names `127.0.0.1` and `localhost`). */
  certPem: string;
  /** The server's private key (PEM). */
  keyPem: string;
  /** The temporary folder holding all files. */
  dir: string;
  /** Deletes the folder. */
  remove(): void;
}

/**
 * Makes a CA (P-256 key, valid one day, common name `name`) and a server certificate it signs,
 * with `openssl` (about 50 ms).
 * @throws Error when `openssl` is missing or fails: the tests that need TLS fail, not skip.
 */
export function makeTestCa(name = "pulumi-service test CA"): TestCa {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pulumi-service-ca-"));
  const file = (f: string) => path.join(dir, f);
  const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
  try {
    const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
    openssl(
      "req",
      "-x509",
      ...key,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "1",
      "-subj",
      `/CN=${name}`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
    );
    openssl("req", ...key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
    fs.writeFileSync(
      file("server.ext"),
      [
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "basicConstraints=critical,CA:FALSE",
        "keyUsage=critical,digitalSignature",
        "extendedKeyUsage=serverAuth",
      ].join("\n"),
    );
    openssl(
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "1",
      "-extfile",
      "server.ext",
    );
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? "";
    throw new Error(`openssl could not make the test CA: ${(err as Error).message} ${stderr}`);
  }
  return {
    caPem: fs.readFileSync(file("ca.pem"), "utf8"),
    caPath: file("ca.pem"),
    certPem: fs.readFileSync(file("server.pem"), "utf8"),
    keyPem: fs.readFileSync(file("server.key"), "utf8"),
    dir,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** An emulator served over TLS (see {@link startTlsEmulator}). */
export interface TlsEmulator extends RunningEmulator {
  /** `https://127.0.0.1:<port>`: the TLS listener (`plainUrl` is the emulator's own HTTP one). */
  url: string;
  /** The emulator's plain HTTP address, for the operator helpers. */
  plainUrl: string;
}

/**
 * Starts the in-process emulator and a TLS listener in front of it: each TLS connection is handed
 * to the emulator's HTTP server, as Node's `https.Server` does, so the emulator answers over TLS
 * itself (no second hop). The emulator's `uri` fields use the https URL.
 */
export async function startTlsEmulator(
  cert: { certPem: string; keyPem: string },
  opts: StartEmulatorOptions = {},
): Promise<TlsEmulator> {
  const emulator = await startEmulator(opts);
  const server = tls.createServer({ cert: cert.certPem, key: cert.keyPem }, (socket) => {
    emulator.app.server.emit("connection", socket);
  });
  // A client that gives up on the handshake (an untrusted certificate) resets the socket.
  server.on("tlsClientError", () => {});
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (opts.publicUrl === undefined) emulator.app.emulator.publicUrl = url;
  let closing: Promise<void> | undefined;
  return {
    ...emulator,
    url,
    plainUrl: emulator.url,
    close() {
      // The emulator's close ends the connections it was handed; then the listener can close.
      closing ??= emulator.close().then(() => new Promise<void>((resolve) => server.close(() => resolve())));
      return closing;
    },
  };
}
