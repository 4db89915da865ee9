/**
 * Errors raised by Fastify itself become the service's errors with fixed messages: nothing of
 * Fastify's own message (which may quote a header of the request) reaches the answer.
 */
import { toErrorReply } from "../../packages/emulator/errorReply";

const fastifyError = (statusCode: number, code: string, message: string) =>
  Object.assign(new Error(message), { statusCode, code });

describe("toErrorReply", () => {
  it.each([
    [
      400,
      "FST_ERR_CTP_INVALID_CONTENT_LENGTH",
      213,
      "the request body could not be read (FST_ERR_CTP_INVALID_CONTENT_LENGTH)",
    ],
    [400, "made up: SECRET_f00d", 213, "the request body could not be read"],
    [415, "FST_ERR_CTP_INVALID_MEDIA_TYPE", 210, "Content-Type must be application/json"],
    [413, "FST_ERR_CTP_BODY_TOO_LARGE", 413, "request body is larger than 1 MiB (1048576 bytes)"],
  ])("a Fastify %i (%s) becomes %i with a fixed message", (status, code, serviceCode, message) => {
    const e = toErrorReply(fastifyError(status, code, `Unsupported Media Type: text/x; k=SECRET_f00d`));
    expect({ code: e.code, message: e.message }).toEqual({ code: serviceCode, message });
  });

  it("anything else is a 500 that says nothing of the error", () => {
    const e = toErrorReply(new TypeError("cannot read SECRET_f00d"));
    expect({ code: e.code, status: e.status, message: e.message }).toEqual({
      code: 500,
      status: 500,
      message: "unexpected server error",
    });
  });
});
