/**
 * `GET /openapi.json` (packages/emulator/routes/document.ts): the service's OpenAPI document,
 * served without an API key, as the contract builds it (docs/service-api.md § What the emulator adds).
 */
import { buildOpenApiDocument } from "service-contract";
import { rawRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";

let em: RunningEmulator;
beforeAll(async () => {
  em = await startEmulator({});
});
afterAll(() => em.close());

describe("GET /openapi.json", () => {
  it("answers the contract's document as JSON, with no API key, the same text every time", async () => {
    const first = await rawRequest({ method: "GET", url: `${em.url}/openapi.json` });
    expect(first.status).toBe(200);
    expect(first.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(first.json()).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    const again = await rawRequest({ method: "GET", url: `${em.url}/openapi.json` });
    expect(again.text).toBe(first.text);
  });
});
