/**
 * Hostile requests, property-based (fast-check), over real HTTP to an emulator started in-process
 * (test/helpers/fuzz-http.ts): headers (Authorization, Service-Version, Content-Type variants),
 * operator paths in encoded spellings, paths (random segments, encoded characters, wrong
 * prefixes, very long IDs), query strings (`limit`, `before_id` junk) and raw bytes on a socket.
 * The checks of every case are those of fuzz-bodies.test.ts: an answer within the timeout, never
 * a 5xx, the service's error body, nothing changed by a rejected request.
 *
 * `RELIABILITY_LONG=1` runs ten times as many cases; `FUZZ_SEED=<n>` replays a run.
 */
import fc from "fast-check";
import net from "node:net";
import { TEST_TIMEOUT_MS, WRONG_IDS, idLike, runs } from "../helpers/fuzz-arbitraries";
import {
  A,
  ADMIN,
  B,
  BODY_ENDPOINTS,
  R,
  REQUEST_TIMEOUT_MS,
  counts,
  encodedOperatorPath,
  expectErrorShape,
  fill,
  port,
  runCase,
  sendable,
  setSnapshot,
  snap,
  snapshot,
  statuses,
  std,
  useFuzzEmulator,
  PATHS,
} from "../helpers/fuzz-http";

useFuzzEmulator();

describe("the emulator under hostile requests", () => {
  it(
    "headers: Authorization, Service-Version, Content-Type and body variants on every route",
    async () => {
      // Each header is well formed about half of the time, so that later checks are reached too.
      const authorization = fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(`Bearer ${A}`, `Bearer ${B}`, `Bearer ${R}`) },
        fc.constantFrom(
          undefined,
          `Bearer ${A}`,
          `Bearer ${B}`,
          `Bearer ${R}`,
          `Bearer ${ADMIN}`,
          "Bearer",
          "Bearer ",
          `bearer ${A}`,
          `BEARER   ${A}`,
          `Bearer ${A} extra`,
          `Bearer ${A}x`,
          `Bearer ${A.slice(0, -1)}`,
          `Basic ${Buffer.from(`${A}:`).toString("base64")}`,
          `Token ${A}`,
          A,
          "Bearer " + "a".repeat(512),
          "Bearer " + "a".repeat(513),
          "Bearer " + "a".repeat(8000),
          "Bearer é",
          `Bearer\t${A}`,
        ),
        fc.string({ unit: "binary-ascii", maxLength: 40 }).map((s) => `Bearer ${sendable(s)}`),
        fc.string({ unit: "binary", maxLength: 40 }).map(sendable),
      );
      const version = fc.oneof(
        { weight: 3, arbitrary: fc.constant("2") },
        fc.constantFrom(undefined, "2", " 2 ", "1", "3", "02", "2.0", "", "two", "2,2", "é", "-2", "2\t"),
        fc.constant<string[]>(["2", "2"]),
        fc.string({ unit: "binary", maxLength: 8 }).map(sendable),
      );
      const contentType = fc.oneof(
        { weight: 2, arbitrary: fc.constant("application/json") },
        fc.constantFrom(
          undefined,
          "application/json",
          "application/json; charset=utf-8",
          "APPLICATION/JSON",
          "application/json;charset=latin1",
          "application/json;",
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/jsonx",
          "application/merge-patch+json",
          "",
          ";",
          "application/json, text/plain",
          "*/*",
        ),
        fc.string({ unit: "binary", maxLength: 30 }).map(sendable),
      );
      const extra = fc.constantFrom<Record<string, string>>(
        {},
        { "x-http-method-override": "DELETE" },
        { "x-forwarded-host": "evil.example" },
        { host: "evil.example:1" },
        { "idempotency-key": "k".repeat(300) },
        { "idempotency-key": "" },
        { "operation-id": "op_forged" },
        { connection: "upgrade", upgrade: "websocket" },
        { expect: "100-continue" },
        { "content-encoding": "gzip" },
        { accept: "text/html" },
      );
      const routes = [
        ...BODY_ENDPOINTS.map((e) => ({ method: e.method, path: e.path, body: e.body as unknown })),
        ...PATHS.flatMap((p) =>
          ["GET", "DELETE", "HEAD", "OPTIONS", "PUT"].map((method) => ({
            method,
            path: p,
            body: undefined as unknown,
          })),
        ),
      ];
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...routes),
          authorization,
          version,
          contentType,
          fc.constantFrom("none", "valid", "empty", "junk"),
          extra,
          fc.boolean(),
          async (route, auth, ver, ct, bodyKind, more, chunked) => {
            const headers: Record<string, string | string[]> = { ...more };
            if (auth !== undefined) headers.authorization = auth;
            if (ver !== undefined) headers["service-version"] = ver;
            if (ct !== undefined) headers["content-type"] = ct;
            const body =
              bodyKind === "none"
                ? undefined
                : bodyKind === "empty"
                  ? ""
                  : bodyKind === "junk"
                    ? "not json"
                    : fill(JSON.stringify(route.body ?? { description: "x" }));
            if (body !== undefined && chunked) headers["transfer-encoding"] = "chunked";
            await runCase("headers", {
              method: route.method,
              path: fill(route.path),
              headers,
              body,
              chunked: body !== undefined && chunked,
            });
          },
        ),
        runs(600),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "operator paths in encoded spellings: a 2xx only with the admin key",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom("GET", "PUT", "POST", "DELETE"),
          encodedOperatorPath,
          fc.constantFrom("none", "A", "R", "wrong admin", "admin"),
          fc.constantFrom(
            undefined,
            JSON.stringify({ status503: 1 }),
            JSON.stringify({ hostnames: [{ hostname: "seed.example.com", status: "UNBANNED" }] }),
          ),
          async (method, path, who, body) => {
            const key = { none: undefined, A, R, "wrong admin": ADMIN + "x", admin: ADMIN }[who];
            const headers: Record<string, string> = key === undefined ? {} : std(key);
            if (body !== undefined) headers["content-type"] = "application/json";
            await runCase("operator paths, encoded", { method, path: fill(path), headers, body });
          },
        ),
        runs(400),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "paths: random segments, encoded characters, wrong prefixes, very long IDs",
    async () => {
      const prefix = fc.constantFrom(
        "",
        "/",
        "/event_subscriptions",
        "/event_destinations",
        "/abuse_reports",
        "/_operator",
        "/_operator/requests",
        "/_operator/faults",
        "/_operator/abuse_reports",
        "/%5Foperator/faults",
        "/%5foperator/requests",
        "/_operator%2Ffaults",
        "//_operator/requests",
        "/_OPERATOR/faults",
        "/v2/event_subscriptions",
        "/Event_Subscriptions",
        "//event_subscriptions",
        "/event_subscriptions/",
        "/event_subscriptions/$S1/sources",
        "/%65vent_subscriptions",
      );
      const segment = fc.oneof(
        idLike,
        fc.constantFrom(
          "$S1/sources/ip_policy_created.v0",
          "$S1/sources/%2e%2e",
          "..",
          ".",
          "%2e%2e",
          "%2F",
          "%00",
          "%ZZ",
          "%",
          "%E0%A4%A",
          "%C0%AF",
          "é",
          "%F0%9F%99%82",
          "review",
          "sources",
          ";",
          "a;b=c",
          ...WRONG_IDS,
        ),
        fc.string({ maxLength: 30 }).map(encodeURIComponent),
        fc.string({ unit: "binary", maxLength: 10 }).map((s) => encodeURIComponent(s).replace(/%25/g, "%")),
        fc.string({ unit: "binary-ascii", maxLength: 10 }).map((s) => s.replace(/[^\x21-\x7e]/g, "_")),
      );
      await fc.assert(
        fc.asyncProperty(
          // (CONNECT is sent by the raw-socket property: node:http treats its answer as a tunnel.)
          fc.constantFrom(
            "GET",
            "POST",
            "PATCH",
            "DELETE",
            "PUT",
            "HEAD",
            "OPTIONS",
            "TRACE",
            "PROPFIND",
            "SEARCH",
          ),
          prefix,
          fc.array(segment, { maxLength: 3 }),
          fc.constantFrom("", "?", "?limit=1", "#frag", "?a=%ZZ"),
          fc.constantFrom("A", "admin", "none"),
          fc.boolean(),
          async (method, pre, segments, tail, who, withBody) => {
            const path = fill(pre + segments.map((s) => "/" + s).join("") + tail) || "/";
            const headers: Record<string, string> =
              who === "none" ? {} : { ...std(who === "admin" ? ADMIN : A) };
            let body: string | undefined;
            if (withBody) {
              headers["content-type"] = "application/json";
              body = fill(JSON.stringify(BODY_ENDPOINTS[segments.length % BODY_ENDPOINTS.length].body));
            }
            await runCase("paths", { method, path, headers, body });
          },
        ),
        runs(600),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "query strings: limit and before_id junk, repeated and unknown parameters",
    async () => {
      const value = fc.oneof(
        fc.constantFrom(
          "",
          "0",
          "1",
          "100",
          "101",
          "-1",
          "1e2",
          "0x10",
          "%205",
          "5%20",
          "+5",
          "5.0",
          "abc",
          "%00",
          "%ZZ",
          "9".repeat(400),
          "$S1",
          "$D1",
          "$SB",
          "esb_",
          ...WRONG_IDS,
          "null",
          "undefined",
          "%E2%82%AC",
        ),
        fc.string({ maxLength: 20 }).map(encodeURIComponent),
      );
      const name = fc.constantFrom(
        "limit",
        "before_id",
        "limit[]",
        "limit[a]",
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "LIMIT",
        "beforeId",
        "since",
        "",
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(
            "/event_subscriptions",
            "/event_destinations",
            "/event_subscriptions/$S1",
            "/abuse_reports/$R1",
            "/_operator/requests",
          ),
          fc.array(fc.tuple(name, value, fc.boolean()), { minLength: 1, maxLength: 4 }),
          fc.constantFrom("&", ";", "&&"),
          async (p, params, sep) => {
            const q = params.map(([n, v, bare]) => (bare && v === "" ? n : `${n}=${v}`)).join(sep);
            const headers = p.startsWith("/_operator") ? std(ADMIN) : std(A);
            await runCase("query strings", { method: "GET", path: fill(`${p}?${q}`), headers });
          },
        ),
        runs(400),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "raw bytes on a socket: malformed request lines and headers, unknown methods, no Host",
    async () => {
      /** Sends bytes, reads one response (status and body by Content-Length), or fails on timeout. */
      const rawExchange = (bytes: Buffer) =>
        new Promise<{ status: number; head: string; body: string }>((resolve, reject) => {
          const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
          let buf = Buffer.alloc(0);
          const timer = setTimeout(() => {
            socket.destroy();
            reject(
              new Error(
                `no answer in ${REQUEST_TIMEOUT_MS} ms to ${JSON.stringify(bytes.toString("latin1").slice(0, 200))}`,
              ),
            );
          }, REQUEST_TIMEOUT_MS);
          const tryParse = (final: boolean) => {
            const end = buf.indexOf("\r\n\r\n");
            if (end < 0) {
              if (final) {
                clearTimeout(timer);
                reject(
                  new Error(
                    `connection closed without a response to ${JSON.stringify(bytes.toString("latin1").slice(0, 200))}`,
                  ),
                );
              }
              return;
            }
            const head = buf.subarray(0, end).toString("latin1");
            const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "0");
            if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
              clearTimeout(timer);
              socket.destroy();
              reject(new Error(`chunked response without a usable body: ${head}`));
              return;
            }
            if (buf.length < end + 4 + length && !final) return;
            clearTimeout(timer);
            socket.destroy();
            resolve({
              status: Number(head.split(" ")[1]),
              head,
              body: buf.subarray(end + 4, end + 4 + length).toString("utf8"),
            });
          };
          socket.on("data", (d: Buffer) => {
            buf = Buffer.concat([buf, d]);
            tryParse(false);
          });
          socket.on("end", () => tryParse(true));
          socket.on("close", () => tryParse(true));
          socket.on("error", () => undefined);
        });

      const method = fc.constantFrom(
        "GET",
        "POST",
        "PATCH",
        "DELETE",
        "CONNECT",
        "FOO",
        "get",
        "G ET",
        "",
        "PRI",
        "M-SEARCH",
      );
      const target = fc.constantFrom(
        "/event_subscriptions",
        "/event_destinations/$D1",
        "*",
        "",
        "http://evil.example/event_subscriptions",
        "127.0.0.1:1",
        "/event_subscriptions/\x01",
        "/event_subscriptions/\xff\xfe",
        "/event_subscriptions/" + "a".repeat(17_000),
        "/_operator/requests",
      );
      const version = fc.constantFrom(
        "HTTP/1.1",
        "HTTP/1.0",
        "HTTP/2.0",
        "HTTP/9.9",
        "HTTP/1",
        "",
        "http/1.1",
      );
      const headerLine = fc.constantFrom(
        "Host: x",
        `Authorization: Bearer ${A}`,
        "Service-Version: 2",
        "Content-Type: application/json",
        "NoColon",
        ": empty-name",
        "X-Ctl: a\x01b",
        "Host: a\r\nHost: b",
        "Content-Length: -1",
        "Content-Length: abc",
        "Content-Length: 5, 6",
        "Content-Length: 2\r\nContent-Length: 3",
        "Transfer-Encoding: chunked",
        "Transfer-Encoding: chunked, identity",
        " folded: header",
        "Authorization: Bearer \xff\xfe",
        "X-Big: " + "b".repeat(17_000),
        "Connection: upgrade\r\nUpgrade: h2c",
      );
      await fc.assert(
        fc.asyncProperty(
          method,
          target,
          version,
          fc.array(headerLine, { maxLength: 6 }),
          fc.constantFrom("", "{}", "zz\r\n", "2\r\n{}\r\n0\r\n\r\n"),
          async (m, t, v, lines, body) => {
            const text = `${m} ${fill(t)} ${v}\r\n${[...lines, "Connection: close"].join("\r\n")}\r\n\r\n${body}`;
            const res = await rawExchange(Buffer.from(text, "latin1"));
            counts["raw socket"] = (counts["raw socket"] ?? 0) + 1;
            statuses[res.status] = (statuses[res.status] ?? 0) + 1;
            const what = JSON.stringify(text.slice(0, 200));
            if (!(res.status >= 100 && res.status < 500)) throw new Error(`${what}: ${res.head} ${res.body}`);
            if (res.status >= 400) {
              const opId = /\r\noperation-id: *(\S+)/i.exec(res.head)?.[1];
              expectErrorShape(res.status, opId, res.body, what);
            }
            const now = snap();
            if (res.status >= 300 && now !== snapshot)
              throw new Error(`${what}: rejected but changed the data`);
            setSnapshot(now);
          },
        ),
        runs(150),
      );
    },
    TEST_TIMEOUT_MS,
  );
});
