/**
 * The resource options the providers apply themselves: which `replaceOnChanges` path makes a
 * changed property replace, and the options the dynamic door's classes forward as an input.
 */
import {
  RESOURCE_OPTIONS_INPUT,
  carryOptions,
  diffResult,
  forwardedOptions,
  replacesOnChange,
} from "../../../provider/impl/resourceOptions";

describe("replaceOnChanges paths", () => {
  it.each([
    ["description", ["description"], true],
    ["sources", ["sources[*].type"], true],
    ["target", ["target.datadog.apiKey"], true],
    ["metadata", ["*"], true],
    ["metadata", ["description", "meta"], false],
    ["description", ["descriptions"], false],
    ["description", [], false],
  ])("a change of %s with %j replaces: %s", (name, paths, replaces) => {
    expect(replacesOnChange(name, paths)).toBe(replaces);
  });
});

describe("forwarded options", () => {
  it("reads replaceOnChanges from the hidden input, and nothing from a malformed one", () => {
    expect(forwardedOptions({ [RESOURCE_OPTIONS_INPUT]: { replaceOnChanges: ["a", 3, "b"] } })).toEqual({
      replaceOnChanges: ["a", "b"],
    });
    expect(forwardedOptions({ [RESOURCE_OPTIONS_INPUT]: "description" })).toEqual({});
    expect(forwardedOptions({ [RESOURCE_OPTIONS_INPUT]: { replaceOnChanges: "description" } })).toEqual({});
    expect(forwardedOptions({ [RESOURCE_OPTIONS_INPUT]: null })).toEqual({});
    expect(forwardedOptions({})).toEqual({});
    expect(forwardedOptions(undefined)).toEqual({});
  });

  it("turns the named changed properties into replacements, the others stay updates", () => {
    const news = { [RESOURCE_OPTIONS_INPUT]: { replaceOnChanges: ["description"] } };
    expect(diffResult(["description", "metadata"], news)).toMatchObject({
      changes: true,
      diffs: ["description", "metadata"],
      replaces: ["description"],
    });
    expect(diffResult(["metadata"], news)).toMatchObject({ changes: true, replaces: [] });
    expect(diffResult([], news)).toMatchObject({ changes: false, diffs: [], replaces: [] });
    expect(diffResult(["urls"], {}, { replaceAll: true })).toMatchObject({ replaces: ["urls"] });
  });

  it("answers a diff whose uri and createdAt are stable and whose replacements are created before the old is deleted", () => {
    expect(diffResult(["metadata"], {}, { replaceAll: true })).toEqual({
      changes: true,
      diffs: ["metadata"],
      replaces: ["metadata"],
      stables: ["uri", "createdAt"],
      deleteBeforeReplace: false,
    });
  });

  it("carries the forwarded options into a result's outputs for a later delete, and leaves a result without them as it is", () => {
    const options = { customTimeouts: { delete: "1m" } };
    const result = { id: "x", outs: { a: 1 } };
    expect(carryOptions(result, { [RESOURCE_OPTIONS_INPUT]: options, b: 2 })).toEqual({
      id: "x",
      outs: { a: 1, [RESOURCE_OPTIONS_INPUT]: options },
    });
    expect(carryOptions(result, { b: 2 })).toBe(result);
    expect(carryOptions(result, undefined)).toBe(result);
  });
});
