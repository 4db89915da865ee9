/**
 * The comparisons of the providers' `diff` (provider/impl/compare.ts): a value not known yet
 * never compares equal, so a preview shows the change as pending.
 */
import {
  changedProperties,
  sameJson,
  sameList,
  sameSet,
  withoutUnknown,
} from "../../../provider/impl/compare";
import { UNKNOWN } from "../../../provider/impl/inputChecks";

describe("comparisons", () => {
  it.each([
    ["sameSet ignores order", sameSet(["a", "b"], ["b", "a"]), true],
    ["sameSet counts repeats", sameSet(["a", "a"], ["a", "b"]), false],
    ["sameSet with an unknown", sameSet(["a", UNKNOWN], ["a", UNKNOWN]), false],
    ["sameList keeps order", sameList(["a", "b"], ["b", "a"]), false],
    ["sameJson ignores undefined members", sameJson({ a: 1, b: undefined }, { a: 1 }), true],
    ["sameJson deep", sameJson({ a: [{ b: "x" }] }, { a: [{ b: "y" }] }), false],
    ["sameJson with an unknown inside", sameJson({ a: UNKNOWN }, { a: UNKNOWN }), false],
  ])("%s", (_what, result, expected) => {
    expect(result).toBe(expected);
  });

  it("withoutUnknown drops unknown entries", () => {
    expect(withoutUnknown(["a", UNKNOWN, "b"])).toEqual(["a", "b"]);
  });

  it("changedProperties counts an unknown as changed without running its comparison", () => {
    const managed = {
      a: (o: { a: string }, n: { a: string }) => o.a === n.a,
      list: (o: { list: string[] }, n: { list: string[] }) => {
        if (!Array.isArray(n.list)) throw new Error("comparison ran on an unknown");
        return o.list.join() === n.list.join();
      },
    } as Record<string, (o: never, n: never) => boolean>;
    expect(
      changedProperties(managed, { a: "x", list: ["1"] } as never, { a: "x", list: UNKNOWN } as never),
    ).toEqual(["list"]);
    expect(
      changedProperties(managed, { a: "x", list: ["1"] } as never, { a: "y", list: ["1"] } as never),
    ).toEqual(["a"]);
  });
});
