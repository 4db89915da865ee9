/** The one error factory and the error classes. */
import {
  APIError,
  type APIErrorInit,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ServiceError,
  UnsupportedMediaTypeError,
  ValidationError,
  makeAPIError,
  parseRetryAfter,
} from "../../client";

const OP = `op_${"A".repeat(27)}`;
const body = (status: number, code: number, msg: string) =>
  JSON.stringify({
    error_code: `ERR_SERVICE_${code}`,
    status_code: status,
    msg,
    details: { operation_id: OP },
  });

/** The error `makeAPIError` makes of `method /x` answered with `status` and the service's error body. */
const answered = (
  method: string,
  status: number,
  code: number,
  msg: string,
  headers: Pick<APIErrorInit, "operationId" | "retryAfter"> = {},
) => makeAPIError({ status, method, path: "/x", bodyText: body(status, code, msg), ...headers });

/** An HTTP status, the service's error code sent with it, and the class it makes. */
type StatusRow = [status: number, code: number, Class: typeof APIError];

describe.each<StatusRow>([
  [400, 215, BadRequestError],
  [401, 203, AuthenticationError],
  [403, 221, PermissionDeniedError],
  [404, 404, NotFoundError],
  [409, 409, ConflictError],
  [413, 413, PayloadTooLargeError],
  [415, 210, UnsupportedMediaTypeError],
  [429, 226, RateLimitError],
  // Every 5xx, whatever it is, is an InternalServerError (code 500).
  ...[500, 502, 503, 504].map((status): StatusRow => [status, 500, InternalServerError]),
])("status %i", (status, code, Class) => {
  test(`→ ${Class.name}`, () => {
    const err = answered("GET", status, code, "why it failed");
    expect(err).toBeInstanceOf(Class);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.name).toBe(Class.name);
    expect(err.status).toBe(status);
    expect(err.errorCode).toBe(`ERR_SERVICE_${code}`);
    expect(err.operationId).toBe(OP);
    expect(err.serviceMessage).toBe("why it failed");
    expect(err.message).toBe(
      `GET /x failed with ${status} ERR_SERVICE_${code}: why it failed (operation ${OP})`,
    );
    expect(err.body).toEqual(JSON.parse(body(status, code, "why it failed")));
  });
});

test("404 is NotFoundError whatever its body", () => {
  for (const bodyText of ["", "<html>not here</html>", "{}", '{"error_code": 7}', "null"]) {
    const err = makeAPIError({ status: 404, method: "DELETE", path: "/event_subscriptions/esb_1", bodyText });
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.errorCode).toBeUndefined();
  }
});

test("other statuses are plain APIError; the header operation id wins", () => {
  const err = answered("PUT", 405, 405, "no", { operationId: "op_header" });
  expect(err.constructor).toBe(APIError);
  expect(err.operationId).toBe("op_header");
  expect(err.message).toContain("op_header");
});

test("RateLimitError carries Retry-After in seconds", () => {
  const err = answered("POST", 429, 226, "slow", { retryAfter: "7" });
  expect(err).toBeInstanceOf(RateLimitError);
  expect(err.retryAfterSeconds).toBe(7);
});

test("parseRetryAfter: seconds, HTTP date, garbage", () => {
  expect(parseRetryAfter(undefined)).toBeUndefined();
  expect(parseRetryAfter("3")).toBe(3);
  expect(parseRetryAfter(" 1.5 ")).toBe(1.5);
  expect(parseRetryAfter("soon")).toBeUndefined();
  const now = Date.parse("2026-11-21T09:30:00Z");
  expect(parseRetryAfter("Sat, 21 Nov 2026 09:30:10 GMT", now)).toBe(10);
  expect(parseRetryAfter("Sat, 21 Nov 2026 09:29:10 GMT", now)).toBe(0);
});

test("JSON serialization keeps the useful fields", () => {
  const err = answered("POST", 400, 215, "bad");
  const json = JSON.parse(JSON.stringify(err)) as Record<string, unknown>;
  expect(json).toMatchObject({
    name: "BadRequestError",
    status: 400,
    errorCode: "ERR_SERVICE_215",
    operationId: OP,
  });
  expect(json.message).toContain("bad");
});

test("ValidationError lists every issue", () => {
  const err = new ValidationError([
    { field: "a", message: "a: x" },
    { field: "b", message: "b: y" },
  ]);
  expect(err.message).toBe("Invalid input: a: x; b: y");
  expect(err.issues).toHaveLength(2);
});

test("an error without a body's message, code or operation reads as its status, and names its class", () => {
  const err = new APIError({ status: 418, method: "GET", path: "/x", bodyText: "" }, { body: undefined });
  expect(err.message).toBe("GET /x failed with 418: HTTP 418 (operation unknown)");
  expect(err.serviceMessage).toBe("HTTP 418");
  expect(err.request).toBe("GET /x");
  expect(err.name).toBe("APIError");
  expect(err.maybeApplied).toBe(false);
  expect(new ServiceError("m").name).toBe("ServiceError");
});

test("parseRetryAfter reads whole and decimal seconds only, padded or not", () => {
  expect(parseRetryAfter(" 1.5 ")).toBe(1.5);
  expect(parseRetryAfter("1.25")).toBe(1.25);
  expect(parseRetryAfter("x1")).toBeUndefined();
  expect(parseRetryAfter("1x")).toBeUndefined();
});
