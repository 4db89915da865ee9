/** What the tests' own HTTP servers share: listening on a free port of 127.0.0.1, and closing. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Starts `server` on a port of 127.0.0.1 the system picks.
 * @returns its URL, `http://127.0.0.1:<port>` (no trailing slash), and `close`, which stops it and
 *   ends every open connection (resolves once it has stopped).
 * @throws the listen error when no port of 127.0.0.1 can be bound.
 */
export async function listenLocally(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
