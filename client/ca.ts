/**
 * Trusting a private certificate authority: reading a CA setting (PEM text or the path of a PEM
 * file), checking it, and the full list of CAs a connection then trusts. Loads no undici, so the
 * provider can check its configuration without the HTTP stack. Internal: not exported from
 * `client/index.ts`.
 *
 * @packageDocumentation
 */
import { X509Certificate } from "node:crypto";
import fs from "node:fs";
import tls from "node:tls";
import { ServiceError } from "./errors";

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * Reads a CA setting: PEM text (it contains `-----BEGIN CERTIFICATE-----`) or, otherwise, the
 * path of a PEM file (a relative path is taken from the process's working directory). Returns
 * each certificate's PEM block, checked to parse as X.509.
 *
 * @param value - the setting's value.
 * @param setting - how the user names the setting (e.g. `service:caCertificate`), put at the
 *   start of every error.
 * @throws ServiceError naming `setting` when the file cannot be read, when the text holds no
 *   certificate, holds a private key, or holds a certificate that does not parse. The error
 *   never quotes the text itself, only the path.
 */
export function readCaCertificates(value: string, setting: string): string[] {
  const inline = value.includes("-----BEGIN");
  let text = value;
  const where = inline ? "the PEM text" : `the file ${JSON.stringify(value)}`;
  if (!inline) {
    try {
      text = fs.readFileSync(value, "utf8");
    } catch (err) {
      const code = (err as { code?: string }).code ?? "";
      const why =
        code === "ENOENT"
          ? "no such file"
          : code === "EISDIR"
            ? "it is a folder"
            : `cannot read it (${code})`;
      throw new ServiceError(
        `${setting}: ${why}: ${JSON.stringify(value)}. Give the CA certificate's PEM text ` +
          "(-----BEGIN CERTIFICATE----- …) or the path of a PEM file.",
      );
    }
  }
  const blocks = [...text.matchAll(PEM_BLOCK)];
  if (blocks.some((b) => b[1].includes("PRIVATE KEY"))) {
    throw new ServiceError(
      `${setting}: ${where} holds a private key; give only the CA's certificate (public), never a key.`,
    );
  }
  const certs = blocks.filter((b) => b[1] === "CERTIFICATE").map((b) => b[0]);
  if (certs.length === 0) {
    throw new ServiceError(
      `${setting}: ${where} holds no certificate (a block -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----).`,
    );
  }
  certs.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch (err) {
      throw new ServiceError(
        `${setting}: certificate ${i + 1} of ${certs.length} in ${where} is not a valid X.509 certificate ` +
          `(${(err as Error).message})`,
      );
    }
  });
  return certs;
}

/**
 * The CAs a connection trusts when a CA is configured: Node's bundled root CAs, the file of
 * `NODE_EXTRA_CA_CERTS` (Node adds it to its defaults, but an explicit list replaces them, so it
 * is read again here; a file that cannot be read is left out, as Node does after its start-up
 * warning), then `extra`.
 */
export function trustedCas(extra: string[]): string[] {
  const cas = [...tls.rootCertificates];
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file) {
    try {
      cas.push(fs.readFileSync(file, "utf8"));
    } catch {
      // Node has warned about it at start-up and goes on without it.
    }
  }
  return [...cas, ...extra];
}
