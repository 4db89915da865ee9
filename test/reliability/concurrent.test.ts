/**
 * Requests in flight at the same time against one emulator: each pairing ends in a consistent store.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { apiRequest, startEmulator } from "../helpers/emulator";
import { destinationBody, subscriptionBody } from "../helpers/emulator-fixtures";

// Requests in flight at the same time on many connections. One emulator process handles them one
// after another (handlers are synchronous), so these check the outcome of each pairing, not an
// interleaving inside a handler.
describe("requests in flight at the same time", () => {
  it("a create naming a destination and that destination's delete: exactly one wins, no dangling link", async () => {
    const em = await startEmulator({
      apiKeys: ["k-race"],
      data: path.join(tmpdir(), `race-${process.pid}-${Date.now()}.db`),
    });
    try {
      const call = (m: string, p: string, b?: unknown) => apiRequest(em.url, "k-race", m, p, b);
      for (let round = 0; round < 15; round++) {
        const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
        const [created, deleted] = await Promise.all([
          call("POST", "/event_subscriptions", subscriptionBody([d])),
          call("DELETE", `/event_destinations/${d}`),
        ]);
        // Exactly one of them wins.
        expect([created.status, deleted.status].sort()).toEqual(
          created.status === 201 ? [201, 409] : [204, 400],
        );
      }
      const snap = em.store.snapshot();
      const destIds = new Set(snap.event_destinations.map((d) => (d as { id: string }).id));
      for (const link of snap.subscription_destinations as { destination_id: string }[]) {
        expect(destIds.has(link.destination_id)).toBe(true);
      }
    } finally {
      await em.close();
      for (const ext of ["", "-wal", "-shm"]) rmSync(em.store.path + ext, { force: true });
    }
  });

  it("40 creates sent at once: 40 distinct subscriptions, all listed", async () => {
    const em = await startEmulator({ apiKeys: ["k-many"] });
    try {
      const call = (m: string, p: string, b?: unknown) => apiRequest(em.url, "k-many", m, p, b);
      const d = (await call("POST", "/event_destinations", destinationBody())).json().id;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          call("POST", "/event_subscriptions", subscriptionBody([d], { description: `c${i}` })),
        ),
      );
      expect(results.every((r) => r.status === 201)).toBe(true);
      const ids = new Set(results.map((r) => r.json().id));
      expect(ids.size).toBe(40);
      const list = (await call("GET", "/event_subscriptions")).json().event_subscriptions;
      expect(new Set(list.map((s: { id: string }) => s.id))).toEqual(ids);
    } finally {
      await em.close();
    }
  });
});
