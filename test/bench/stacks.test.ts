/**
 * The emulator meter of the benchmarks (bench/stacks.ts): the key each request is counted under.
 */
import { routeKey } from "../../bench/stacks";

describe("routeKey", () => {
  it.each([
    ["GET", "/event_subscriptions/:id", "GET /event_subscriptions/{id}"],
    ["GET", "/event_subscriptions", "GET /event_subscriptions"],
    ["GET", "/event_subscriptions/:id/sources/:type", "GET /event_subscriptions/{id}/sources/{type}"],
    ["DELETE", "/event_destinations/:id", "DELETE /event_destinations/{id}"],
    ["POST", undefined, "POST (no route)"],
  ])("%s %s is counted as %s", (method, url, key) => {
    expect(routeKey(method, url)).toBe(key);
  });
});
