/**
 * The set-up client tests share: a scripted server (./scripted-server) and a `ServiceClient` of
 * it, started by each test and closed after it.
 */
import { ServiceClient, type ServiceClientOptions } from "../../client";
import { startScriptedServer, type ScriptedServer, type Step } from "./scripted-server";

/** A client test's scripted server and the client talking to it; see {@link scriptedClients}. */
export interface ScriptedClients {
  /** The server last started (undefined before the first start and after {@link close}). */
  server: ScriptedServer | undefined;
  /** The client of that server. */
  client: ServiceClient | undefined;
  /**
   * Starts a server answering with `steps` and a client of it (the API key, then the defaults,
   * then `options`); they become {@link server} and {@link client}.
   */
  start(
    steps: Step[],
    options?: ServiceClientOptions,
  ): Promise<{ server: ScriptedServer; client: ServiceClient }>;
  /** Closes the client and the server last started and forgets them (a test file's `afterEach`). */
  close(): Promise<void>;
}

/**
 * A test file's scripted servers and their clients, each client with the API key `apiKey` and
 * the options `defaults` (those of a `start` on top): `start` in a test, `close` in `afterEach`.
 */
export function scriptedClients(apiKey: string, defaults: ServiceClientOptions = {}): ScriptedClients {
  const clients: ScriptedClients = {
    server: undefined,
    client: undefined,
    async start(steps, options = {}) {
      const server = await startScriptedServer(steps);
      const client = new ServiceClient({ apiKey, baseUrl: server.url, ...defaults, ...options });
      clients.server = server;
      clients.client = client;
      return { server, client };
    },
    async close() {
      await clients.client?.close();
      await clients.server?.close();
      clients.client = clients.server = undefined;
    },
  };
  return clients;
}
