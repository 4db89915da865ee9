/**
 * The resource descriptors: each one agrees with its own schemas (list key, computed and
 * write-only fields, defaults), and the OpenAPI document offers exactly the operations a
 * descriptor lists, at its path.
 */
import {
  buildOpenApiDocument,
  ID_KIND_NAMES,
  RESOURCE_LIST,
  RESOURCES,
  resourceByPrefix,
  SECRET_PATHS,
  wirePath,
} from "service-contract";

const METHODS = { list: "get", create: "post", get: "get", update: "patch", delete: "delete" } as const;

describe.each(RESOURCE_LIST.map((r) => [r.names.camel, r] as const))("%s", (_name, r) => {
  it("has the names, path and prefix of its kind", () => {
    expect(r.path).toBe(`/${r.names.wire}s`);
    expect(resourceByPrefix(r.idPrefix)).toBe(r);
    expect(ID_KIND_NAMES[r.idPrefix]).toBe(r.names.article);
  });

  it("lists the key of its list's items, and has the schemas its operations need", () => {
    expect(r.schemas.list !== undefined).toBe(r.operations.includes("list"));
    expect(r.schemas.update !== undefined).toBe(r.operations.includes("update"));
    if (r.schemas.list) {
      expect(Object.keys(r.schemas.list.shape)).toContain(r.listKey);
      expect(r.wireListKey).toBe(r.names.wire + "s");
    } else expect(r.listKey).toBeUndefined();
  });

  it("computes only fields of its responses that a create does not send", () => {
    const response = Object.keys(r.schemas.response.shape);
    const create = Object.keys(r.schemas.create.shape);
    for (const f of r.fields.computed) {
      expect(response).toContain(f);
      expect(create).not.toContain(f);
    }
    for (const f of [...r.fields.immutable, ...r.fields.secret]) expect(create).toContain(f.split(".")[0]);
  });

  it("is offered by the OpenAPI document with exactly its operations", () => {
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, { operationId: string }>>;
    const offered = [
      ...Object.keys(paths[r.path] ?? {}).map((m) => `${m} ${r.path}`),
      ...Object.keys(paths[`${r.path}/{id}`] ?? {}).map((m) => `${m} ${r.path}/{id}`),
    ].sort();
    const expected = r.operations
      .map((o) => `${METHODS[o]} ${r.path}${o === "list" || o === "create" ? "" : "/{id}"}`)
      .sort();
    expect(offered).toEqual(expected);
  });
});

describe("field facts", () => {
  it("a destination's write-only fields are the secrets of its target kinds", () => {
    const fromKinds = Object.entries(SECRET_PATHS).flatMap(([kind, paths]) =>
      paths.map((p) => ["target", kind, ...p].join(".")),
    );
    expect([...RESOURCES.eventDestination.fields.writeOnly].sort()).toEqual(fromKinds.sort());
    expect(RESOURCES.eventDestination.fields.writeOnly).toContain("target.datadog.apiKey");
    expect(wirePath("target.kinesis.auth.creds.awsSecretAccessKey")).toBe(
      "target.kinesis.auth.creds.aws_secret_access_key",
    );
  });

  it("an abuse report is replaced when its inputs change; a destination's format defaults to json", () => {
    expect(RESOURCES.abuseReport.fields.immutable).toEqual(["urls", "metadata"]);
    expect(RESOURCES.abuseReport.operations).toEqual(["create", "get"]);
    expect(RESOURCES.eventDestination.createDefaults).toEqual({ format: "json" });
    expect(RESOURCES.eventSubscription.createDefaults).toEqual({});
  });
});
