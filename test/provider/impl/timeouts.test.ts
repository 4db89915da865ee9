/**
 * `customTimeouts` in the providers (provider/impl/timeouts.ts): Pulumi's duration strings, the
 * dynamic door's forwarded timeouts, and an operation that ends at its timeout with an error
 * that names it.
 */
import { RESOURCE_OPTIONS_INPUT } from "../../../provider/impl/resourceOptions";
import {
  OperationTimeoutError,
  TIMEOUT_MARGIN_MS,
  durationMs,
  forwardedTimeoutMs,
  timed,
  withTimeout,
} from "../../../provider/impl/timeouts";
import { currentDeadline } from "../../../client/deadline";
import { LOAD_SLACK_MS } from "../../helpers/timing";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("durationMs", () => {
  it.each([
    ["2s", 2_000],
    ["1m30s", 90_000],
    ["1.5h", 5_400_000],
    ["500ms", 500],
    ["10m", 600_000],
    ["1.25s", 1_250],
    ["1h0.25m", 3_615_000],
  ])("%s is %d ms", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it.each(["", "2", "2 s", "-1s", "1d", "2sx", "x2s", 5])("%j is not a duration", (text) => {
    expect(durationMs(text)).toBeUndefined();
  });
});

describe("forwardedTimeoutMs", () => {
  it("reads the dynamic door's forwarded timeout of each operation", () => {
    const props = { [RESOURCE_OPTIONS_INPUT]: { customTimeouts: { create: "2s", delete: "1m" } } };
    expect(forwardedTimeoutMs(props, "create")).toBe(2_000);
    expect(forwardedTimeoutMs(props, "update")).toBeUndefined();
    expect(forwardedTimeoutMs(props, "delete")).toBe(60_000);
    expect(forwardedTimeoutMs({}, "create")).toBeUndefined();
    expect(forwardedTimeoutMs(undefined, "delete")).toBeUndefined();
    // A zero timeout is none.
    expect(
      forwardedTimeoutMs({ [RESOURCE_OPTIONS_INPUT]: { customTimeouts: { create: "0s" } } }, "create"),
    ).toBeUndefined();
  });

  it("timed takes the dynamic door's forwarded timeout when the native door gives none", async () => {
    const props = { [RESOURCE_OPTIONS_INPUT]: { customTimeouts: { update: "2s" } } };
    const deadline = await timed("update", "x", props, undefined, async () => currentDeadline());
    expect(deadline?.label).toBe("the update timeout of 2 s (customTimeouts.update)");
  });
});

describe("withTimeout", () => {
  it("runs an operation without a timeout as it is, with no deadline", async () => {
    await expect(
      withTimeout("create", "x", undefined, async () => currentDeadline()),
    ).resolves.toBeUndefined();
  });

  it("gives the operation a deadline that names the timeout", async () => {
    const deadline = await withTimeout("update", "x", 2_000, async () => currentDeadline());
    expect(deadline?.label).toBe("the update timeout of 2 s (customTimeouts.update)");
  });

  it("fails an operation that outlives its timeout within the margin, naming the timeout", async () => {
    const started = Date.now();
    const error = await withTimeout("delete", "event subscription esb_1", 300, () => sleep(10_000)).catch(
      (e: Error) => e,
    );
    const ms = Date.now() - started;
    expect(String(error)).toMatch(
      /delete of event subscription esb_1 did not finish within the delete timeout of 300 ms \(customTimeouts.delete\).*next `pulumi destroy`/,
    );
    expect(ms).toBeGreaterThanOrEqual(300);
    // At its timeout, not at the operation's end (10 s); a loaded machine may add to the margin.
    expect(ms).toBeLessThan(300 + TIMEOUT_MARGIN_MS + LOAD_SLACK_MS);
  });

  it("says a create that timed out may still be made", async () => {
    const error = await withTimeout("create", "event subscription", 100, () => sleep(5_000)).catch(
      (e: Error) => e,
    );
    expect(String(error)).toMatch(/The service may still make it: find it with `service-drift generate`/);
  });

  it("tells whether the service may still make a create, and gives the headline without the cause", async () => {
    const create = (await withTimeout("create", "event subscription", 100, () => sleep(5_000)).catch(
      (e: unknown) => e,
    )) as OperationTimeoutError;
    expect(create).toBeInstanceOf(OperationTimeoutError);
    expect(create.mayHaveBeenMade).toBe(true);
    expect(create.headline).toBe(
      "create of event subscription did not finish within the create timeout of 100 ms (customTimeouts.create)",
    );
    expect(create.message.startsWith(`${create.headline}: no answer.`)).toBe(true);
    const update = (await withTimeout("update", "event subscription esb_1", 100, () => sleep(5_000)).catch(
      (e: unknown) => e,
    )) as OperationTimeoutError;
    expect(update.mayHaveBeenMade).toBe(false);
    expect(update.message).toBe(
      "update of event subscription esb_1 did not finish within the update timeout of 100 ms (customTimeouts.update): no answer.",
    );
  });

  it("names a timeout of exactly a second in seconds, and runs one of less than zero as none", async () => {
    const deadline = await withTimeout("update", "x", 1_000, async () => currentDeadline());
    expect(deadline?.label).toBe("the update timeout of 1 s (customTimeouts.update)");
    await expect(withTimeout("update", "x", -1, async () => currentDeadline())).resolves.toBeUndefined();
  });

  it("a create that fails with a definite error after its timeout passed is not one the service may still make", async () => {
    const error = (await withTimeout("create", "event subscription", 100, async () => {
      await sleep(200);
      throw new Error("400 refused");
    }).catch((e: unknown) => e)) as OperationTimeoutError;
    expect(error).toBeInstanceOf(OperationTimeoutError);
    expect([error.name, error.mayHaveBeenMade, (error.cause as Error).message]).toEqual([
      "OperationTimeoutError",
      false,
      "400 refused",
    ]);
  });

  describe("on a clock of the test's (fake timers)", () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it(`fails an operation that never answers at most TIMEOUT_MARGIN_MS (${TIMEOUT_MARGIN_MS} ms) after its timeout, and leaves no timer`, async () => {
      const outcome = withTimeout("update", "x", 300, () => new Promise<never>(() => {})).catch(
        (e: unknown) => e,
      );
      await jest.advanceTimersByTimeAsync(300 + TIMEOUT_MARGIN_MS);
      expect(await outcome).toBeInstanceOf(OperationTimeoutError);
      expect(jest.getTimerCount()).toBe(0);
    });

    it("leaves no timer once an operation has answered", async () => {
      await expect(withTimeout("update", "x", 60_000, async () => "done")).resolves.toBe("done");
      expect(jest.getTimerCount()).toBe(0);
    });
  });

  it("passes an operation's own early error unchanged", async () => {
    const own = new Error("400 bad request");
    await expect(
      withTimeout("create", "x", 5_000, async () => {
        throw own;
      }),
    ).rejects.toBe(own);
  });
});
