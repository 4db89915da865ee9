/**
 * The service's clock through a client against a scripted server (client/transport.ts feeding
 * client/serviceClock.ts): which answers tell it (the service's own 2xx, with `Operation-Id`),
 * that one replica ahead does not move it ahead, and that local time is monotonic, so a step of
 * this machine's wall clock does not move it either.
 */
import type { ServerResponse } from "node:http";
import { monotonicNowMs } from "../../client";
import { json, wireSubscription, type Step } from "../helpers/scripted-server";
import { scriptedClients } from "../helpers/scripted-client";

const scripted = scriptedClients("sk_service_clock_transport_test_key", { maxRetries: 0 });
afterEach(() => scripted.close());
afterEach(() => jest.restoreAllMocks());

const ID = "esb_" + "A".repeat(27);

/** The `Date` header a clock reading `ms` (milliseconds since the Unix epoch) sends: whole seconds. */
function httpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}

/** A gateway's own error page (no `Operation-Id`) with its own `Date`, read from `dateMs()` as it answers. */
function gatewayPage(status: 502 | 504, dateMs: () => number): Step {
  return (_req, res: ServerResponse) => {
    res.writeHead(status, { "content-type": "text/html", date: httpDate(dateMs()) });
    res.end(`<html><body><h1>${status}</h1></body></html>`);
  };
}

/**
 * The service's 200 (a subscription) with its `Operation-Id`, or without when `operationId` is
 * false, and a `Date` read from a clock `skewMs` ahead of this machine's monotonic one as it answers.
 */
function serviceAnswer(skewMs: number, operationId = true): Step {
  return (req, res, socket) => {
    if (operationId) {
      json(200, wireSubscription("http://svc", 1), { date: httpDate(monotonicNowMs() + skewMs) })(
        req,
        res,
        socket,
      );
      return;
    }
    res.writeHead(200, { "content-type": "application/json", date: httpDate(monotonicNowMs() + skewMs) });
    res.end(JSON.stringify(wireSubscription("http://svc", 1)));
  };
}

describe("ServiceClient.serviceClock, through the transport", () => {
  it("ignores a gateway's 502 and 504, whose Dates are ahead of or behind the service's", async () => {
    const { client } = await scripted.start([
      gatewayPage(504, () => monotonicNowMs() + 1_500),
      gatewayPage(502, () => monotonicNowMs() + 1_500),
      serviceAnswer(0),
      gatewayPage(502, () => monotonicNowMs() - 3_600_000),
      gatewayPage(504, () => monotonicNowMs() - 3_600_000),
    ]);
    await expect(client.eventSubscriptions.get(ID)).rejects.toThrow(/504/);
    await expect(client.eventSubscriptions.get(ID)).rejects.toThrow(/502/);
    expect(client.serviceClock.now()).toBeUndefined();
    await client.eventSubscriptions.get(ID);
    const told = client.serviceClock.now()!;
    expect(told).toBeLessThanOrEqual(monotonicNowMs());
    await expect(client.eventSubscriptions.get(ID)).rejects.toThrow(/502/);
    await expect(client.eventSubscriptions.get(ID)).rejects.toThrow(/504/);
    const local = monotonicNowMs();
    expect(client.serviceClock.now(local)).toBeLessThanOrEqual(local);
    expect(client.serviceClock.now(local)).toBeGreaterThan(local - 2_000);
  });

  it("ignores a 2xx without Operation-Id", async () => {
    const { client } = await scripted.start([serviceAnswer(3_000, false), serviceAnswer(0)]);
    await client.eventSubscriptions.get(ID);
    expect(client.serviceClock.now()).toBeUndefined();
    await client.eventSubscriptions.get(ID);
    const local = monotonicNowMs();
    expect(client.serviceClock.now(local)).toBeLessThanOrEqual(local);
  });

  it("does not move ahead when one answer of several comes from a replica 1.5 s ahead", async () => {
    const { client } = await scripted.start([serviceAnswer(0), serviceAnswer(0), serviceAnswer(1_500)]);
    for (let i = 0; i < 3; i++) await client.eventSubscriptions.get(ID);
    const local = monotonicNowMs();
    const estimate = client.serviceClock.now(local)!;
    expect(estimate).toBeLessThanOrEqual(local);
    expect(estimate).toBeGreaterThan(local - 2_000);
  });

  it("gives the service's time at a create's start even when the wall clock is stepped back since", async () => {
    // The service's clock reads this machine's monotonic time; the wall clock is an hour behind
    // from just after the create starts.
    const { client } = await scripted.start([serviceAnswer(0)]);
    const startedMs = monotonicNowMs();
    const wallNow = Date.now.bind(Date);
    jest.spyOn(Date, "now").mockImplementation(() => wallNow() - 3_600_000);
    await client.eventSubscriptions.get(ID);
    const estimate = client.serviceClock.now(startedMs)!;
    expect(estimate).toBeLessThanOrEqual(startedMs);
    expect(estimate).toBeGreaterThan(startedMs - 2_000);
  });
});
