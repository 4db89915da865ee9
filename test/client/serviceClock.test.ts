/**
 * The service's clock as the client sees it (client/serviceClock.ts): the `Date` header of each
 * response, whatever its status, against this machine's clock.
 */
import { ServiceClock } from "../../client";
import { json, serviceError, wireSubscription } from "../helpers/scripted-server";
import { scriptedClients } from "../helpers/scripted-client";

const scripted = scriptedClients("sk_service_clock_test_key");
afterEach(() => scripted.close());

describe("ServiceClock", () => {
  it("is unknown until a Date is seen, then gives the service's time at a local time", () => {
    const clock = new ServiceClock();
    expect(clock.now()).toBeUndefined();
    clock.observe("Thu, 26 Nov 2026 05:00:10 GMT", Date.parse("2026-11-26T05:00:00Z"));
    expect(clock.now(Date.parse("2026-11-26T05:01:00Z"))).toBe(Date.parse("2026-11-26T05:01:10Z"));
  });

  it("keeps the latest estimate, and ignores a missing or malformed header", () => {
    const clock = new ServiceClock();
    const local = Date.parse("2026-11-26T05:00:00Z");
    clock.observe("Thu, 26 Nov 2026 05:00:10 GMT", local);
    clock.observe("Thu, 26 Nov 2026 04:59:55 GMT", local);
    clock.observe(undefined, local);
    clock.observe("not a date", local);
    expect(clock.now(local)).toBe(local - 5_000);
  });
});

describe("ServiceClient.serviceClock", () => {
  it("learns the service's time from each response's Date header, an error's included", async () => {
    const { client } = await scripted.start([
      serviceError(404, 404, "not found", { date: "Thu, 26 Nov 2026 05:00:00 GMT" }),
      json(200, wireSubscription("http://svc", 1), { date: "Fri, 27 Nov 2026 05:00:00 GMT" }),
    ]);
    expect(client.serviceClock.now()).toBeUndefined();
    const before = Date.now();
    await expect(client.eventSubscriptions.get("esb_" + "A".repeat(27))).rejects.toThrow();
    const after = Date.now();
    const seen = client.serviceClock.now(after)!;
    expect(seen).toBeGreaterThanOrEqual(Date.parse("2026-11-26T05:00:00Z"));
    expect(seen).toBeLessThanOrEqual(Date.parse("2026-11-26T05:00:00Z") + (after - before));
    await client.eventSubscriptions.get("esb_" + "A".repeat(27));
    expect(client.serviceClock.now(Date.now())! - Date.parse("2026-11-27T05:00:00Z")).toBeLessThan(5_000);
  });
});
