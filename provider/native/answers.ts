/**
 * How the native provider's gRPC handlers answer (server.ts): {@link unary} turns an async
 * handler into grpc-js's form, answering an error with its message, or a {@link GrpcAnswer} as it
 * says; {@link initFailedAnswer} is Pulumi's "initialization failed" answer to a create.
 *
 * @packageDocumentation
 */
import type * as grpc from "@grpc/grpc-js";
import type { Struct } from "google-protobuf/google/protobuf/struct_pb";
import * as provproto from "@pulumi/pulumi/proto/provider_pb";
import * as statusproto from "@pulumi/pulumi/proto/status_pb";
import type { PendingCreateError } from "../impl/create/pendingCreate";
import { fromPulumi } from "./deps";

const grpcJs = fromPulumi<typeof grpc>("@grpc/grpc-js");
const { Any } = fromPulumi<typeof import("google-protobuf/google/protobuf/any_pb")>(
  "google-protobuf/google/protobuf/any_pb",
);

/** An error a handler answers as the gRPC error `answer` (code, message, status details). */
export class GrpcAnswer extends Error {
  constructor(readonly answer: Partial<grpc.ServiceError>) {
    super(answer.details);
  }
}

/**
 * A unary handler from an async function; an error is answered with its message only, a
 * {@link GrpcAnswer} as it says.
 */
export function unary<Req, Res>(fn: (req: Req) => Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    fn(call.request).then(
      (res) => callback(null, res),
      (err: unknown) =>
        callback(
          (err instanceof GrpcAnswer
            ? err.answer
            : {
                code: grpcJs.status.UNKNOWN,
                details: err instanceof Error ? err.message : String(err),
              }) as grpc.ServiceError,
        ),
    );
  };
}

/**
 * Pulumi's "initialization failed" answer to a create (a {@link PendingCreateError}, see
 * ../impl/pendingCreate.ts): status UNKNOWN with the message, and an `ErrorResourceInitFailed`
 * detail (ID, `properties`: the placeholder's properties as the engine is sent them, secrets
 * marked, and reasons) in `grpc-status-details-bin`, from which the engine records the resource
 * with its init errors.
 */
export function initFailedAnswer(err: PendingCreateError, properties: Struct): Partial<grpc.ServiceError> {
  const detail = new provproto.ErrorResourceInitFailed();
  detail.setId(err.id);
  detail.setProperties(properties);
  detail.setReasonsList(err.reasons);
  const packed = new Any();
  packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const status = new statusproto.Status();
  status.setCode(grpcJs.status.UNKNOWN);
  status.setMessage(err.message);
  status.addDetails(packed);
  const metadata = new grpcJs.Metadata();
  metadata.add("grpc-status-details-bin", Buffer.from(status.serializeBinary()));
  return { code: grpcJs.status.UNKNOWN, details: err.message, metadata };
}
