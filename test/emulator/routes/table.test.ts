/**
 * The emulator's route table as a whole (packages/emulator/routes/): every route of the public API
 * and of the operator answers at its path and method, with the emulator started inside the test
 * (not in a `beforeAll`), so that what registers the routes runs within the test that checks them.
 * docs/service-api.md § Requests, § What the emulator adds.
 */
import { apiRequest, operatorRequest, rawRequest, startEmulator } from "../../helpers/emulator";
import { destinationBody, subscriptionBody } from "../../helpers/emulator-fixtures";

const KEY = "key-route-table";

describe("the route table", () => {
  it("answers every route of the API and of the operator, each kind with the methods it supports", async () => {
    const em = await startEmulator({ apiKeys: [KEY] });
    try {
      /** A request to the API with the account's key, or to the operator with the admin key. */
      const send = async (method: string, url: string, body?: unknown, headers?: Record<string, string>) => {
        const res = url.startsWith("/_operator")
          ? await operatorRequest(em.url, em.adminKey, method, url, body)
          : await apiRequest(em.url, KEY, method, url, body, headers);
        const echoed = res.headers["idempotency-key"];
        return { status: res.status, body: res.text ? res.json() : undefined, echoed };
      };

      expect((await rawRequest({ method: "GET", url: `${em.url}/openapi.json` })).status).toBe(200);

      // Destinations: create (idempotent with a key), get, update, list.
      const idem = { "idempotency-key": "route-table-1" };
      const d = await send("POST", "/event_destinations", destinationBody(), idem);
      expect(d.status).toBe(201);
      const replay = await send("POST", "/event_destinations", destinationBody(), idem);
      expect([replay.status, replay.body?.id]).toEqual([201, d.body?.id]);
      const dPath = `/event_destinations/${d.body?.id}`;
      expect((await send("GET", dPath)).body?.id).toBe(d.body?.id);
      // An update is no create: an Idempotency-Key sent with it is neither checked nor echoed.
      const dPatched = await send(
        "PATCH",
        dPath,
        { description: "patched" },
        { "idempotency-key": "not a key" },
      );
      expect([dPatched.status, dPatched.body?.description, dPatched.echoed]).toEqual([
        200,
        "patched",
        undefined,
      ]);
      const dList = await send("GET", "/event_destinations");
      expect(dList.body?.event_destinations.map((x: { id: string }) => x.id)).toEqual([d.body?.id]);

      // Subscriptions: the same five, and the event-type check on create and update.
      const s = await send("POST", "/event_subscriptions", subscriptionBody([d.body?.id]));
      expect(s.status).toBe(201);
      const sPath = `/event_subscriptions/${s.body?.id}`;
      expect((await send("GET", sPath)).body?.id).toBe(s.body?.id);
      const sPatched = await send("PATCH", sPath, { description: "patched" });
      expect([sPatched.status, sPatched.body?.description]).toEqual([200, "patched"]);
      const bad = { sources: [{ type: "no_such_event.v0" }] };
      expect((await send("POST", "/event_subscriptions", subscriptionBody([d.body?.id], bad))).status).toBe(
        400,
      );
      expect((await send("PATCH", sPath, bad)).status).toBe(400);
      expect((await send("GET", "/event_subscriptions")).body?.event_subscriptions).toHaveLength(1);
      expect((await send("DELETE", sPath)).status).toBe(204);
      expect((await send("DELETE", dPath)).status).toBe(204);

      // Abuse reports: create and get only.
      const r = await send("POST", "/abuse_reports", { urls: ["https://bad.example/x"] });
      expect(r.status).toBe(201);
      const rPath = `/abuse_reports/${r.body?.id}`;
      expect((await send("GET", rPath)).body?.id).toBe(r.body?.id);
      expect((await send("PATCH", rPath, { metadata: "x" })).status).toBe(405);
      expect((await send("DELETE", rPath)).status).toBe(405);
      expect((await send("GET", "/abuse_reports")).status).toBe(405);

      // The operator's routes. The review is no create: an Idempotency-Key sent with it, even
      // one that is not well formed, is neither checked nor echoed.
      const review = await rawRequest({
        method: "POST",
        url: `${em.url}/_operator${rPath}/review`,
        headers: {
          authorization: `Bearer ${em.adminKey}`,
          "content-type": "application/json",
          "idempotency-key": "not a key",
        },
        body: JSON.stringify({ hostnames: [{ hostname: "bad.example", status: "BANNED" }] }),
      });
      expect([review.status, review.json().status, review.headers["idempotency-key"]]).toEqual([
        200,
        "PROCESSED",
        undefined,
      ]);
      expect((await send("GET", "/_operator/faults")).status).toBe(200);
      const faults = await send("PUT", "/_operator/faults", { status429: 0 });
      expect([faults.status, faults.body?.status429]).toEqual([200, 0]);
      const log = await send("GET", "/_operator/requests?limit=2");
      expect([log.status, log.body?.requests.length]).toEqual([200, 2]);
      expect((await send("DELETE", "/_operator/requests")).status).toBe(204);
      expect((await send("GET", "/_operator/requests")).body?.requests).toEqual([]);
    } finally {
      await em.close();
    }
  });
});
