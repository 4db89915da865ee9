/**
 * Hostile bodies, property-based (fast-check), over real HTTP to an emulator started in-process
 * (test/helpers/fuzz-http.ts): valid bodies of every endpoint that takes one, mutated (wrong
 * types, huge strings, Unicode, nested junk, missing and extra fields, `__proto__` /
 * `constructor` keys), and raw bodies (not JSON, truncated, duplicated keys, deep nesting,
 * invalid UTF-8, over 1 MiB). Every case is answered within the request timeout and never with a
 * 5xx; every error has the service's error body; a rejected request changes nothing stored, nor
 * the fault configuration, nor `Object.prototype`.
 *
 * `RELIABILITY_LONG=1` runs ten times as many cases; `FUZZ_SEED=<n>` replays a run (fast-check
 * prints the seed of a failure).
 */
import fc from "fast-check";
import { TEST_TIMEOUT_MS, mutate, mutationArb, runs } from "../helpers/fuzz-arbitraries";
import { A, ADMIN, BODY_ENDPOINTS, fill, runCase, useFuzzEmulator, std } from "../helpers/fuzz-http";

useFuzzEmulator();

describe("the emulator under hostile bodies", () => {
  it(
    "mutated valid bodies on every endpoint that takes one",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...BODY_ENDPOINTS),
          fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
          fc.constantFrom("application/json", "application/json; charset=utf-8"),
          async (endpoint, mutations, contentType) => {
            const body = mutate(endpoint.body, mutations);
            const text = body === undefined ? "" : fill(JSON.stringify(body));
            const headers: Record<string, string> = {
              ...std(endpoint.admin ? ADMIN : A),
              "content-type": contentType,
            };
            if (endpoint.admin) delete headers["service-version"];
            await runCase("mutated bodies", {
              method: endpoint.method,
              path: fill(endpoint.path),
              headers,
              body: text,
            });
          },
        ),
        runs(1000),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "raw bodies: not JSON, truncated, duplicated keys, deep nesting, invalid UTF-8, over 1 MiB",
    async () => {
      const valid = (i: number) => fill(JSON.stringify(BODY_ENDPOINTS[i % BODY_ENDPOINTS.length].body));
      const rawBody = fc.oneof(
        fc.string({ unit: "binary", maxLength: 200 }),
        fc.jsonValue().map((v) => JSON.stringify(v) ?? ""),
        fc.tuple(fc.nat(), fc.nat()).map(([i, cut]) => valid(i).slice(0, cut % (valid(i).length + 1))),
        fc.tuple(fc.nat(), fc.string({ maxLength: 5 })).map(([i, s]) => valid(i) + s),
        fc.nat().map((i) => "\ufeff" + valid(i)),
        fc.nat().map((i) => valid(i).replace(/^\{/, '{"sources":"dup","destination_ids":1,"target":null,')),
        fc.constantFrom(
          '{"__proto__":{"polluted":true},"sources":[{"type":"ip_policy_created.v0"}],"destination_ids":["$D1"]}',
          '{"constructor":{"prototype":{"polluted":true}}}',
          '{"sources":[{"type":"ip_policy_created.v0","__proto__":{"type":"x"}}],"destination_ids":["$D1"]}',
          '{"target":{"__proto__":{"kinesis":{}},"datadog":{"api_key":"k"}}}',
          "1e999999",
          "NaN",
          "null",
          "[]",
          '"string"',
          "{}",
          "{",
          "}",
          '{"a":1}{"b":2}',
          "[".repeat(100_000),
          '{"sources":' + "[".repeat(50_000) + "]".repeat(50_000) + "}",
          '{"metadata":"' + "\\ud800".repeat(100) + '"}',
        ),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...BODY_ENDPOINTS),
          fc.oneof(
            { weight: 20, arbitrary: rawBody.map((s) => fill(s) as string | Buffer) },
            { weight: 3, arbitrary: fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)) },
            {
              weight: 1,
              arbitrary: fc.constantFrom(1024 * 1024 + 1, 2 * 1024 * 1024).map((n) => "x".repeat(n)),
            },
          ),
          fc.boolean(),
          async (endpoint, body, chunked) => {
            const headers: Record<string, string> = {
              ...std(endpoint.admin ? ADMIN : A),
              "content-type": "application/json",
            };
            if (chunked) headers["transfer-encoding"] = "chunked";
            await runCase("raw bodies", {
              method: endpoint.method,
              path: fill(endpoint.path),
              headers,
              body,
              chunked,
            });
          },
        ),
        runs(350),
      );
    },
    TEST_TIMEOUT_MS,
  );
});
