/**
 * Modules `@pulumi/pulumi` depends on (`@grpc/grpc-js`, `google-protobuf`), loaded from its own
 * location: its generated gRPC service definitions and messages are built with those copies, and
 * this package declares only `@pulumi/pulumi` (a peer dependency), not them.
 *
 * @packageDocumentation
 */
import * as path from "path";

const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));

/**
 * `require(id)` as `@pulumi/pulumi` resolves it.
 * @throws Error (MODULE_NOT_FOUND) when `@pulumi/pulumi` has no such dependency.
 */
export function fromPulumi<T>(id: string): T {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(require.resolve(id, { paths: [pulumiDir] })) as T;
}
