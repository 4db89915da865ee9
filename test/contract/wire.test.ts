/** The one key-case mapping between TypeScript (camelCase) and the wire (snake_case). */
import fc from "fast-check";
import { camelToSnake, keysToCamel, keysToSnake, snakeToCamel } from "service-contract";

const WIRE_FIELDS: [string, string][] = [
  ["id", "id"],
  ["created_at", "createdAt"],
  ["destination_ids", "destinationIds"],
  ["next_page_uri", "nextPageUri"],
  ["event_subscriptions", "eventSubscriptions"],
  ["event_destinations", "eventDestinations"],
  ["delivery_stream_arn", "deliveryStreamArn"],
  ["stream_arn", "streamArn"],
  ["log_group_arn", "logGroupArn"],
  ["cloudwatch_logs", "cloudwatchLogs"],
  ["azure_logs_ingestion", "azureLogsIngestion"],
  ["role_arn", "roleArn"],
  ["aws_access_key_id", "awsAccessKeyId"],
  ["aws_secret_access_key", "awsSecretAccessKey"],
  ["api_key", "apiKey"],
  ["ddtags", "ddtags"],
  ["ddsite", "ddsite"],
  ["tenant_id", "tenantId"],
  ["client_secret", "clientSecret"],
  ["logs_ingestion_uri", "logsIngestionUri"],
  ["data_collection_rule_id", "dataCollectionRuleId"],
  ["data_collection_stream_name", "dataCollectionStreamName"],
  ["error_code", "errorCode"],
  ["operation_id", "operationId"],
];

describe.each(WIRE_FIELDS)("%s ⇄ %s", (wire, ts) => {
  test("both directions", () => {
    expect(snakeToCamel(wire)).toBe(ts);
    expect(camelToSnake(ts)).toBe(wire);
  });
});

test("deep conversion converts keys only, never values", () => {
  const wire = {
    destination_ids: ["ed_x"],
    target: {
      cloudwatch_logs: {
        auth: { role: { role_arn: "arn:aws:iam::1:role/some_role" } },
        log_group_arn: "a_b",
      },
    },
    metadata: "snake_case_value",
    next_page_uri: null,
    sources: [{ type: "ip_policy_created.v0" }],
  };
  const ts = keysToCamel(wire);
  expect(ts).toEqual({
    destinationIds: ["ed_x"],
    target: {
      cloudwatchLogs: { auth: { role: { roleArn: "arn:aws:iam::1:role/some_role" } }, logGroupArn: "a_b" },
    },
    metadata: "snake_case_value",
    nextPageUri: null,
    sources: [{ type: "ip_policy_created.v0" }],
  });
  expect(keysToSnake(ts)).toEqual(wire);
});

test("a __proto__ key from the wire stays an ordinary key", () => {
  const parsed: unknown = JSON.parse('{"__proto__": {"polluted": true}, "a_b": 1}');
  const out = keysToCamel(parsed) as Record<string, unknown>;
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(out.aB).toBe(1);
});

test("round trip of any lower-case snake_case key", () => {
  const key = fc.stringMatching(/^[a-z]+(_[a-z]+)*$/);
  fc.assert(fc.property(key, (k) => camelToSnake(snakeToCamel(k)) === k));
});

test("a __proto__ key stays an ordinary own key on the way to the wire", () => {
  const parsed: unknown = JSON.parse('{"__proto__": {"polluted": true}, "aB": 1}');
  const out = keysToSnake(parsed) as Record<string, unknown>;
  expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  expect(Object.keys(out)).toEqual(["__proto__", "a_b"]);
  expect(Object.getOwnPropertyDescriptor(out, "__proto__")?.value).toEqual({ polluted: true });
});

test("objects of a class are copied as they are; objects without a prototype are converted", () => {
  const when = new Date(0);
  const out = keysToCamel({ created_at: when }) as { createdAt: unknown };
  expect(out.createdAt).toBe(when);
  const bare = Object.assign(Object.create(null) as object, { stream_arn: "a" });
  expect(keysToCamel({ target: bare })).toEqual({ target: { streamArn: "a" } });
});

test("a key holding undefined is kept; a __proto__ key is as writable and configurable as any other", () => {
  expect(keysToCamel({ a_b: undefined })).toStrictEqual({ aB: undefined });
  const out = keysToSnake(JSON.parse('{"__proto__": 1}')) as object;
  expect(Object.getOwnPropertyDescriptor(out, "__proto__")).toEqual({
    value: 1,
    enumerable: true,
    writable: true,
    configurable: true,
  });
});
