/**
 * The OpenAPI document: generated from the contract, committed fresh, valid OpenAPI 3.1, served
 * by the emulator, and strict enough that a wrong response does not pass.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { buildOpenApiDocument } from "service-contract";
import { serviceReference } from "../../scripts/docs-contract";
import { apiRequest, rawRequest, startEmulator, type RunningEmulator } from "../helpers/emulator";
import { openApiBackend, OPENAPI_PATH, responseViolations } from "../helpers/openapi";

const REPO_ROOT = path.resolve(__dirname, "../..");

describe("docs/openapi.json", () => {
  it("is what the contract generates (run `npm run docs:contract` after changing contract/)", () => {
    expect(JSON.parse(readFileSync(OPENAPI_PATH, "utf8"))).toStrictEqual(buildOpenApiDocument());
  });

  it("is a valid OpenAPI 3.1 document", () => {
    // The validator is an ES module, which this jest setup cannot load: run it in Node itself.
    const script = `
      import { readFileSync } from "node:fs";
      import { Validator } from "@seriousme/openapi-schema-validator";
      const validator = new Validator();
      const result = await validator.validate(JSON.parse(readFileSync(${JSON.stringify(OPENAPI_PATH)}, "utf8")));
      console.log(JSON.stringify({ valid: result.valid, errors: result.errors ?? [], version: validator.version }));`;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ valid: true, errors: [], version: "3.1" });
  });

  it("docs/service-api.md is what the contract generates (formatted by prettier)", () => {
    const file = path.join(REPO_ROOT, "docs/service-api.md");
    const run = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, "node_modules/prettier/bin/prettier.cjs"), "--stdin-filepath", file],
      { cwd: REPO_ROOT, encoding: "utf8", input: serviceReference() },
    );
    expect(run.status).toBe(0);
    expect(readFileSync(file, "utf8")).toBe(run.stdout);
  });
});

describe("the emulator and the document", () => {
  let em: RunningEmulator;
  beforeAll(async () => {
    em = await startEmulator();
  });
  afterAll(() => em.close());

  it("serves the document at GET /openapi.json without a key", async () => {
    const res = await rawRequest({ method: "GET", url: `${em.url}/openapi.json` });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual(buildOpenApiDocument());
  });

  it("a response of the wrong shape does not validate", async () => {
    const api = await openApiBackend();
    const dest = await apiRequest(em.url, em.apiKeys[0], "POST", "/event_destinations", {
      target: { datadog: { api_key: "k" } },
    });
    expect(dest.status).toBe(201);
    const good = {
      method: "GET",
      url: `/event_destinations/${dest.json().id}`,
      status: 200,
      body: dest.text,
    };
    expect(responseViolations(api, good)).toEqual([]);
    const wrong = (change: (b: Record<string, unknown>) => void) => {
      const b = dest.json();
      change(b);
      return responseViolations(api, { ...good, body: JSON.stringify(b) });
    };
    expect(wrong((b) => delete b.created_at)).not.toEqual([]);
    expect(wrong((b) => (b.description = 7))).not.toEqual([]);
    expect(wrong((b) => (b.target = { datadog: {} }))).not.toEqual([]);
    expect(wrong((b) => (b.id = "esb_" + String(b.id).slice(3)))).not.toEqual([]);
    expect(responseViolations(api, { ...good, status: 400 })).not.toEqual([]);
    expect(responseViolations(api, { method: "GET", url: "/nowhere", status: 200, body: "{}" })).not.toEqual(
      [],
    );
  });
});
