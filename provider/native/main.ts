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
import { deploymentClaimsFolder, type ClaimsFolder } from "../impl/create/claimsFolder";
import { processClaims, type ClaimRegistry } from "../impl/create/claims";
import { warn } from "../impl/process/debugLog";
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
 * Shares `registry` (the process's claims) with the deployment's other provider processes, one
 * per provider instance, through the claims folder `open` opens for the engine at `address`
 * (default: {@link deploymentClaimsFolder}, under `claimsRoot()`, named after this plugin's parent
 * engine). When the folder cannot be opened (another user's, a link, a full disk…), the plugin
 * still serves every operation, with claims held in this process only, and `registry` warns that
 * cross-process protection is off, why, and what to run (the folder's error says).
 *
 * @returns the folder shared, or `undefined`: no engine address (a plugin started by hand), or a
 *   folder that could not be opened. Never throws.
 */
export function shareDeploymentClaims(
  address: string | undefined,
  registry: ClaimRegistry = processClaims,
  open: (address: string | undefined) => ClaimsFolder | undefined = deploymentClaimsFolder,
): ClaimsFolder | undefined {
  let folder: ClaimsFolder | undefined;
  try {
    folder = open(address);
  } catch (err) {
    registry.warn(
      `the claims folder of this deployment could not be opened, so cross-process protection is off: this provider ` +
        `process keeps its claims to itself, and a create whose answer was lost in another provider process of the ` +
        `deployment (an explicit provider) could adopt a resource this one holds. ${String((err as { message?: unknown } | null)?.message ?? err)}`,
    );
    return undefined;
  }
  if (folder) registry.share(folder);
  return folder;
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
  // The claims' warnings (a folder that failed) go to Pulumi's log, shown by pulumi up.
  processClaims.onWarning((message) => void warn(message));
  // The deployment's other provider processes (one per provider instance) share its claims.
  shareDeploymentClaims(address);
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
