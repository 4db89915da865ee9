/**
 * The client's one owner of `Idempotency-Key` (sdk/idempotency.ts): which creates get a key,
 * when a keyed POST may be sent again after a lost answer, and what the server showed.
 */
import { Idempotency } from "../../sdk";

describe("Idempotency", () => {
  it.each([
    [false, undefined, false],
    [true, undefined, true],
    ["auto", undefined, true],
    [false, "caller-key", true],
  ] as const)("setting %s with key %s: a create carries a key: %s", (setting, explicit, keyed) => {
    const key = new Idempotency(setting).keyFor(explicit);
    expect(key !== undefined).toBe(keyed);
    if (explicit !== undefined) expect(key).toBe(explicit);
  });

  it("gives every create a new key", () => {
    const i = new Idempotency(true);
    expect(i.keyFor()).not.toBe(i.keyFor());
  });

  it.each([
    [true, [], true],
    [false, [], true],
    ["auto", [], false],
    ["auto", [["k", "k", 429]], true],
    [
      "auto",
      [
        ["k", "k", 201],
        ["k", undefined, 201],
      ],
      false,
    ],
    ["auto", [["k", undefined, 503]], false],
  ] as const)("setting %s after answers %j: may resend: %s", (setting, answers, expected) => {
    const i = new Idempotency(setting);
    for (const [sent, echoed, status] of answers) i.observe(sent, echoed, status);
    expect(i.mayResend()).toBe(expected);
  });

  it("honoured: unknown, then what the latest keyed answer showed", () => {
    const i = new Idempotency("auto");
    expect(i.honoured).toBeUndefined();
    i.observe("k", undefined, 500);
    expect(i.honoured).toBeUndefined();
    i.observe("k", "k", 201);
    expect(i.honoured).toBe(true);
    i.observe("k2", undefined, 201);
    expect(i.honoured).toBe(false);
  });
});
