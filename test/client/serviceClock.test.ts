/**
 * The service's clock as the client sees it (client/serviceClock.ts): the `Date` header of the
 * service's own 2xx answers (those with an `Operation-Id`), against a monotonic local clock, the
 * estimate the least offset of the recent answers. Through a client against a scripted server:
 * serviceClock-transport.test.ts.
 */
import {
  SERVICE_CLOCK_SAMPLES,
  SERVICE_CLOCK_WINDOW_MS,
  ServiceClock,
  monotonicNowMs,
  type ServiceAnswer,
} from "../../client";
import { json, serviceError, wireSubscription } from "../helpers/scripted-server";
import { scriptedClients } from "../helpers/scripted-client";

const scripted = scriptedClients("sk_service_clock_test_key");
afterEach(() => scripted.close());
afterEach(() => jest.restoreAllMocks());

/** The `Date` header a clock reading `ms` (milliseconds since the Unix epoch) sends: whole seconds. */
function httpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}

const OP_ID = `op_${"x".repeat(27)}`;
/** The service's own 2xx answer, its `Date` read from a clock at `serviceMs`. */
const ok = (serviceMs: number): ServiceAnswer => ({
  status: 200,
  operationId: OP_ID,
  date: httpDate(serviceMs),
});

const T0 = Date.parse("2026-11-26T05:00:00Z");

describe("ServiceClock", () => {
  it("is unknown until a Date is seen, then gives the service's time at a local time", () => {
    const clock = new ServiceClock();
    expect(clock.now()).toBeUndefined();
    clock.observe("Thu, 26 Nov 2026 05:00:10 GMT", Date.parse("2026-11-26T05:00:00Z"));
    expect(clock.now(Date.parse("2026-11-26T05:01:00Z"))).toBe(Date.parse("2026-11-26T05:01:10Z"));
  });

  it("keeps the least recent offset, whatever the order, and ignores a missing or malformed header", () => {
    for (const dates of [
      ["Thu, 26 Nov 2026 05:00:10 GMT", "Thu, 26 Nov 2026 04:59:55 GMT"],
      ["Thu, 26 Nov 2026 04:59:55 GMT", "Thu, 26 Nov 2026 05:00:10 GMT"],
    ]) {
      const clock = new ServiceClock();
      for (const date of dates) clock.observe(date, T0);
      clock.observe(undefined, T0);
      clock.observe("not a date", T0);
      expect(clock.now(T0)).toBe(T0 - 5_000);
    }
  });

  it("ignores a gateway's 502 or 504 whose Date is ahead of the service's", () => {
    for (const status of [502, 504]) {
      const gatewayPage = (serviceMs: number): ServiceAnswer => ({
        status,
        operationId: undefined,
        date: httpDate(serviceMs + 1_500),
      });
      const clock = new ServiceClock();
      clock.observeAnswer(gatewayPage(T0), T0);
      expect(clock.now(T0)).toBeUndefined();
      clock.observeAnswer(ok(T0), T0);
      clock.observeAnswer(gatewayPage(T0 + 1_000), T0 + 1_000);
      expect(clock.now(T0 + 2_000)).toBe(T0 + 2_000);
    }
  });

  it("ignores a 2xx without Operation-Id, and the service's own error answers", () => {
    const clock = new ServiceClock();
    clock.observeAnswer({ status: 200, operationId: undefined, date: httpDate(T0 + 3_000) }, T0);
    clock.observeAnswer({ status: 204, operationId: "", date: httpDate(T0 + 3_000) }, T0);
    expect(clock.now(T0)).toBeUndefined();
    clock.observeAnswer({ status: 500, operationId: OP_ID, date: httpDate(T0 - 60_000) }, T0);
    clock.observeAnswer({ status: 404, operationId: OP_ID, date: httpDate(T0 - 60_000) }, T0);
    expect(clock.now(T0)).toBeUndefined();
    clock.observeAnswer({ status: 201, operationId: OP_ID, date: httpDate(T0) }, T0);
    expect(clock.now(T0)).toBe(T0);
  });

  it("of several answers, does not move ahead with one 1.5 s ahead of the others", () => {
    // Replica A's clock reads the local time; replica B's runs 1.5 s ahead. A stamps created_at.
    const clock = new ServiceClock();
    for (let i = 0; i < 5; i++) clock.observeAnswer(ok(T0 + i * 1_000), T0 + i * 1_000);
    clock.observeAnswer(ok(T0 + 5_000 + 1_500), T0 + 5_000);
    expect(clock.now(T0 + 6_000)).toBe(T0 + 6_000);
  });

  it("is a lower bound of the clock of every replica the recent answers came from", () => {
    // Two replicas, B 1.5 s ahead of A, answer in turn after a transit of 0-300 ms; the local
    // time moves on by 0-20 s between answers.
    let seed = 7;
    const random = (): number => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    const skews = [0, 1_500];
    const clock = new ServiceClock();
    let local = T0 + 123;
    for (let i = 0; i < 200; i++) {
      const stampedAt = local + random() * 20_000;
      local = stampedAt + random() * 300;
      clock.observeAnswer(ok(stampedAt + skews[i % 2]), local);
      if (i === 0) continue;
      for (const at of [local, local + random() * 60_000]) {
        const estimate = clock.now(at)!;
        expect(estimate).toBeLessThanOrEqual(at);
        expect(estimate).toBeGreaterThan(at - 1_000 - 300);
      }
    }
  });

  it("lets a low offset hold the estimate back for the last 32 answers within 5 minutes of the latest", () => {
    expect([SERVICE_CLOCK_SAMPLES, SERVICE_CLOCK_WINDOW_MS]).toEqual([32, 300_000]);
    // One late answer (3 s in transit), then prompt ones: held back until it is the 33rd.
    const byCount = new ServiceClock();
    byCount.observeAnswer(ok(T0), T0 + 3_000);
    for (let i = 1; i < SERVICE_CLOCK_SAMPLES; i++) byCount.observeAnswer(ok(T0 + i * 1_000), T0 + i * 1_000);
    expect(byCount.now(T0 + 60_000)).toBe(T0 + 57_000);
    byCount.observeAnswer(ok(T0 + 40_000), T0 + 40_000);
    expect(byCount.now(T0 + 60_000)).toBe(T0 + 60_000);
    // The same late answer, then one 5 minutes after it, then one later still.
    const byTime = new ServiceClock();
    byTime.observeAnswer(ok(T0), T0 + 3_000);
    byTime.observeAnswer(ok(T0 + 303_000), T0 + 303_000);
    expect(byTime.now(T0 + 400_000)).toBe(T0 + 397_000);
    byTime.observeAnswer(ok(T0 + 304_000), T0 + 304_000);
    expect(byTime.now(T0 + 400_000)).toBe(T0 + 400_000);
    // The latest answer is kept however long ago it came.
    expect(byTime.now(T0 + 86_400_000)).toBe(T0 + 86_400_000);
  });

  it("with monotonic local times, a step of the wall clock does not move the estimate", () => {
    // The create starts at monotonic and wall time T0; then NTP steps the wall clock back an
    // hour; the service (whose clock reads T0 + 0.4 s at the start) answers 2 s later.
    const clock = new ServiceClock();
    const startedMs = T0;
    const monotonicArrivalMs = T0 + 2_000;
    clock.observeAnswer(ok(T0 + 400 + 1_950), monotonicArrivalMs);
    expect(clock.now(startedMs)).toBe(T0);
    expect(clock.now(monotonicArrivalMs)).toBe(T0 + 2_000);
  });

  it("reads local time from a monotonic clock by default, which a step of Date.now() does not move", () => {
    const clock = new ServiceClock();
    clock.observe(httpDate(Date.now()));
    const before = clock.now()!;
    const monotonicBefore = monotonicNowMs();
    const wallNow = Date.now.bind(Date);
    jest.spyOn(Date, "now").mockImplementation(() => wallNow() - 3_600_000);
    expect(Math.abs(Date.now() + 3_600_000 - wallNow())).toBeLessThan(1_000);
    const movedBy = clock.now()! - before;
    expect(movedBy).toBeGreaterThanOrEqual(0);
    expect(movedBy).toBeLessThan(1_000);
    const monotonicMovedBy = monotonicNowMs() - monotonicBefore;
    expect(monotonicMovedBy).toBeGreaterThanOrEqual(0);
    expect(monotonicMovedBy).toBeLessThan(1_000);
    expect(Math.abs(monotonicNowMs() - (performance.timeOrigin + performance.now()))).toBeLessThan(50);
  });
});

describe("ServiceClient.serviceClock", () => {
  it("learns the service's time from the Date of its 2xx answers, not of its errors", async () => {
    const { client } = await scripted.start([
      serviceError(404, 404, "not found", { date: "Thu, 26 Nov 2026 05:00:00 GMT" }),
      json(200, wireSubscription("http://svc", 1), { date: "Fri, 27 Nov 2026 05:00:00 GMT" }),
    ]);
    expect(client.serviceClock.now()).toBeUndefined();
    await expect(client.eventSubscriptions.get("esb_" + "A".repeat(27))).rejects.toThrow();
    expect(client.serviceClock.now()).toBeUndefined();
    const before = monotonicNowMs();
    await client.eventSubscriptions.get("esb_" + "A".repeat(27));
    const after = monotonicNowMs();
    const seen = client.serviceClock.now(after)!;
    expect(seen).toBeGreaterThanOrEqual(Date.parse("2026-11-27T05:00:00Z"));
    expect(seen).toBeLessThanOrEqual(Date.parse("2026-11-27T05:00:00Z") + (after - before));
  });
});

test("observeAnswer takes a 2xx up to 299 with an Operation-Id, not the service's errors nor a blank Operation-Id", () => {
  const clock = new ServiceClock();
  clock.observeAnswer({ ...ok(T0 + 9_000), status: 400 }, T0);
  clock.observeAnswer({ ...ok(T0 + 9_000), status: 300 }, T0);
  clock.observeAnswer({ ...ok(T0 + 9_000), status: 199 }, T0);
  clock.observeAnswer({ ...ok(T0 + 9_000), operationId: "  " }, T0);
  expect(clock.now(T0)).toBeUndefined();
  clock.observeAnswer({ ...ok(T0 + 3_000), status: 299 }, T0);
  expect(clock.now(T0)).toBe(T0 + 3_000);
});
