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
  ])("%s is %d ms", (text, ms) => {
    expect(durationMs(text)).toBe(ms);
  });

  it.each(["", "2", "2 s", "-1s", "1d", 5])("%j is not a duration", (text) => {
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

  it("passes an operation's own early error unchanged", async () => {
    const own = new Error("400 bad request");
    await expect(
      withTimeout("create", "x", 5_000, async () => {
        throw own;
      }),
    ).rejects.toBe(own);
  });
});
