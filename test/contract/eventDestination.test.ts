/**
 * What consumers read from the contract's field metadata (the write-only secrets and the
 * optional strings of each target kind), and the rules the generated document states: a
 * response's target with its secrets blanked is valid; uniqueness, sizes and strictness appear.
 */
import {
  buildOpenApiDocument,
  DESTINATION_TARGET_KINDS,
  EventDestination,
  EventDestinationCreate,
  OPTIONAL_STRINGS,
  SECRET_PATHS,
} from "service-contract";

describe("event destination metadata", () => {
  it("names the write-only secret of every target kind", () => {
    expect(SECRET_PATHS).toEqual({
      firehose: [["auth", "creds", "awsSecretAccessKey"]],
      kinesis: [["auth", "creds", "awsSecretAccessKey"]],
      cloudwatchLogs: [["auth", "creds", "awsSecretAccessKey"]],
      datadog: [["apiKey"]],
      azureLogsIngestion: [["clientSecret"]],
    });
  });

  it("names the optional strings of every target kind", () => {
    expect(OPTIONAL_STRINGS).toEqual({
      firehose: [],
      kinesis: [],
      cloudwatchLogs: [],
      datadog: ["ddtags", "service", "ddsite"],
      azureLogsIngestion: [],
    });
    expect(Object.keys(SECRET_PATHS)).toEqual([...DESTINATION_TARGET_KINDS]);
  });
});

describe("the schemas as the document shows them", () => {
  const schemas = buildOpenApiDocument() as { components: { schemas: Record<string, unknown> } };
  const c = schemas.components.schemas as Record<
    string,
    { properties: Record<string, Record<string, unknown>> }
  >;

  it("a response's target accepts the write-only secrets blanked; a request's does not", () => {
    const target = { datadog: { apiKey: "" } };
    const live = { id: "ed_" + "0".repeat(27), uri: "u", createdAt: "2026-11-21T09:30:00Z" };
    const response = { ...live, metadata: "", description: "", format: "json", target };
    expect(EventDestination.safeParse(response).success).toBe(true);
    expect(EventDestinationCreate.safeParse({ target }).success).toBe(false);
    const secret = JSON.stringify(c.EventDestination.properties.target);
    // Not `writeOnly` in a response (OpenAPI: never returned), but the one value returned.
    expect(secret).toContain('"api_key":{"type":"string","const":"","x-write-only":true');
    expect(EventDestination.safeParse({ ...response, target: { datadog: { apiKey: "k" } } }).success).toBe(
      false,
    );
    expect(JSON.stringify(c.EventDestinationCreate.properties.target)).toContain(
      '"api_key":{"type":"string","minLength":1,"writeOnly":true',
    );
  });

  it("states uniqueness, non-emptiness and strictness where the service checks them", () => {
    const sub = c.EventSubscriptionCreate.properties;
    expect(sub.destination_ids).toMatchObject({ uniqueItems: true, minItems: 1, maxItems: 10 });
    expect(sub.sources).toMatchObject({ uniqueItems: true });
    expect(c.EventSubscriptionCreate).toMatchObject({ additionalProperties: false });
    expect(c.EventSubscriptionCreate.properties.destination_ids).not.toHaveProperty("x-unique");
  });
});
