/**
 * Entry point of the plugin `pulumi-resource-service` (bin/pulumi-resource-service runs it).
 * The engine starts it as `pulumi-resource-service [--logtostderr] [-v=N] [--tracing <endpoint>]
 * <engine address>`; it serves Pulumi's resource provider protocol (./server.ts) on a free port
 * of 127.0.0.1 and prints that port, alone on one line, on stdout, which is how the engine finds
 * it. Started without an engine address (to attach with `PULUMI_DEBUG_PROVIDERS=service:<port>`),
 * it learns the address from `Attach`.
 *
 * @packageDocumentation
 */
import type * as grpc from "@grpc/grpc-js";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { deploymentClaimsFolder } from "../impl/claimsFolder";
import { processClaims } from "../impl/claims";
import { fromPulumi } from "./deps";
import { SERVER } from "./server";

/** The engine's address among the plugin's arguments: the first that is not a flag. */
export function engineAddress(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--tracing") i++;
    else if (!args[i].startsWith("-")) return args[i];
  }
  return undefined;
}

/**
 * Starts the server and prints its port.
 * @returns the bound port and the server (`forceShutdown()` stops it).
 * @throws Error when no port of 127.0.0.1 can be bound.
 */
export async function serve(args: string[]): Promise<{ port: number; server: grpc.Server }> {
  const grpcJs = fromPulumi<typeof grpc>("@grpc/grpc-js");
  const address = engineAddress(args);
  // Pulumi's log (the implementation's warnings) writes to the engine at this address.
  if (address) process.env.PULUMI_NODEJS_ENGINE ||= address;
  // The deployment's other provider processes (one per provider instance) share its claims.
  const folder = deploymentClaimsFolder(address);
  if (folder) processClaims.share(folder);
  // The engine's limit on a message (400 MiB), as in @pulumi/pulumi's own servers.
  const server = new grpcJs.Server({ "grpc.max_receive_message_length": 400 * 1024 * 1024 });
  server.addService(ResourceProviderService, SERVER as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpcJs.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  process.stdout.write(`${port}\n`);
  return { port, server };
}

if (require.main === module) {
  serve(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
