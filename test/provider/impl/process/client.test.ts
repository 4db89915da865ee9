/**
 * The one client of a provider process (provider/impl/process/client.ts): a `preview` or a run
 * without changes calls only `configure`, `check` and `diff`, which send no request, so the HTTP
 * stack (undici) is loaded with the client, on the first request, not at the process's start;
 * and the client `getClient` builds takes the settings `configure` read.
 */
import { configure, getClient } from "../../../../provider/impl/process/client";
import {
  APICertificateError,
  APIConnectionTimeoutError,
  InternalServerError,
  NotFoundError,
} from "../../../../client";
import { loadedWith } from "../../../helpers/loaded-modules";
import { configBag, isolateSettings } from "../../../helpers/provider-settings";
import {
  fakeId,
  hang,
  json,
  serviceError,
  startScriptedServer,
  wireSubscription,
} from "../../../helpers/scripted-server";
import { makeTestCa, startTlsEmulator } from "../../../helpers/tls";

const ED = `ed_${"A".repeat(27)}`;
const ESB = `esb_${"S".repeat(27)}`;
const KEY = "sk_test_RUNTIME_SECRET_0123456789";

describe("loading the client", () => {
  it("configure, check and diff of both kinds load no undici; getClient does", async () => {
    await loadedWith(["undici"], async (loaded) => {
      // The modules deployed dynamic providers load: the runtime (which re-exports the client's
      // configure and getClient) and the kinds.
      const runtime = await import("../../../../provider/impl/runtime");
      const subscriptions = await import("../../../../provider/impl/eventSubscription");
      const destinations = await import("../../../../provider/impl/eventDestination");

      await runtime.configure({
        config: configBag({ "service:apiKey": "sk_test", "service:baseUrl": "http://127.0.0.1:9" }),
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

describe("the client built from the settings", () => {
  const state = isolateSettings();

  test("requestTimeoutMs and maxRetries reach the client (config wins over the environment)", async () => {
    state.server = await startScriptedServer([hang]);
    process.env.SERVICE_REQUEST_TIMEOUT_MS = "20000";
    await configure({
      config: configBag({
        "service:apiKey": KEY,
        "service:baseUrl": state.server.url,
        "service:requestTimeoutMs": "150",
        "service:maxRetries": "0",
      }),
    });
    const started = Date.now();
    const err = await getClient()
      .eventSubscriptions.get(ESB)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIConnectionTimeoutError);
    expect((err as Error).message).toBe(
      `GET /event_subscriptions/${ESB}: no complete response within 150 ms`,
    );
    expect((err as APIConnectionTimeoutError).attempts).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  test("retryBudgetMs from the environment reaches the client: 0 means no retry", async () => {
    state.server = await startScriptedServer([
      serviceError(503, 500, "busy"),
      json(200, wireSubscription("http://svc", 1)),
    ]);
    process.env.SERVICE_RETRY_BUDGET_MS = "0";
    await configure({ config: configBag({ "service:apiKey": KEY, "service:baseUrl": state.server.url }) });
    const err = await getClient()
      .eventSubscriptions.get(fakeId("esb_", 1))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(state.server.requests).toHaveLength(1);
  });

  test("service:caCertificate: a service signed by a private CA is reached over TLS", async () => {
    const ca = makeTestCa();
    const emulator = await startTlsEmulator(ca);
    try {
      const base = { "service:apiKey": emulator.apiKeys[0], "service:baseUrl": emulator.url };
      await configure({ config: configBag(base) });
      const err = await getClient()
        .eventSubscriptions.get(ESB)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(APICertificateError);
      expect((err as Error).message).toContain("service:caCertificate");
      await configure({ config: configBag({ ...base, "service:caCertificate": ca.caPath }) });
      await expect(getClient().eventSubscriptions.get(ESB)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await configure({ config: configBag({}) });
      await emulator.close();
      ca.remove();
    }
  });

  test("service:caCertificate with several certificates: the service's CA need not be the first", async () => {
    const other = makeTestCa("another CA");
    const ca = makeTestCa();
    const emulator = await startTlsEmulator(ca);
    try {
      // The PEM text itself, the service's CA second, without a newline after the last line.
      const bundle = `${other.caPem.trim()}\n${ca.caPem.trim()}`;
      await configure({
        config: configBag({
          "service:apiKey": emulator.apiKeys[0],
          "service:baseUrl": emulator.url,
          "service:caCertificate": bundle,
        }),
      });
      await expect(getClient().eventSubscriptions.get(ESB)).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await configure({ config: configBag({}) });
      await emulator.close();
      ca.remove();
      other.remove();
    }
  });

  test("no API key: the error names service:apiKey and SERVICE_API_KEY; requests name the provider as their client", async () => {
    state.server = await startScriptedServer([json(200, wireSubscription("http://svc", 1))]);
    await configure({ config: configBag({ "service:baseUrl": state.server.url }) });
    expect(() => getClient()).toThrow(
      "No API key for the service: run `pulumi config set --secret service:apiKey <key>` or set SERVICE_API_KEY.",
    );
    await configure({ config: configBag({ "service:apiKey": KEY, "service:baseUrl": state.server.url }) });
    await getClient().eventSubscriptions.get(fakeId("esb_", 1));
    expect(state.server.requests.map((r) => r.headers["user-agent"])).toEqual(["pulumi-service-provider"]);
  });
});
