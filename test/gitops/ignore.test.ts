/**
 * `ignoreChanges` in the drift report (gitops/ignore.ts, and analyzeRefreshEvents of
 * gitops/events.ts with the paths of the state), without an engine: what a team with ignored
 * properties sees when someone edits them on the service.
 */
import { analyzeRefreshEvents } from "../../gitops/events";
import { ignoreChangesOf, ignoredProperties, parsePropertyPath, resetPaths } from "../../gitops/ignore";
import { MASKED_SECRET, outputsEvent } from "../helpers/gitops";

const SUB = "service:index:EventSubscription";
const DEST = "service:index:EventDestination";
const urnOf = (type: string, name: string) => `urn:pulumi:dev::proj::${type}::${name}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

describe("property paths of ignoreChanges", () => {
  it("parses keys, indexes, quoted keys and wildcards as Pulumi writes them", () => {
    expect(parsePropertyPath("description")).toEqual(["description"]);
    expect(parsePropertyPath("sources[0].filter")).toEqual(["sources", 0, "filter"]);
    expect(parsePropertyPath('tags["a.b"].c')).toEqual(["tags", "a.b", "c"]);
    expect(parsePropertyPath("sources[*].type")).toEqual(["sources", { wildcard: true }, "type"]);
    expect(parsePropertyPath("*")).toEqual([{ wildcard: true }]);
    expect(() => parsePropertyPath("sources[0")).toThrow(/Not a property path: "sources\[0"/);
  });

  it("resetting a path takes the last deployed value back there and leaves the rest live", () => {
    const before = { sources: [{ type: "a", filter: "x" }], description: "d" };
    const after = { sources: [{ type: "b", filter: "y" }], description: "e" };
    expect(resetPaths(before, after, [parsePropertyPath("sources[0].filter")])).toEqual({
      sources: [{ type: "b", filter: "x" }],
      description: "e",
    });
    expect(resetPaths(before, after, [parsePropertyPath("sources[*].filter")])).toEqual({
      sources: [{ type: "b", filter: "x" }],
      description: "e",
    });
    // A property the deployment did not have is removed again; the inputs are not changed.
    expect(resetPaths({}, { metadata: "m" }, [["metadata"]])).toEqual({});
    expect(after.sources[0].filter).toBe("y");
  });
});

describe("the ignoreChanges of the state", () => {
  it("reads each resource's paths by URN, resources without any left out", () => {
    const deployment = {
      resources: [
        { urn: "s", type: "pulumi:pulumi:Stack" },
        { urn: "a", type: SUB, ignoreChanges: ["description", "sources[0].filter"] },
        { urn: "b", type: SUB, ignoreChanges: [] },
      ],
    };
    expect([...ignoreChangesOf(deployment)]).toEqual([["a", ["description", "sources[0].filter"]]]);
    expect(ignoreChangesOf(undefined).size).toBe(0);
  });

  it("a property is ignored only when its ignored paths explain the whole change", () => {
    const before = { sources: [{ type: "a", filter: "x" }], description: "d" };
    const after = { sources: [{ type: "b", filter: "y" }], description: "e" };
    expect(ignoredProperties(["description", "sources"], before, after, ["description"], same)).toEqual([
      "description",
    ]);
    expect(ignoredProperties(["sources"], before, after, ["sources[0].filter"], same)).toEqual([]);
    expect(
      ignoredProperties(["sources"], before, after, ["sources[0].filter", "sources[0].type"], same),
    ).toEqual(["sources"]);
    expect(ignoredProperties(["description"], before, after, [], same)).toEqual([]);
  });
});

describe("drift analysis with the state's ignoreChanges", () => {
  const old = { description: "first", metadata: "m1", sources: [{ type: "t" }] };

  it("a change under ignoreChanges is not drift: it is listed apart, whether the engine said update or same", () => {
    const paths = new Map([
      [urnOf(SUB, "ignored"), ["metadata"]],
      [urnOf(SUB, "same-op"), ["metadata"]],
    ]);
    const { resources, ignored } = analyzeRefreshEvents(
      [
        outputsEvent("update", SUB, "ignored", old, { ...old, metadata: "edited by hand" }),
        outputsEvent("same", SUB, "same-op", old, { ...old, metadata: "edited too" }),
      ],
      paths,
    );
    expect(resources).toEqual([]);
    expect(ignored).toEqual([
      {
        name: "ignored",
        type: "EventSubscription",
        typeToken: SUB,
        urn: urnOf(SUB, "ignored"),
        id: "id-ignored",
        ignoreChanges: ["metadata"],
        properties: [{ property: "metadata", before: "m1", after: "edited by hand", secret: false }],
      },
      expect.objectContaining({
        name: "same-op",
        properties: [{ property: "metadata", before: "m1", after: "edited too", secret: false }],
      }),
    ]);
  });

  it("a change of another property of the same resource is still drift, the ignored one apart", () => {
    const { resources, ignored } = analyzeRefreshEvents(
      [outputsEvent("update", SUB, "both", old, { ...old, metadata: "x", description: "edited by hand" })],
      new Map([[urnOf(SUB, "both"), ["metadata"]]]),
    );
    expect(resources).toEqual([
      expect.objectContaining({
        name: "both",
        status: "changed",
        properties: [{ property: "description", before: "first", after: "edited by hand", secret: false }],
      }),
    ]);
    expect(ignored.map((r) => r.properties.map((p) => p.property))).toEqual([["metadata"]]);
  });

  it("without ignoreChanges the same change is drift; an output-only change of a same result is neither", () => {
    const { resources, ignored } = analyzeRefreshEvents([
      outputsEvent("update", SUB, "plain", old, { ...old, metadata: "edited by hand" }),
      outputsEvent("same", SUB, "status", { status: "PENDING" }, { status: "PROCESSED" }),
    ]);
    expect(resources.map((r) => [r.name, r.properties.map((p) => p.property)])).toEqual([
      ["plain", ["metadata"]],
    ]);
    expect(ignored).toEqual([]);
  });

  it("a secret property is ignored when a path names it as a whole; otherwise its masked change is drift", () => {
    const dest = { description: "d", target: MASKED_SECRET };
    const event = outputsEvent("update", DEST, "dest", dest, { ...dest });
    expect(analyzeRefreshEvents([event], new Map([[urnOf(DEST, "dest"), ["target"]]])).resources).toEqual([]);
    expect(
      analyzeRefreshEvents([event], new Map([[urnOf(DEST, "dest"), ["description"]]])).resources,
    ).toEqual([
      expect.objectContaining({
        properties: [{ property: "target", before: "[secret]", after: "[secret]", secret: true }],
      }),
    ]);
  });
});

describe("property paths at their edges", () => {
  it("a quoted key may hold ] and begin with it", () => {
    expect(parsePropertyPath('tags["a]b"]')).toEqual(["tags", "a]b"]);
    expect(parsePropertyPath('tags["]x"].y')).toEqual(["tags", "]x", "y"]);
  });

  it("an index is digits only", () => {
    expect(parsePropertyPath("sources[12].type")).toEqual(["sources", 12, "type"]);
    for (const bad of ["sources[x]", "sources[1x]", "sources[x1]"]) {
      expect(() => parsePropertyPath(bad)).toThrow(
        new Error(`Not a property path: "${bad}" (at character 8)`),
      );
    }
  });

  it("each path that is not one is refused naming the character where it stops", () => {
    const refused: [string, number][] = [
      ["sources[0", 8],
      ["sources[12", 8],
      ['tags["a]', 5],
      ["a..b", 3],
    ];
    for (const [bad, at] of refused) {
      expect(() => parsePropertyPath(bad)).toThrow(
        new Error(`Not a property path: ${JSON.stringify(bad)} (at character ${at})`),
      );
    }
  });
});

describe("resetting paths, more", () => {
  it("a path under a value that is no longer an object leaves that value as it is", () => {
    expect(
      resetPaths({ target: { datadog: { ddsite: "x" } } }, { target: "[secret]" }, [
        parsePropertyPath("target.datadog.ddsite"),
      ]),
    ).toStrictEqual({ target: "[secret]" });
  });

  it("a key the deployment did not have is removed from an object; a list keeps its length", () => {
    expect(resetPaths({}, { metadata: "m", description: "d" }, [["metadata"]])).toStrictEqual({
      description: "d",
    });
    expect(resetPaths({ sources: ["a"] }, { sources: ["a", "b"] }, [["sources", 1]])).toStrictEqual({
      sources: ["a", undefined],
    });
  });
});

describe("the ignoreChanges of the state, more", () => {
  it("entries that are not resources, and paths that are not strings, are skipped", () => {
    const deployment = {
      resources: [
        null,
        { urn: "a", ignoreChanges: ["description", 5, null, "metadata"] },
        { urn: "b", ignoreChanges: [7] },
      ],
    };
    expect([...ignoreChangesOf(deployment)]).toEqual([["a", ["description", "metadata"]]]);
  });

  it("a path that does not parse matches the top-level property of that very name only", () => {
    const before = { "sources[0": 1, description: "d" };
    const after = { "sources[0": 2, description: "e" };
    expect(ignoredProperties(["sources[0", "description"], before, after, ["sources[0"], same)).toEqual([
      "sources[0",
    ]);
  });
});
