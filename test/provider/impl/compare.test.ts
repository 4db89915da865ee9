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
  // Each comparison runs inside its test (a thunk), not while the table is built: code run while
  // jest collects the tests belongs to no test, and the mutation run would not count it.
  it.each<[string, () => boolean, boolean]>([
    ["sameSet ignores order", () => sameSet(["a", "b"], ["b", "a"]), true],
    ["sameSet counts repeats", () => sameSet(["a", "a"], ["a", "b"]), false],
    ["sameSet of different lengths", () => sameSet(["a"], ["a", "b"]), false],
    ["sameSet of one difference", () => sameSet(["a", "b"], ["a", "c"]), false],
    ["sameSet with an unknown", () => sameSet(["a", UNKNOWN], ["a", UNKNOWN]), false],
    ["sameSet with an unknown on one side", () => sameSet(["a"], ["a", UNKNOWN]), false],
    ["sameSet of a string (an unknown list) and a list", () => sameSet("a" as never, ["a"]), false],
    ["sameSet of a list and a string", () => sameSet(["a"], "a" as never), false],
    ["sameList keeps order", () => sameList(["a", "b"], ["b", "a"]), false],
    ["sameList of equal lists", () => sameList(["a", "b"], ["a", "b"]), true],
    ["sameList of different lengths", () => sameList(["a"], ["a", "b"]), false],
    ["sameList of one difference", () => sameList(["a", "b"], ["a", "c"]), false],
    ["sameList with an unknown on one side", () => sameList([UNKNOWN], ["a"]), false],
    ["sameList of two unknowns", () => sameList([UNKNOWN], [UNKNOWN]), false],
    ["sameJson ignores undefined members", () => sameJson({ a: 1, b: undefined }, { a: 1 }), true],
    [
      "sameJson ignores undefined members on either side",
      () => sameJson({ a: 1 }, { a: 1, b: undefined }),
      true,
    ],
    ["sameJson of a member more", () => sameJson({ a: 1 }, { a: 1, b: 2 }), false],
    ["sameJson deep", () => sameJson({ a: [{ b: "x" }] }, { a: [{ b: "y" }] }), false],
    ["sameJson of equal lists", () => sameJson([1, [2]], [1, [2]]), true],
    ["sameJson of lists that differ after their first item", () => sameJson([1, 2], [1, 3]), false],
    ["sameJson of a list and a longer one that starts alike", () => sameJson([1], [1, 2]), false],
    ["sameJson of a string and a list of its characters", () => sameJson("ab", ["a", "b"]), false],
    ["sameJson of a list of characters and their string", () => sameJson(["a", "b"], "ab"), false],
    ["sameJson of a string and an object with its characters", () => sameJson("x", { 0: "x" }), false],
    [
      "sameJson of an object with a string's characters and the string",
      () => sameJson({ 0: "x" }, "x"),
      false,
    ],
    ["sameJson of an object and null", () => sameJson({}, null), false],
    ["sameJson of a list and an object with its keys", () => sameJson([1], { 0: 1 }), false],
    ["sameJson of two numbers", () => sameJson(1, 2), false],
    ["sameJson of null and an object", () => sameJson(null, {}), false],
    ["sameJson with an unknown inside", () => sameJson({ a: UNKNOWN }, { a: UNKNOWN }), false],
    ["sameJson of two unknowns", () => sameJson(UNKNOWN, UNKNOWN), false],
  ])("%s", (_what, compare, expected) => {
    expect(compare()).toBe(expected);
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
