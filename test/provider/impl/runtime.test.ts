/**
 * The provider process's runtime (provider/impl/runtime.ts): a `preview` or a run without
 * changes calls only `configure`, `check` and `diff`, which send no request, so the HTTP stack
 * (undici) is loaded with the client, on the first request, not at the process's start.
 */
import { loadedWith } from "../../helpers/loaded-modules";

const ED = `ed_${"A".repeat(27)}`;
const ESB = `esb_${"S".repeat(27)}`;
const config = (values: Record<string, string>) => ({ get: (k: string) => values[k] });

describe("loading the client", () => {
  it("configure, check and diff of both kinds load no undici; getClient does", async () => {
    await loadedWith(["undici"], async (loaded) => {
      const runtime = await import("../../../provider/impl/runtime");
      const subscriptions = await import("../../../provider/impl/eventSubscription");
      const destinations = await import("../../../provider/impl/eventDestination");

      await runtime.configure({
        config: config({ "service:apiKey": "sk_test", "service:baseUrl": "http://127.0.0.1:9" }),
      });
      const sub = { sources: [{ type: "ip_policy_created.v0" }], destinationIds: [ED] };
      expect((await subscriptions.check({}, sub)).failures).toEqual([]);
      const outs = subscriptions.toOutputs({
        id: ESB,
        uri: "u",
        createdAt: "2026-11-23T08:00:00Z",
        description: "",
        metadata: "",
        sources: [{ type: "ip_policy_created.v0", uri: "u" }],
        destinations: [{ id: ED, uri: "u" }],
      });
      expect((await subscriptions.diff(ESB, outs, sub)).changes).toBe(false);
      const dest = { target: { datadog: { apiKey: "k" } } };
      expect((await destinations.check({}, dest as never)).failures).toEqual([]);
      expect(loaded).toEqual([]);

      const client = runtime.getClient();
      expect(loaded).toEqual(["undici"]);
      expect(client.baseUrl).toBe("http://127.0.0.1:9");
      await client.close();
    });
  });
});
