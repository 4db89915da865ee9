/**
 * The Pulumi package schema of the native provider (`pulumi-resource-service`), generated from
 * the contract: one resource per descriptor (`RESOURCE_LIST` of packages/contract/descriptors.ts:
 * its Pulumi type name, schemas, secret and immutable fields); its inputs are the create body,
 * its outputs the response without `id`; object types, enums and the secret flag of write-only
 * fields come from the zod schemas and their metadata. Its functions (invokes) are lookups, also
 * one set per descriptor (see {@link FUNCTIONS}): `get<Type>` by ID for a resource the service
 * reads, `get<Types>` (every page of the list) for one it lists; they return the resource's
 * outputs and `id`, its secret fields secret. `scripts/gen-schema.ts` writes it to
 * `provider/native/schema.json` (`npm run gen:schema`), the file `GetSchema` serves.
 * Reference: https://www.pulumi.com/docs/iac/extending-pulumi/schema/
 *
 * @packageDocumentation
 */
import { z } from "zod";
import * as contract from "service-contract";
import { SETTINGS } from "../impl/process/settings";
import { PROSE, TypeBuilder } from "./schemaTypes";

/** A JSON object of the schema. */
type Json = Record<string, unknown>;

/** Name of the package, the first part of every token. */
export const PACKAGE = "service";

/**
 * Where the engine downloads the plugin (`pulumi-resource-service-v<version>-<os>-<arch>.tar.gz`)
 * when a program needs it and it is not installed: the assets of this repository's GitHub
 * releases (`github://api.github.com/<owner>` names the repository `<owner>/pulumi-<package>`).
 * A mirror is chosen without changing any package with the engine's own
 * `PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES` (`^github://api.github.com/pulumi-service=<mirror URL>`).
 */
export const PLUGIN_DOWNLOAD_URL = "github://api.github.com/pulumi-service";

/** The package's logo (SVG), as the Pulumi registry shows it: docs/logo.svg on the main branch. */
export const LOGO_URL = "https://raw.githubusercontent.com/pulumi-service/pulumi-service/main/docs/logo.svg";

/**
 * The README of the Python SDK (`language.python.readme` of the schema), which the generator
 * writes to sdk/python/README.md and the wheel carries as its PyPI page: install, configure
 * (the service's URL and the API key as a secret), a program, and where the rest is documented.
 */
const PYTHON_README = `# pulumi_service

Pulumi resources of the service: event subscriptions, event destinations and abuse reports.

\`\`\`sh
pip install pulumi_service
\`\`\`

The Pulumi engine downloads the provider's plugin (\`pulumi-resource-service\`, one
self-contained executable per platform) the first time a program needs it; no Node.js is needed.

Configure the stack with the service's base URL and an API key, kept encrypted as a secret:

\`\`\`sh
pulumi config set service:baseUrl https://api.example.com
pulumi config set --secret service:apiKey
\`\`\`

\`\`\`python
import pulumi
import pulumi_service as service

sub = service.EventSubscription(
    "ip-policy-changes",
    description="IP policy changes",
    sources=[{"type": "ip_policy_created.v0"}],
)
pulumi.export("subscription_id", sub.id)
\`\`\`

Several accounts in one program: one \`service.Provider\` per account, passed with
\`pulumi.ResourceOptions(provider=...)\`. Resources, configuration and a local emulator for tests:
https://github.com/pulumi-service/pulumi-service#readme
`;

/** A resource of the schema: its token, prose, and what its descriptor in the contract says. */
export interface ResourceSpec {
  token: string;
  description: string;
  create: z.ZodObject;
  response: z.ZodObject;
  /** Inputs the provider takes besides the create body. */
  extraInputs: Record<string, Json>;
  /** Inputs also kept as outputs (not in the response). */
  inputsAsOutputs: string[];
  /** Properties a change of which replaces the resource (the descriptor's `immutable`). */
  replaceOnChanges: string[];
  /** Properties stored as secrets, inputs and outputs (the descriptor's `secret`). */
  secrets: string[];
  /** The contract's descriptor of the resource (names, ID prefix, operations). */
  descriptor: contract.ResourceDescriptor;
}

/** What the schema adds to each descriptor of the contract, by Pulumi type name. */
const EXTRAS: Record<string, { description: string; adopt: boolean; inputsAsOutputs?: string[] }> = {
  EventSubscription: {
    description:
      "An event subscription: which event types (sources) go to which event destinations. " +
      "Every change is an update in place. Reference: docs/service-api.md § Event subscriptions.",
    adopt: true,
    inputsAsOutputs: ["destinationIds"],
  },
  EventDestination: {
    description:
      "An event destination (Firehose, Kinesis, CloudWatch Logs, Datadog or Azure Logs " +
      "Ingestion). Every change is an update in place; `target` is a secret. Reference: " +
      "docs/service-api.md § Event destinations.",
    adopt: true,
  },
  AbuseReport: {
    description:
      "An abuse report. Reports have no update: a change of `urls` (other than their order) or " +
      "`metadata` files a new report (replace); delete makes no API call (reports cannot be " +
      "deleted). Reference: docs/service-api.md § Abuse reports.",
    adopt: false,
  },
};

/**
 * The resources, one per descriptor of the contract (`RESOURCE_LIST`), in its order.
 * @throws Error (when loaded) for a descriptor this module has no prose for.
 */
export const RESOURCES: ResourceSpec[] = contract.RESOURCE_LIST.map((d): ResourceSpec => {
  const extra = EXTRAS[d.pulumiType];
  const adoptId: Json = { type: "string", description: `${PROSE.adoptId} An \`${d.idPrefix}…\` ID.` };
  if (!extra) throw new Error(`provider/native/schema.ts has no description of ${d.pulumiType}`);
  return {
    token: `${PACKAGE}:index:${d.pulumiType}`,
    description: extra.description,
    create: d.schemas.create,
    response: d.schemas.response,
    extraInputs: extra.adopt ? { adoptId } : {},
    inputsAsOutputs: extra.inputsAsOutputs ?? [],
    replaceOnChanges: [...d.fields.immutable],
    secrets: [...d.fields.secret],
    descriptor: d,
  };
});

/**
 * A function (invoke) of the schema: a lookup of one resource by ID (`get`) or of every resource
 * of a kind in the account (`list`). Its result holds the resource's outputs and `id`.
 */
export interface FunctionSpec {
  /** `service:index:getEventSubscription` (`get`), `service:index:getEventSubscriptions` (`list`). */
  token: string;
  /** `get`: input `id`, the result is one resource; `list`: no input, the result is `items`. */
  kind: "get" | "list";
  /** The resource whose outputs the result holds. */
  resource: ResourceSpec;
}

/** `eventSubscriptions` → `EventSubscriptions`. */
const pascal = (camel: string) => camel[0].toUpperCase() + camel.slice(1);

/**
 * The functions, from the descriptors' operations: `get<Type>` for each resource the service
 * reads by ID (`get`), `get<Types>` for each it lists (`list`, named after the descriptor's
 * `listKey`), in the order of {@link RESOURCES}.
 */
export const FUNCTIONS: FunctionSpec[] = RESOURCES.flatMap((r): FunctionSpec[] => {
  const d = r.descriptor;
  const get: FunctionSpec[] = contract.supports(d, "get")
    ? [{ token: `${PACKAGE}:index:get${d.pulumiType}`, kind: "get", resource: r }]
    : [];
  const list: FunctionSpec[] =
    contract.supports(d, "list") && d.listKey
      ? [{ token: `${PACKAGE}:index:get${pascal(d.listKey)}`, kind: "list", resource: r }]
      : [];
  return [...get, ...list];
});

/** The provider's configuration: each setting of provider/impl/runtime.ts. */
const CONFIG: Record<keyof typeof SETTINGS, Json> = {
  apiKey: { type: "string", secret: true, description: "API key of the account." },
  baseUrl: {
    type: "string",
    description: "Base URL of the service (e.g. `http://127.0.0.1:8787` for the emulator).",
  },
  caCertificate: { type: "string", description: "A private CA to trust: PEM text or a PEM file's path." },
  requestTimeoutMs: { type: "integer", description: "Timeout of one request, in milliseconds." },
  maxRetries: { type: "integer", description: "Retries of a failed request." },
  retryBudgetMs: { type: "integer", description: "Time all retries of one call may take, in milliseconds." },
  maxRequestsPerSecond: {
    type: "number",
    description:
      "Most requests per second to the account, shared by this user's provider processes of the account on the machine; unset: a rate learned from the service's 429s. Above 0, at most 10000.",
  },
  requestBurst: {
    type: "integer",
    description: "Requests an idle account may send at once under that rate.",
  },
};

/** The configuration's properties with the key and environment fallback in each description. */
function configProperties(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(CONFIG).map(([name, spec]) => {
      const s = SETTINGS[name as keyof typeof SETTINGS];
      const range = "number" in s ? ` From ${s.number.min} to ${s.number.max}.` : "";
      const env = ` Stack config \`${s.key}\`; environment variable \`${s.env}\` when unset.`;
      return [name, { ...spec, description: `${spec.description as string}${range}${env}` }];
    }),
  );
}

/** Marks the listed properties secret and replace-on-change. */
function flag(properties: Record<string, Json>, spec: ResourceSpec): void {
  for (const p of spec.secrets) if (properties[p]) properties[p].secret = true;
  for (const p of spec.replaceOnChanges) if (properties[p]) properties[p].replaceOnChanges = true;
}

/** The resource's input properties (the create body and the extra inputs) and required names. */
function inputsOf(spec: ResourceSpec, types: TypeBuilder) {
  const inputs = types.properties(spec.create.shape as Record<string, z.ZodType>);
  Object.assign(inputs.properties, spec.extraInputs);
  return inputs;
}

/** The resource's output properties (the response without `id`, and inputs kept as outputs). */
function outputsOf(spec: ResourceSpec, types: TypeBuilder) {
  const inputs = inputsOf(spec, types);
  const { id: _id, ...responseShape } = spec.response.shape as Record<string, z.ZodType>;
  const outputs = types.properties(responseShape);
  for (const name of spec.inputsAsOutputs) {
    outputs.properties[name] = inputs.properties[name];
    outputs.required.push(name);
  }
  return outputs;
}

/** The resource's schema: inputs from the create body, outputs from the response. */
function resource(spec: ResourceSpec, types: TypeBuilder): Json {
  const inputs = inputsOf(spec, types);
  const outputs = outputsOf(spec, types);
  flag(inputs.properties, spec);
  flag(outputs.properties, spec);
  return {
    description: spec.description,
    properties: outputs.properties,
    required: outputs.required,
    inputProperties: inputs.properties,
    requiredInputs: inputs.required,
  };
}

/**
 * What one lookup returns: `id` and the resource's outputs, its secret properties marked
 * secret (a function has nothing to replace: no `replaceOnChanges`).
 */
function lookupResult(
  spec: ResourceSpec,
  types: TypeBuilder,
): { properties: Record<string, Json>; required: string[] } {
  const { names, idPrefix } = spec.descriptor;
  const outputs = outputsOf(spec, types);
  for (const p of spec.secrets) if (outputs.properties[p]) outputs.properties[p].secret = true;
  // A lookup knows no program's values: write-only fields read back as the API returns them.
  for (const [p, prop] of Object.entries(outputs.properties)) {
    const writeOnly = spec.descriptor.fields.writeOnly.filter((w) => w.startsWith(`${p}.`));
    if (writeOnly.length === 0) continue;
    const leaves = [...new Set(writeOnly.map((w) => `\`${w.split(".").pop()}\``))];
    const first = String(prop.description).split(/(?<=\.) /)[0];
    prop.description = `${first} Its write-only credentials (${leaves.join(", ")}) read back as \`""\`: the API never returns them.`;
  }
  const id: Json = { type: "string", description: `ID (\`${idPrefix}…\`) of the ${names.singular}.` };
  return { properties: { id, ...outputs.properties }, required: ["id", ...outputs.required] };
}

/** The description of a function, from its descriptor's names (and its secret fields). */
function functionDescription(fn: FunctionSpec): string {
  const { names, idPrefix, pulumiType } = fn.resource.descriptor;
  const resource = `${names.article.split(" ")[0]} \`${pulumiType}\` resource`;
  const secrets = fn.resource.secrets.map((p) => `\`${p}\``);
  const secretNote =
    secrets.length > 0 ? ` ${secrets.join(", ")} ${secrets.length > 1 ? "are secrets" : "is a secret"}.` : "";
  if (fn.kind === "get")
    return (
      `Reads ${names.article} by its ID (\`${idPrefix}…\`): \`id\` and the outputs ${resource} has. ` +
      `Fails, naming the ID, when the account of the provider's API key has no such ` +
      `${names.singular}.${secretNote}`
    );
  return (
    `Lists every ${names.singular} of the account of the provider's API key (all pages, newest ` +
    `first) as \`items\`: each with \`id\` and the outputs ${resource} has.${secretNote}`
  );
}

/** The schema of a function; a list's item type is added to `types` (`service:index:get<Types>Item`). */
function functionSchema(fn: FunctionSpec, types: TypeBuilder): Json {
  const result = lookupResult(fn.resource, types);
  const { names, idPrefix } = fn.resource.descriptor;
  if (fn.kind === "get") {
    return {
      description: functionDescription(fn),
      inputs: {
        properties: {
          id: { type: "string", description: `ID (\`${idPrefix}…\`) of the ${names.singular} to read.` },
        },
        required: ["id"],
      },
      outputs: result,
    };
  }
  const itemToken = `${fn.token}Item`;
  types.types[itemToken] = {
    type: "object",
    description: `One ${names.singular} of the list: \`id\` and the outputs of the resource.`,
    ...result,
  };
  return {
    description: functionDescription(fn),
    outputs: {
      properties: {
        items: {
          type: "array",
          items: { $ref: `#/types/${itemToken}` },
          description: `Every ${names.singular} of the account, newest first.`,
        },
      },
      required: ["items"],
    },
  };
}

/**
 * The whole package schema, deterministic (the same contract gives the same JSON).
 * @param version the package version (package.json's).
 * @throws Error when the contract holds a kind of schema the mapping lacks.
 */
export function buildSchema(version: string): Json {
  const types = new TypeBuilder(PACKAGE);
  const resources = Object.fromEntries(RESOURCES.map((r) => [r.token, resource(r, types)]));
  const functions = Object.fromEntries(FUNCTIONS.map((f) => [f.token, functionSchema(f, types)]));
  const config = configProperties();
  return {
    name: PACKAGE,
    displayName: "Service",
    version,
    description: "Event subscriptions, event destinations and abuse reports of the service.",
    keywords: ["pulumi", "service", "category/utility", "kind/native"],
    homepage: "https://github.com/pulumi-service/pulumi-service#readme",
    license: "Apache-2.0",
    repository: "https://github.com/pulumi-service/pulumi-service",
    publisher: "pulumi-service",
    logoUrl: LOGO_URL,
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    // Pulumi's "pack" mode: each generator writes its package metadata at this version (Go's
    // go.mod, Python's version), the SDK layout npm run gen:sdks publishes.
    meta: { supportPack: true },
    config: { variables: config },
    provider: {
      description: "The provider of the service: one account (API key) and base URL.",
      properties: config,
      inputProperties: config,
    },
    resources,
    functions,
    types: Object.fromEntries(Object.entries(types.types).sort(([a], [b]) => a.localeCompare(b))),
    language: {
      nodejs: {
        packageName: "@pulumi-service/service",
        packageDescription: "Native Pulumi resources of the service (generated from the schema).",
        dependencies: { "@pulumi/pulumi": "^3.248.0" },
        respectSchemaVersion: true,
      },
      python: {
        packageName: "pulumi_service",
        // The Python SDK's floor is the oldest engine and SDK release the suite deploys with
        // (OLDEST_PULUMI_VERSION of scripts/pulumi-env.js), not the generator's default.
        requires: { pulumi: ">=3.248.0,<4.0.0" },
        readme: PYTHON_README,
        respectSchemaVersion: true,
        pyproject: { enabled: true },
      },
      go: {
        importBasePath: "github.com/pulumi-service/pulumi-service/sdk/go/service",
        generateResourceContainerTypes: true,
        respectSchemaVersion: true,
      },
    },
  };
}

/** The schema as `schema.json` holds it: two-space JSON and a final newline. */
export function schemaText(version: string): string {
  return `${JSON.stringify(buildSchema(version), null, 2)}\n`;
}
