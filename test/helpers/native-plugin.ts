/** The native plugin's gRPC server in process, and a client of it, for tests of the native door. */
import * as grpc from "@grpc/grpc-js";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { serve } from "../../provider/native/main";

/**
 * Calls a unary method of the client as a promise.
 * @param client - a client of the plugin.
 * @param method - the method's name on the client, e.g. `check`.
 * @param req - the request message.
 */
export function unary<Req, Res>(client: ResourceProviderClient, method: string, req: Req): Promise<Res> {
  const fn = (client as unknown as Record<string, (r: Req, cb: (e: Error | null, r: Res) => void) => void>)[
    method
  ];
  return new Promise((resolve, reject) =>
    fn.call(client, req, (err, res) => (err ? reject(err) : resolve(res))),
  );
}

/**
 * Starts the plugin's server on a free port of 127.0.0.1 before the tests of the enclosing block
 * (its port line for the engine kept off stdout) and stops it after them.
 * @returns a function giving the client connected to it (call it inside a test).
 */
export function useNativePlugin(): () => ResourceProviderClient {
  let server: grpc.Server | undefined;
  let client: ResourceProviderClient | undefined;
  beforeAll(async () => {
    const write = process.stdout.write;
    process.stdout.write = () => true; // the port line, for the engine
    try {
      const started = await serve(["127.0.0.1:1"]);
      server = started.server;
      client = new ResourceProviderClient(`127.0.0.1:${started.port}`, grpc.credentials.createInsecure());
    } finally {
      process.stdout.write = write;
    }
  });
  afterAll(() => {
    client?.close();
    server?.forceShutdown();
  });
  return () => {
    if (client === undefined) throw new Error("useNativePlugin: the client exists only inside tests");
    return client;
  };
}
