/**
 * Deadlines over whole operations (client/deadline.ts): every request made inside
 * `withDeadline` ends by it, retries and their waits included, and none is sent after it.
 */
import { APIConnectionTimeoutError, ServiceClient } from "../../client";
import { currentDeadline, withDeadline } from "../../client/deadline";
import {
  hang,
  json,
  serviceError,
  startScriptedServer,
  wireSubscription,
  type ScriptedServer,
} from "../helpers/scripted-server";
import { LOAD_SLACK_MS } from "../helpers/timing";

const API_KEY = "sk_test_deadline_0123456789abcdef";
const SUB_ID = "esb_" + "D".repeat(27);

let server: ScriptedServer;
let client: ServiceClient;

afterEach(async () => {
  await client?.close();
  await server?.close();
});

async function start(steps: Parameters<typeof startScriptedServer>[0]) {
  server = await startScriptedServer(steps);
  client = new ServiceClient({ apiKey: API_KEY, baseUrl: server.url, maxRetries: 10, retryBudgetMs: 60_000 });
}

/** Runs `fn` and returns its error and how long it took, in milliseconds. */
async function timed(fn: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await fn();
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  throw new Error("expected the call to fail");
}

describe("withDeadline", () => {
  it("cuts a request that gets no answer to the time left", async () => {
    await start([hang]);
    const { error, ms } = await timed(() =>
      withDeadline(400, "the test's deadline", () => client.eventSubscriptions.get(SUB_ID)),
    );
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(400 + LOAD_SLACK_MS);
  });

  it("ends retries and their waits by the deadline (503 with Retry-After: 1 every time)", async () => {
    await start([serviceError(503, 500, "busy", { "retry-after": "1" })]);
    const { error, ms } = await timed(() =>
      withDeadline(1_500, "the test's deadline", () => client.eventSubscriptions.get(SUB_ID)),
    );
    expect((error as Error).message).toMatch(/busy/);
    expect(ms).toBeLessThan(1_500 + LOAD_SLACK_MS);
    // Without the deadline, the same client keeps retrying well past it.
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });

  it("sends nothing once the deadline has passed, and says which deadline", async () => {
    await start([json(200, wireSubscription(`http://127.0.0.1`, 1))]);
    const { error } = await timed(() =>
      withDeadline(50, "the create timeout of 50 ms", async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return client.eventSubscriptions.get(SUB_ID);
      }),
    );
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect((error as APIConnectionTimeoutError).requestNotSent).toBe(true);
    expect((error as Error).message).toMatch(/not sent: the create timeout of 50 ms has passed/);
    expect(server.requests).toHaveLength(0);
  });

  it("does not let an inner deadline extend an outer one; none outside", async () => {
    expect(currentDeadline()).toBeUndefined();
    await withDeadline(1_000, "outer", async () => {
      const outer = currentDeadline();
      await withDeadline(60_000, "inner", async () => expect(currentDeadline()).toBe(outer));
      await withDeadline(10, "shorter", async () => expect(currentDeadline()?.label).toBe("shorter"));
    });
  });

  it("leaves a call without a deadline to the client's own limits", async () => {
    await start([
      serviceError(503, 500, "busy", { "retry-after": "0" }),
      json(200, wireSubscription("http://x", 1)),
    ]);
    await expect(client.eventSubscriptions.get(SUB_ID)).resolves.toMatchObject({ id: expect.any(String) });
    expect(server.requests).toHaveLength(2);
  });
});

test("an inner deadline at the same moment as the outer one keeps the outer one (and its label)", async () => {
  const now = jest.spyOn(Date, "now").mockReturnValue(1_000_000);
  try {
    const seen = await withDeadline(500, "outer", () =>
      withDeadline(500, "inner", async () => currentDeadline()),
    );
    expect(seen).toEqual({ at: 1_000_500, label: "outer" });
  } finally {
    now.mockRestore();
  }
});
