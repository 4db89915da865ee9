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
const schema = JSON.parse(text) as {
  name: string;
  config: { variables: Record<string, Prop> };
  provider: Res;
  resources: Record<string, Res>;
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
    const secretFields = Object.values(schema.types).flatMap((t) =>
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
});
