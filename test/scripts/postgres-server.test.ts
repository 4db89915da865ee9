/**
 * `freePort` of scripts/postgres-server.ts: the port a test gives a server another process
 * starts (the docs' emulator, PostgreSQL). It must be free, and outside the system's ephemeral
 * range, so that no other socket of the machine gets it before that server listens.
 */
import * as fs from "node:fs";
import * as net from "node:net";
import { freePort } from "../../scripts/postgres-server";

/** The first port of Linux's ephemeral range. */
function ephemeralFirst(): number {
  return Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
}

function listenOn(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

describe("freePort", () => {
  it("gives ports below the ephemeral range that a server can then listen on", async () => {
    const first = ephemeralFirst();
    const ports = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(first);
    }
    // Drawn at random: 20 draws are not all one port.
    expect(new Set(ports).size).toBeGreaterThan(1);
    const server = await listenOn(ports[0]);
    await new Promise((resolve) => server.close(resolve));
  });
});
