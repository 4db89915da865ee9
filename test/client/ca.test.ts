/**
 * Trusting a private CA (client/ca.ts, the client's `caCertificate`): the emulator served over TLS
 * with a certificate from a CA made for the test; without that CA the call fails with an error
 * that says how to trust it, with it (as text, as a file, from the environment) it succeeds, and
 * Node's own `NODE_EXTRA_CA_CERTS` stays trusted beside it.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { APICertificateError, ServiceClient, ServiceError } from "../../client";
import { makeTestCa, startTlsEmulator, type TestCa, type TlsEmulator } from "../helpers/tls";
import { readCaCertificates, trustedCas } from "../../client/ca";
import tls from "node:tls";

const ED = `ed_${"A".repeat(27)}`;
const SUB = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED] };

let ca: TestCa;
let emulator: TlsEmulator;
const saved = { ...process.env };

beforeAll(async () => {
  ca = makeTestCa();
  emulator = await startTlsEmulator(ca);
});
afterAll(async () => {
  await emulator?.close();
  ca?.remove();
});
afterEach(() => {
  for (const k of ["SERVICE_CA_CERTIFICATE", "NODE_EXTRA_CA_CERTS"]) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

async function firstPage(client: ServiceClient) {
  try {
    for await (const page of client.eventSubscriptions.pages()) return page;
  } finally {
    await client.close();
  }
}

describe("a service whose certificate a private CA signed", () => {
  test("without the CA: an APICertificateError naming the CA settings, after one attempt", async () => {
    const client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    const err = await firstPage(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APICertificateError);
    const e = err as APICertificateError;
    expect(e.code).toBe("UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    expect(e.message).toContain("GET /event_subscriptions: the service's TLS certificate was rejected");
    for (const setting of [
      "caCertificate",
      "service:caCertificate",
      "SERVICE_CA_CERTIFICATE",
      "NODE_EXTRA_CA_CERTS",
    ])
      expect(e.message).toContain(setting);
    expect(e.requestNotSent).toBe(true);
    expect(e.attempts).toBe(1);
  });

  test("with the CA as PEM text: create and get over TLS", async () => {
    const client = new ServiceClient({
      apiKey: emulator.apiKeys[0],
      baseUrl: emulator.url,
      caCertificate: ca.caPem,
    });
    try {
      const dest = await client.eventDestinations.create({
        target: { datadog: { apiKey: "dd-secret", ddsite: "datadoghq.eu" } },
      } as never);
      const sub = await client.eventSubscriptions.create({ ...SUB, destinationIds: [dest.id] });
      expect((await client.eventSubscriptions.get(sub.id)).uri).toBe(
        `${emulator.url}/event_subscriptions/${sub.id}`,
      );
    } finally {
      await client.close();
    }
  });

  test("with the CA as a file path, and from SERVICE_CA_CERTIFICATE", async () => {
    const page = await firstPage(
      new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url, caCertificate: ca.caPath }),
    );
    expect(page?.items).toBeInstanceOf(Array);
    process.env.SERVICE_CA_CERTIFICATE = ca.caPath;
    const fromEnv = await firstPage(
      new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url }),
    );
    expect(fromEnv?.items).toBeInstanceOf(Array);
  });

  test("another CA than the one that signed: still rejected", async () => {
    const other = makeTestCa("another CA");
    try {
      const client = new ServiceClient({
        apiKey: emulator.apiKeys[0],
        baseUrl: emulator.url,
        caCertificate: other.caPem,
      });
      await expect(firstPage(client)).rejects.toBeInstanceOf(APICertificateError);
    } finally {
      other.remove();
    }
  });
});

describe("a CA setting that cannot be used: a ServiceError from the constructor, naming it", () => {
  const make = (caCertificate: string) => () =>
    new ServiceClient({ apiKey: "k", baseUrl: "https://127.0.0.1:9", caCertificate });

  test("a path to no file", () => {
    expect(make("/nonexistent/ca.pem")).toThrow(
      'ServiceClient: caCertificate: no such file: "/nonexistent/ca.pem". Give the CA certificate\'s PEM text',
    );
  });
  test("a folder", () => {
    expect(make(ca.dir)).toThrow(/^ServiceClient: caCertificate: it is a folder: /);
  });
  test("a file without a certificate", () => {
    const f = path.join(ca.dir, "empty.pem");
    fs.writeFileSync(f, "nothing here\n");
    expect(make(f)).toThrow(
      `ServiceClient: caCertificate: the file ${JSON.stringify(f)} holds no certificate`,
    );
  });
  test("a private key: refused, and not quoted", () => {
    let err: unknown;
    try {
      make(ca.caPem + ca.keyPem)();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as Error).message).toBe(
      "ServiceClient: caCertificate: the PEM text holds a private key; give only the CA's certificate (public), never a key.",
    );
  });
  test("a broken certificate block", () => {
    const broken = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
    expect(make(ca.caPem + broken)).toThrow(
      /^ServiceClient: caCertificate: certificate 2 of 2 in the PEM text is not a valid X.509 certificate/,
    );
  });
  test("from SERVICE_CA_CERTIFICATE: the variable is named", () => {
    process.env.SERVICE_CA_CERTIFICATE = "/nonexistent/ca.pem";
    expect(() => new ServiceClient({ apiKey: "k", baseUrl: "https://127.0.0.1:9" })).toThrow(
      /^SERVICE_CA_CERTIFICATE: no such file/,
    );
  });
  test("with a dispatcher of its own", () => {
    expect(
      () =>
        new ServiceClient({
          apiKey: "k",
          baseUrl: "https://127.0.0.1:9",
          caCertificate: ca.caPem,
          dispatcher: {} as never,
        }),
    ).toThrow("ServiceClient: caCertificate cannot be combined with dispatcher");
  });
});

/**
 * NODE_EXTRA_CA_CERTS is read by Node once, at start: a process of its own started with it
 * trusts CA A that way, and CA B through `caCertificate`; the client reaches a service signed by
 * each. An explicit CA list replaces Node's defaults, so forgetting NODE_EXTRA_CA_CERTS there
 * would lose A.
 */
test("NODE_EXTRA_CA_CERTS stays trusted with and without caCertificate", async () => {
  const b = makeTestCa("CA B");
  const other = await startTlsEmulator(b);
  try {
    const root = path.resolve(__dirname, "../..");
    const script = `
      require("ts-node").register({ transpileOnly: true, project: "tsconfig.json" });
      const { ServiceClient } = require("./client/client");
      const [targets, caB] = JSON.parse(process.argv[1]);
      (async () => {
        const out = [];
        for (const [url, key, withB] of targets) {
          const client = new ServiceClient({ apiKey: key, baseUrl: url, maxRetries: 0, caCertificate: withB ? caB : undefined });
          try {
            for await (const page of client.eventSubscriptions.pages()) break;
            out.push("ok");
          } catch (e) {
            out.push(e.name + " " + e.code);
          }
          await client.close();
        }
        console.log(JSON.stringify(out));
      })();`;
    const targets = [
      [emulator.url, emulator.apiKeys[0], false], // A, by NODE_EXTRA_CA_CERTS alone
      [emulator.url, emulator.apiKeys[0], true], // A, with B given
      [other.url, other.apiKeys[0], true], // B, by caCertificate
      [other.url, other.apiKeys[0], false], // B, not given: rejected
    ];
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ["-e", script, JSON.stringify([targets, b.caPem])],
        { cwd: root, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca.caPath, SERVICE_CA_CERTIFICATE: "" } },
        (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve(out)),
      ),
    );
    expect(JSON.parse(stdout)).toEqual([
      "ok",
      "ok",
      "ok",
      "APICertificateError UNABLE_TO_VERIFY_LEAF_SIGNATURE",
    ]);
  } finally {
    await other.close();
    b.remove();
  }
});

describe("readCaCertificates and trustedCas, in this process", () => {
  test("a path that cannot be read for another reason: the code, the path, and what to give instead", () => {
    const notAFolder = path.join(ca.caPath, "inside.pem");
    expect(() => readCaCertificates(notAFolder, "S")).toThrow(
      new ServiceError(
        `S: cannot read it (ENOTDIR): ${JSON.stringify(notAFolder)}. Give the CA certificate's PEM text ` +
          "(-----BEGIN CERTIFICATE----- …) or the path of a PEM file.",
      ),
    );
  });

  test("a certificate that does not parse: numbered, with the parser's reason in parentheses", () => {
    const broken = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n";
    expect(() => readCaCertificates(broken, "S")).toThrow(
      /^S: certificate 1 of 1 in the PEM text is not a valid X\.509 certificate \(.+\)$/,
    );
  });

  test("Node's root CAs, then the file of NODE_EXTRA_CA_CERTS (left out when it cannot be read), then the CAs given", () => {
    delete process.env.NODE_EXTRA_CA_CERTS;
    expect(trustedCas(["given"])).toEqual([...tls.rootCertificates, "given"]);
    process.env.NODE_EXTRA_CA_CERTS = ca.caPath;
    expect(trustedCas(["given"])).toEqual([
      ...tls.rootCertificates,
      fs.readFileSync(ca.caPath, "utf8"),
      "given",
    ]);
    process.env.NODE_EXTRA_CA_CERTS = path.join(ca.dir, "no-such.pem");
    expect(trustedCas(["given"])).toEqual([...tls.rootCertificates, "given"]);
  });
});

test("readCaCertificates keeps the certificates of a PEM text and passes over its other blocks (a CRL, a public key)", () => {
  const other = (label: string) => `-----BEGIN ${label}-----\nbm90IGEgY2VydA==\n-----END ${label}-----\n`;
  const certs = readCaCertificates(other("X509 CRL") + ca.caPem + other("PUBLIC KEY"), "S");
  expect(certs).toEqual([ca.caPem.trim()]);
});
