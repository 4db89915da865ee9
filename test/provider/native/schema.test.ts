/**
 * The native provider's schema (provider/native/schema.json) against the contract it is
 * generated from: current with the generator, every field of the contract present, secrets,
 * enums, required fields, replace-on-change and descriptions where Pulumi's tools read them.
 */
import * as fs from "fs";
import * as path from "path";
import { z } from "zod";
import * as contract from "service-contract";
import { RESOURCES, schemaText } from "../../../provider/native/schema";

const ROOT = path.resolve(__dirname, "../../..");
const FILE = path.join(ROOT, "provider", "native", "schema.json");
const text = fs.readFileSync(FILE, "utf8");
type Prop = {
  type?: string;
  $ref?: string;
  secret?: boolean;
  description?: string;
  replaceOnChanges?: boolean;
};
type Obj = { properties: Record<string, Prop>; required?: string[] };
type Res = Obj & { inputProperties: Record<string, Prop>; requiredInputs: string[] };
type Fn = { description: string; inputs?: Obj; outputs: Obj & { required: string[] } };
const schema = JSON.parse(text) as {
  name: string;
  config: { variables: Record<string, Prop> };
  provider: Res;
  resources: Record<string, Res>;
  functions: Record<string, Fn>;
  types: Record<string, Obj & { type: string; enum?: { value: string }[] }>;
  language: Record<string, Record<string, unknown>>;
};

/** Names of the write-only fields of a zod schema, at any depth, as `Type.field` of the schema's types. */
function writeOnly(s: z.ZodType, found: string[] = []): string[] {
  const inner = s instanceof z.ZodOptional ? (s.unwrap() as z.ZodType) : s;
  if (inner instanceof z.ZodObject) {
    for (const [k, v] of Object.entries(inner.shape as Record<string, z.ZodType>)) {
      if (contract.metaOf(v).writeOnly === true) found.push(k);
      writeOnly(v, found);
    }
  }
  if (inner instanceof z.ZodUnion) for (const o of inner.options as z.ZodType[]) writeOnly(o, found);
  if (inner instanceof z.ZodArray) writeOnly(inner.element as z.ZodType, found);
  return found;
}

describe("provider/native/schema.json", () => {
  it("is what `npm run gen:schema` writes from the contract today (not stale)", () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
      version: string;
    };
    expect(text).toBe(schemaText(version));
  });

  it("names the package service with the three resource tokens and language sections", () => {
    expect(schema.name).toBe("service");
    expect(Object.keys(schema.resources).sort()).toEqual([
      "service:index:AbuseReport",
      "service:index:EventDestination",
      "service:index:EventSubscription",
    ]);
    expect(schema.language.python.packageName).toBe("pulumi_service");
    expect(schema.language.go.importBasePath).toBe("github.com/pulumi-service/pulumi-service/sdk/go/service");
    expect(schema.language.nodejs.packageName).toBeDefined();
  });

  it.each(RESOURCES.map((r) => [r.token, r] as const))(
    "%s has every field of the contract's create body as an input and of its response as an output",
    (token, r) => {
      const res = schema.resources[token];
      const create = Object.keys(r.create.shape);
      const response = Object.keys(r.response.shape).filter((k) => k !== "id");
      expect(Object.keys(res.inputProperties)).toEqual(expect.arrayContaining(create));
      expect(Object.keys(res.properties)).toEqual(expect.arrayContaining(response));
      const required = create.filter((k) => !(r.create.shape[k] instanceof z.ZodOptional));
      expect([...res.requiredInputs].sort()).toEqual(required.sort());
      for (const p of [...Object.values(res.inputProperties), ...Object.values(res.properties)])
        expect(p.description?.length).toBeGreaterThan(0);
    },
  );

  it.each(contract.RESOURCE_LIST.map((d) => [d.pulumiType, d] as const))(
    "%s follows its descriptor: secret fields secret, immutable ones replaceOnChanges, computed ones outputs only",
    (type, d) => {
      const res = schema.resources[`service:index:${type}`];
      for (const f of d.fields.secret) {
        expect(res.inputProperties[f].secret).toBe(true);
        expect(res.properties[f].secret).toBe(true);
      }
      const replacing = Object.keys(res.inputProperties).filter(
        (k) => res.inputProperties[k].replaceOnChanges,
      );
      expect(replacing.sort()).toEqual([...d.fields.immutable].sort());
      for (const f of d.fields.computed) {
        expect(res.properties[f]).toBeDefined();
        expect(res.inputProperties[f]).toBeUndefined();
      }
    },
  );

  it("marks secret the API key and every write-only credential of the contract; target is a secret", () => {
    expect(schema.config.variables.apiKey.secret).toBe(true);
    expect(schema.provider.inputProperties.apiKey.secret).toBe(true);
    const credentials = [...new Set(writeOnly(contract.DestinationTarget))];
    expect(credentials.sort()).toEqual(["apiKey", "awsSecretAccessKey", "clientSecret"]);
    // The object types of the contract (not the functions' result items, which hold `target`).
    const contractTypes = Object.entries(schema.types).filter(
      ([token]) => !token.startsWith("service:index:get"),
    );
    const secretFields = contractTypes.flatMap(([, t]) =>
      Object.entries(t.properties ?? {})
        .filter(([, p]) => p.secret)
        .map(([k]) => k),
    );
    expect([...new Set(secretFields)].sort()).toEqual(credentials.sort());
    const dest = schema.resources["service:index:EventDestination"];
    expect(dest.inputProperties.target.secret).toBe(true);
    expect(dest.properties.target.secret).toBe(true);
  });

  it("has enums for statuses, format and event types; the abuse report's inputs replace it", () => {
    const values = (name: string) => schema.types[`service:index:${name}`].enum?.map((e) => e.value);
    expect(values("AbuseReportStatus")).toEqual(contract.AbuseReportStatus.options);
    expect(values("AbuseReportHostnameStatus")).toEqual(contract.AbuseReportHostnameStatus.options);
    expect(values("EventDestinationFormat")).toEqual(["json"]);
    expect(values("EventType")).toEqual([...contract.EVENT_TYPES]);
    const report = schema.resources["service:index:AbuseReport"];
    expect(report.inputProperties.urls.replaceOnChanges).toBe(true);
    expect(report.inputProperties.metadata.replaceOnChanges).toBe(true);
    const sub = schema.resources["service:index:EventSubscription"];
    expect(Object.values(sub.inputProperties).some((p) => p.replaceOnChanges)).toBe(false);
  });

  describe("functions", () => {
    /** A lookup's result: the resource's outputs with their secret flags, and `id`; nothing replaces. */
    const expectLookupResult = (result: Obj, type: string, secrets: readonly string[]) => {
      const res = schema.resources[`service:index:${type}`];
      expect(Object.keys(result.properties).sort()).toEqual(["id", ...Object.keys(res.properties)].sort());
      expect([...(result.required ?? [])].sort()).toEqual(["id", ...(res.required ?? [])].sort());
      for (const [name, p] of Object.entries(result.properties)) {
        expect({ name, secret: p.secret === true }).toEqual({ name, secret: secrets.includes(name) });
        expect(p.replaceOnChanges).toBeUndefined();
        expect(p.description?.length).toBeGreaterThan(0);
        if (name !== "id")
          expect({ ...p, description: "" }).toEqual({
            ...res.properties[name],
            description: "",
            replaceOnChanges: undefined,
          });
      }
    };

    it("are get<Type> for each resource the service reads and get<Types> for each it lists", () => {
      const expected = contract.RESOURCE_LIST.flatMap((d) => [
        ...(contract.supports(d, "get") ? [`service:index:get${d.pulumiType}`] : []),
        ...(contract.supports(d, "list") ? [`service:index:get${d.pulumiType}s`] : []),
      ]);
      expect(Object.keys(schema.functions).sort()).toEqual(expected.sort());
      expect(expected.sort()).toEqual([
        "service:index:getAbuseReport",
        "service:index:getEventDestination",
        "service:index:getEventDestinations",
        "service:index:getEventSubscription",
        "service:index:getEventSubscriptions",
      ]);
    });

    it.each(contract.RESOURCE_LIST.map((d) => [d.pulumiType, d] as const))(
      "get%s takes a required id and returns id and the resource's outputs, its secret fields secret",
      (type, d) => {
        const fn = schema.functions[`service:index:get${type}`];
        expect(fn.description).toContain(d.names.article);
        expect(Object.keys(fn.inputs?.properties ?? {})).toEqual(["id"]);
        expect(fn.inputs?.required).toEqual(["id"]);
        expect(fn.inputs?.properties.id.description).toContain(`${d.idPrefix}…`);
        expectLookupResult(fn.outputs, type, d.fields.secret);
      },
    );

    it.each(
      contract.RESOURCE_LIST.filter((d) => contract.supports(d, "list")).map(
        (d) => [d.pulumiType, d] as const,
      ),
    )(
      "get%ss takes nothing and returns items of a type holding id and the outputs, its secret fields secret",
      (type, d) => {
        const fn = schema.functions[`service:index:get${type}s`];
        expect(fn.inputs).toBeUndefined();
        expect(fn.outputs.required).toEqual(["items"]);
        const items = fn.outputs.properties.items as Prop & { items: { $ref: string } };
        expect(items.type).toBe("array");
        expect(items.items.$ref).toBe(`#/types/service:index:get${type}sItem`);
        expectLookupResult(schema.types[`service:index:get${type}sItem`], type, d.fields.secret);
      },
    );

    it("say that a destination's target is a secret whose write-only credentials read back empty", () => {
      const target = schema.functions["service:index:getEventDestination"].outputs.properties.target;
      expect(target.secret).toBe(true);
      expect(target.description).toContain("`awsSecretAccessKey`, `apiKey`, `clientSecret`");
      expect(schema.functions["service:index:getEventDestinations"].description).toContain(
        "`target` is a secret",
      );
    });
  });
});
