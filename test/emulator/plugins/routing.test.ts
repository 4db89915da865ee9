/**
 * Routing (plugins/routing.ts): every method the OpenAPI document does not declare for a path,
 * any method Node.js parses (`TRACE`, `PROPFIND`, `QUERY`, …), answers 405 with `Allow` listing
 * the methods it declares; a path the document does not declare answers 404 whatever the method.
 */
import { METHODS } from "node:http";
import { buildOpenApiDocument } from "service-contract";
import { rawRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { expectError } from "../../helpers/emulator-fixtures";

const KEY = "key-routing";
let em: RunningEmulator;

beforeAll(async () => {
  em = await startEmulator({ apiKeys: [KEY] });
});
afterAll(() => em.close());

/** Each path of the document with its declared methods (upper case), IDs filled in. */
const paths = Object.entries(buildOpenApiDocument().paths as Record<string, Record<string, unknown>>).map(
  ([template, item]) => ({
    template,
    path: template
      .replace(
        /\{id\}/,
        template.includes("abuse_reports")
          ? `ar_${"0".repeat(27)}`
          : `${template.includes("destinations") ? "ed" : "esb"}_${"0".repeat(27)}`,
      )
      .replace("{type}", "pulumi.deployment.started"),
    declared: Object.keys(item)
      .filter((m) => METHODS.includes(m.toUpperCase()))
      .map((m) => m.toUpperCase()),
  }),
);

/** A request with the key its path needs and no body. */
const send = (method: string, path: string) =>
  rawRequest({
    method,
    url: `${em.url}${path}`,
    headers: {
      authorization: `Bearer ${path.startsWith("/_operator") ? em.adminKey : KEY}`,
      "service-version": "2",
    },
  });

describe("undeclared methods", () => {
  it("the document declares the paths this test walks", () => {
    expect(paths.map((p) => p.template)).toEqual(
      expect.arrayContaining([
        "/event_subscriptions",
        "/abuse_reports/{id}",
        "/_operator/faults",
        "/openapi.json",
      ]),
    );
  });

  it.each(paths)(
    "$template answers 405 with Allow to every method it does not declare",
    async ({ path, declared }) => {
      const allowed = declared.includes("GET") ? [...declared, "HEAD"] : declared;
      const undeclared = METHODS.filter((m) => m !== "CONNECT" && !allowed.includes(m));
      expect(undeclared).toEqual(
        expect.arrayContaining(["TRACE", "PROPFIND", "PUT", "QUERY"].filter((m) => !allowed.includes(m))),
      );
      for (const method of undeclared) {
        const res = await send(method, path);
        // A HEAD answer has no body: its status and Allow say it all.
        if (method === "HEAD") expect(res.status).toBe(405);
        else
          expectError(res, 405, 405, new RegExp(`^method ${method} is not allowed on this path; allowed: `));
        expect([method, res.headers.allow?.split(", ").sort()]).toEqual([method, [...declared].sort()]);
      }
    },
  );

  it("an undeclared path answers 404 to any method", async () => {
    for (const method of ["GET", "TRACE", "PROPFIND"])
      expectError(await send(method, "/event_things"), 404, 404);
  });

  it("the OpenAPI document needs no key for its 405", async () => {
    const res = await rawRequest({ method: "TRACE", url: `${em.url}/openapi.json` });
    expectError(res, 405, 405);
    expect(res.headers.allow).toBe("GET");
  });
});
