/**
 * `service-drift generate`'s code generation: names, references, determinism, and that nothing
 * the service returns can become code in the generated program.
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { typeCheck } from "../helpers/cli";
import type { EventDestination, EventSubscription } from "../../client";
import { assignNames, generateProgram, identifier, slug, stringLiteral } from "../../gitops/generate";

const REPO_ROOT = path.resolve(__dirname, "../..");

/** A well-formed ID: `prefix` + 27 base62 characters ending in `tail`. */
const id = (prefix: string, tail: string) => prefix + tail.padStart(27, "0");
const ED1 = id("ed_", "1");
const ED2 = id("ed_", "2");
const ED9 = id("ed_", "9");
const ESB1 = id("esb_", "1");

/** The fields every resource the service returns has. */
const common = (rid: string, description: string) => ({
  id: rid,
  uri: `u/${rid}`,
  createdAt: "2026-11-21T05:00:00Z",
  metadata: "",
  description,
});
function dest(
  destId: string,
  description: string,
  target: EventDestination["target"],
  extra = {},
): EventDestination {
  return { ...common(destId, description), format: "json", target, ...extra };
}
function sub(subId: string, description: string, destinationIds: string[], extra = {}): EventSubscription {
  return {
    ...common(subId, description),
    sources: [{ type: "ip_policy_created.v0", uri: "" }],
    destinations: destinationIds.map((d) => ({ id: d, uri: "" })),
    ...extra,
  } as EventSubscription;
}

describe("code generation", () => {
  it("names: slug of the description, else the ID; duplicates numbered in ID order", () => {
    expect(slug("  Audit stream — prod! ")).toBe("audit-stream-prod");
    expect(slug("Équipe réseau")).toBe("equipe-reseau");
    expect(slug("!!!")).toBe("");
    expect(slug("word ".repeat(30)).length).toBeLessThanOrEqual(48);
    const names = assignNames([
      { id: "esb_3", description: "Alerts" },
      { id: "esb_1", description: "Alerts" },
      { id: "esb_2", description: "" },
      { id: "esb_4", description: "alerts 2" },
    ]);
    expect(Object.fromEntries(names)).toEqual({
      esb_1: "alerts",
      esb_2: "esb_2",
      esb_3: "alerts-2",
      esb_4: "alerts-2-2",
    });
    expect(identifier("audit-stream")).toBe("auditStream");
    expect(identifier("ed_3MPx")).toBe("ed3MPx");
    expect(identifier("2fa-alerts")).toBe("r2faAlerts");
  });

  it("references destinations of the listing by resource, others by literal ID; output is deterministic", () => {
    const inventory = {
      destinations: [
        dest(ED2, "", { datadog: { apiKey: "", ddtags: "", service: "", ddsite: "datadoghq.eu" } }),
        dest(ED1, "Stream", {
          kinesis: {
            auth: { role: { roleArn: "arn:aws:iam::1:role/r" } },
            streamArn: "arn:aws:kinesis:us-east-1:1:stream/s",
          },
        }),
      ],
      subscriptions: [sub(ESB1, "Alerts", [ED1, ED9, ED2])],
    };
    const a = generateProgram(inventory);
    const b = generateProgram({
      destinations: [...inventory.destinations].reverse(),
      subscriptions: inventory.subscriptions,
    });
    expect(b.source).toBe(a.source);
    expect(runWithStandIns(a.source).find((c) => c.kind === "EventSubscription")?.args).toMatchObject({
      destinationIds: ["EventDestination:stream", ED9, `EventDestination:${ED2}`],
    });
    expect(a.source).toContain(`EventDestination.adopt("${ED2}", "${ED2}", {`);
    expect(a.source).toContain(`apiKey: config.requireSecret("${identifier(ED2)}ApiKey")`);
    expect(a.source).not.toContain("ddtags");
    expect(a.secrets).toEqual([
      { configKey: `${identifier(ED2)}ApiKey`, resourceName: ED2, id: ED2, path: "target.datadog.apiKey" },
    ]);
    expect(a.names).toEqual({ [ED1]: "stream", [ED2]: ED2, [ESB1]: "alerts" });
  });

  it("a program without secrets does not read the config", () => {
    const p = generateProgram({ destinations: [], subscriptions: [] });
    expect(p.source).not.toContain("pulumi.Config");
    expect(p.source).toContain("export const destinationIds = {};");
  });
});

/** Texts that break out of a comment, a string or a template when written raw. */
const HOSTILE = [
  ["a newline", "x\nglobalThis.__injected = 1; //"],
  ["a comment end", "x */ globalThis.__injected = 1; /* "],
  ["a backtick", "x` + (globalThis.__injected = 1) + `"],
  ["a template placeholder", "${(globalThis.__injected = 1)}"],
  ["double quotes", 'x", globalThis.__injected = 1, "'],
  ["single quotes", "x', globalThis.__injected = 1, '"],
  ["a backslash before a quote", 'x\\", globalThis.__injected = 1, "'],
  ["U+2028", "x\u2028globalThis.__injected = 1; //"],
  ["U+2029", "x\u2029globalThis.__injected = 1; //"],
  ["a carriage return", "x\rglobalThis.__injected = 1; //"],
] as const;

describe("hostile IDs are refused before anything is written", () => {
  const good = () => ({
    destinations: [dest(ED1, "d", { datadog: { apiKey: "", ddtags: "", service: "", ddsite: "" } })],
    subscriptions: [sub(ESB1, "s", [ED1])],
  });
  const spoil = (base: string, text: string) => base.slice(0, 10) + text;

  describe.each(HOSTILE)("an ID holding %s", (_label, text) => {
    it.each([
      [
        "a destination's ID",
        (inv: ReturnType<typeof good>) => (inv.destinations[0].id = spoil(ED1, text)),
        "an event destination",
      ],
      [
        "a subscription's ID",
        (inv: ReturnType<typeof good>) => (inv.subscriptions[0].id = spoil(ESB1, text)),
        "an event subscription",
      ],
      [
        "a destination ID a subscription refers to",
        (inv: ReturnType<typeof good>) => (inv.subscriptions[0].destinations[0].id = spoil(ED1, text)),
        "a destination of event subscription",
      ],
    ])("%s", (_where, mutate, what) => {
      const inventory = good();
      mutate(inventory);
      expect(() => generateProgram(inventory)).toThrow(`generate: ${what}`);
    });
  });

  it.each([
    ["too short", ED1.slice(0, -1)],
    ["too long", ED1 + "0"],
    ["a non-base62 character", ED1.slice(0, -1) + "-"],
    ["the wrong prefix", "esb_" + ED1.slice(3)],
  ])("an ID %s", (_label, bad) => {
    const inventory = good();
    inventory.destinations[0].id = bad;
    expect(() => generateProgram(inventory)).toThrow(/is not ed_ followed by 27 letters or digits/);
  });
});

/** Top-level statements that only declare: imports, `const`s of adopt calls or config, exports. */
function nonDeclarations(source: string): string[] {
  const file = ts.createSourceFile("index.ts", source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const bad: string[] = [];
  const isAllowedInit = (e: ts.Expression | undefined): boolean => {
    if (e === undefined) return false;
    if (ts.isNewExpression(e)) return e.expression.getText(file) === "pulumi.Config";
    if (ts.isCallExpression(e))
      return ["EventDestination.adopt", "EventSubscription.adopt"].includes(e.expression.getText(file));
    return ts.isObjectLiteralExpression(e);
  };
  for (const st of file.statements) {
    if (ts.isImportDeclaration(st)) continue;
    if (
      ts.isVariableStatement(st) &&
      st.declarationList.declarations.every((d) => isAllowedInit(d.initializer))
    )
      continue;
    bad.push(st.getText(file).slice(0, 200));
  }
  return bad;
}

/** Runs the generated program with stand-ins for the packages; returns the `adopt` calls. */
function runWithStandIns(source: string): { kind: string; name: string; id: string; args: unknown }[] {
  const calls: { kind: string; name: string; id: string; args: unknown }[] = [];
  const standIn = (kind: string) => ({
    adopt: (name: string, resourceId: string, args: unknown) => {
      calls.push({ kind, name, id: resourceId, args });
      return { id: `${kind}:${name}` };
    },
  });
  const modules: Record<string, unknown> = {
    "pulumi-service": {
      EventDestination: standIn("EventDestination"),
      EventSubscription: standIn("EventSubscription"),
    },
    "@pulumi/pulumi": {
      Config: class {
        requireSecret = (key: string) => `<secret ${key}>`;
      },
    },
  };
  const js = ts.transpileModule(source, {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  }).outputText;
  const fakeRequire = (name: string) => {
    if (!(name in modules)) throw new Error(`the generated program requires ${name}`);
    return modules[name];
  };
  new Function("require", "exports", "module", js)(fakeRequire, {}, { exports: {} });
  return calls;
}

describe.each(HOSTILE)("a value holding %s stays a value", (_label, text) => {
  const inventory = {
    destinations: [
      dest(
        ED1,
        text,
        { datadog: { apiKey: "", ddtags: text, service: text, ddsite: text } },
        { metadata: text, createdAt: text },
      ),
      dest(ED2, "", {
        kinesis: {
          auth: { creds: { awsAccessKeyId: text, awsSecretAccessKey: "" } },
          streamArn: text,
        },
      }),
    ],
    subscriptions: [
      sub(ESB1, text, [ED1, ED9], {
        metadata: text,
        createdAt: text,
        sources: [{ type: text, uri: text }],
      }),
    ],
  };
  const { source } = generateProgram(inventory);

  afterEach(() => {
    delete (globalThis as { __injected?: unknown }).__injected;
  });

  it("the program holds nothing but declarations", () => {
    expect(nonDeclarations(source)).toEqual([]);
  });

  it("running it passes each value through unchanged and runs nothing else", () => {
    const calls = runWithStandIns(source);
    expect((globalThis as { __injected?: unknown }).__injected).toBeUndefined();
    expect(calls.map((c) => [c.kind, c.id])).toEqual([
      ["EventDestination", ED1],
      ["EventDestination", ED2],
      ["EventSubscription", ESB1],
    ]);
    expect(calls[0].args).toEqual({
      description: text,
      metadata: text,
      target: {
        datadog: { apiKey: expect.stringMatching(/^<secret /), ddtags: text, service: text, ddsite: text },
      },
    });
    expect(calls[1].args).toEqual({
      target: {
        kinesis: {
          auth: { creds: { awsAccessKeyId: text, awsSecretAccessKey: expect.stringMatching(/^<secret /) } },
          streamArn: text,
        },
      },
    });
    expect(calls[2].args).toEqual({
      description: text,
      metadata: text,
      sources: [{ type: text }],
      destinationIds: ["EventDestination:" + calls[0].name, ED9],
    });
  });
});

describe("string literals", () => {
  it.each(HOSTILE)("%s: the literal evaluates to the text and spans one line", (_label, text) => {
    const literal = stringLiteral(text);
    expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
    expect(new Function(`return ${literal};`)()).toBe(text);
  });
});

describe("the generated program type-checks against the package's declarations", () => {
  it("with every hostile value at once", () => {
    const text = HOSTILE.map(([, t]) => t).join("");
    const { source } = generateProgram({
      destinations: [
        dest(
          ED1,
          text,
          { datadog: { apiKey: "", ddtags: text, service: text, ddsite: text } },
          { metadata: text },
        ),
      ],
      subscriptions: [sub(ESB1, text, [ED1, ED9], { metadata: text, sources: [{ type: text, uri: "" }] })],
    });
    // Inside the repository so that `pulumi-service` resolves to the built package (dist/).
    // The state folder exists only once some test has made it (a fresh clone has none).
    fs.mkdirSync(path.join(REPO_ROOT, ".pulumi-state"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(REPO_ROOT, ".pulumi-state", "generated-hostile-"));
    try {
      fs.writeFileSync(path.join(dir, "index.ts"), source);
      const diagnostics = typeCheck(path.join(dir, "index.ts"));
      expect(diagnostics).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("word for word", () => {
  it("a program with a secret, a destination of the listing and one not, and two subscriptions of one description", () => {
    const inventory = {
      destinations: [
        dest(ED2, "", { datadog: { apiKey: "", ddtags: "", service: "", ddsite: "datadoghq.eu" } }),
        dest(
          ED1,
          "Stream",
          {
            kinesis: {
              auth: { role: { roleArn: "arn:aws:iam::1:role/r" } },
              streamArn: "arn:aws:kinesis:us-east-1:1:stream/s",
            },
          },
          { metadata: "m" },
        ),
      ],
      subscriptions: [
        sub(ESB1, "Alerts", [ED1, ED9, ED2]),
        sub(id("esb_", "2"), "Alerts", [ED1], { metadata: "team=platform" }),
      ],
    };
    const source = generateProgram(inventory).source;
    expect(source.split("\n")).toEqual([
      "// Generated by `service-drift generate`: adopts the existing event destinations and event",
      "// subscriptions of the account (2 destination(s), 2 subscription(s)).",
      "// The first `pulumi up` creates and deletes nothing on the service: it reads each resource and",
      "// updates only those whose live values cannot be compared (destinations with a write-only",
      "// secret, which the API never returns: their PATCH re-sends the configured secret).",
      "//",
      "// Before the first `pulumi up`, set:",
      "//   pulumi config set service:baseUrl <base URL of the service>",
      "//   pulumi config set --secret service:apiKey <API key>",
      "//   pulumi config set --secret ed000000000000000000000000002ApiKey <value>   # target.datadog.apiKey of ed_000000000000000000000000002",
      "//",
      "// `pulumi destroy` deletes adopted resources like any other; add `{ retainOnDelete: true }`",
      "// as the last argument of `adopt` to keep one on the service.",
      'import * as pulumi from "@pulumi/pulumi";',
      'import { EventDestination, EventSubscription } from "pulumi-service";',
      "",
      "const config = new pulumi.Config();",
      "",
      'const streamDestination = EventDestination.adopt("stream", "ed_000000000000000000000000001", {',
      '  metadata: "m",',
      '  description: "Stream",',
      "  target: {",
      "    kinesis: {",
      '      auth: { role: { roleArn: "arn:aws:iam::1:role/r" } },',
      '      streamArn: "arn:aws:kinesis:us-east-1:1:stream/s",',
      "    },",
      "  },",
      "});",
      "",
      'const ed000000000000000000000000002Destination = EventDestination.adopt("ed_000000000000000000000000002", "ed_000000000000000000000000002", {',
      "  target: {",
      "    datadog: {",
      '      apiKey: config.requireSecret("ed000000000000000000000000002ApiKey"),',
      '      ddsite: "datadoghq.eu",',
      "    },",
      "  },",
      "});",
      "",
      'const alertsSubscription = EventSubscription.adopt("alerts", "esb_000000000000000000000000001", {',
      '  description: "Alerts",',
      '  sources: [{ type: "ip_policy_created.v0" }],',
      "  destinationIds: [",
      "    streamDestination.id,",
      '    "ed_000000000000000000000000009",',
      "    ed000000000000000000000000002Destination.id,",
      "  ],",
      "});",
      "",
      'const alerts2Subscription = EventSubscription.adopt("alerts-2", "esb_000000000000000000000000002", {',
      '  metadata: "team=platform",',
      '  description: "Alerts",',
      '  sources: [{ type: "ip_policy_created.v0" }],',
      "  destinationIds: [streamDestination.id],",
      "});",
      "",
      "export const destinationIds = {",
      "  stream: streamDestination.id,",
      "  ed_000000000000000000000000002: ed000000000000000000000000002Destination.id,",
      "};",
      "export const subscriptionIds = {",
      "  alerts: alertsSubscription.id,",
      '  "alerts-2": alerts2Subscription.id,',
      "};",
      "",
    ]);
  });
});

describe("names at their edges", () => {
  it("slug: a single word over 48 characters is cut to 48; words are added while the name stays within 48", () => {
    expect(slug("a".repeat(60))).toBe("a".repeat(48));
    expect(slug(`Intro ${"x".repeat(60)}`)).toBe("intro");
    expect(slug(`${"a".repeat(20)} ${"b".repeat(27)}`)).toBe(`${"a".repeat(20)}-${"b".repeat(27)}`);
    expect(slug(`${"a".repeat(20)} ${"b".repeat(28)}`)).toBe("a".repeat(20));
  });

  it("identifier: separators at either end are dropped; a name without letters or digits gives resource", () => {
    expect(identifier("-audit-stream-")).toBe("auditStream");
    expect(identifier("__ed_3MPx")).toBe("ed3MPx");
    expect(identifier("--")).toBe("resource");
    expect(identifier("")).toBe("resource");
  });

  it("an ID refused is quoted in the message cut to 120 characters", () => {
    const long = `ed_${"x".repeat(300)}`;
    expect(() =>
      generateProgram({ destinations: [dest(long, "d", { datadog: { apiKey: "" } })], subscriptions: [] }),
    ).toThrow(
      new Error(
        `generate: an event destination has the ID "ed_${"x".repeat(116)}, which is not ed_ followed by ` +
          "27 letters or digits; refusing to write it into a program",
      ),
    );
  });
});

describe("word for word, more", () => {
  it("an empty account: no config read, no secret to set, both exports empty", () => {
    expect(generateProgram({ destinations: [], subscriptions: [] }).source).toBe(
      [
        "// Generated by `service-drift generate`: adopts the existing event destinations and event",
        "// subscriptions of the account (0 destination(s), 0 subscription(s)).",
        "// The first `pulumi up` creates and deletes nothing on the service: it reads each resource and",
        "// updates only those whose live values cannot be compared (destinations with a write-only",
        "// secret, which the API never returns: their PATCH re-sends the configured secret).",
        "//",
        "// Before the first `pulumi up`, set:",
        "//   pulumi config set service:baseUrl <base URL of the service>",
        "//   pulumi config set --secret service:apiKey <API key>",
        "//",
        "// `pulumi destroy` deletes adopted resources like any other; add `{ retainOnDelete: true }`",
        "// as the last argument of `adopt` to keep one on the service.",
        'import { EventDestination, EventSubscription } from "pulumi-service";',
        "",
        "export const destinationIds = {};",
        "export const subscriptionIds = {};",
        "",
      ].join("\n"),
    );
  });

  it("three of one description, names whose identifiers collide, quoted export keys, an AWS secret, lists on one line up to 90 characters", () => {
    const ED3 = id("ed_", "3");
    const [ESB2, ESB3, ESB4] = ["2", "3", "4"].map((n) => id("esb_", n));
    // Listed out of ID order: the program is in ID order all the same.
    const { source, secrets } = generateProgram({
      destinations: [
        dest(ED3, "Audit stream2", { datadog: { apiKey: "", ddtags: "", service: "", ddsite: "" } }),
        dest(ED2, "Audit stream", {
          kinesis: {
            auth: { creds: { awsAccessKeyId: "AKIA1", awsSecretAccessKey: "" } },
            streamArn: "arn:aws:kinesis:us-east-1:1:stream/s",
          },
        }),
        // The response's other target kinds, as null (the service may send them so).
        dest(ED1, "Audit stream", {
          kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/r" }, creds: null }, streamArn: "s" },
          datadog: null,
        } as unknown as EventDestination["target"]),
      ],
      subscriptions: [
        sub(ESB4, "Alerts", [ED1]),
        sub(ESB3, "Alerts2", [ED1]),
        // A source type of 74 characters: its list is 90 characters on its line, the most kept on it.
        sub(ESB2, "Alerts", [ED2], { sources: [{ type: "t".repeat(74), uri: "" }] }),
        // One of 75: the list and the object in it go on lines of their own.
        sub(ESB1, "Alerts", [ED3], { sources: [{ type: "u".repeat(75), uri: "" }] }),
      ],
    });
    expect(source.split("\n")).toEqual([
      "// Generated by `service-drift generate`: adopts the existing event destinations and event",
      "// subscriptions of the account (3 destination(s), 4 subscription(s)).",
      "// The first `pulumi up` creates and deletes nothing on the service: it reads each resource and",
      "// updates only those whose live values cannot be compared (destinations with a write-only",
      "// secret, which the API never returns: their PATCH re-sends the configured secret).",
      "//",
      "// Before the first `pulumi up`, set:",
      "//   pulumi config set service:baseUrl <base URL of the service>",
      "//   pulumi config set --secret service:apiKey <API key>",
      "//   pulumi config set --secret auditStream2AwsSecretAccessKey <value>   # target.kinesis.auth.creds.awsSecretAccessKey of ed_000000000000000000000000002",
      "//   pulumi config set --secret auditStream2ApiKey <value>   # target.datadog.apiKey of ed_000000000000000000000000003",
      "//",
      "// `pulumi destroy` deletes adopted resources like any other; add `{ retainOnDelete: true }`",
      "// as the last argument of `adopt` to keep one on the service.",
      'import * as pulumi from "@pulumi/pulumi";',
      'import { EventDestination, EventSubscription } from "pulumi-service";',
      "",
      "const config = new pulumi.Config();",
      "",
      'const auditStreamDestination = EventDestination.adopt("audit-stream", "ed_000000000000000000000000001", {',
      '  description: "Audit stream",',
      "  target: {",
      '    kinesis: { auth: { role: { roleArn: "arn:aws:iam::1:role/r" }, creds: null }, streamArn: "s" },',
      "    datadog: null,",
      "  },",
      "});",
      "",
      'const auditStream2Destination = EventDestination.adopt("audit-stream-2", "ed_000000000000000000000000002", {',
      '  description: "Audit stream",',
      "  target: {",
      "    kinesis: {",
      "      auth: {",
      "        creds: {",
      '          awsAccessKeyId: "AKIA1",',
      '          awsSecretAccessKey: config.requireSecret("auditStream2AwsSecretAccessKey"),',
      "        },",
      "      },",
      '      streamArn: "arn:aws:kinesis:us-east-1:1:stream/s",',
      "    },",
      "  },",
      "});",
      "",
      'const auditStream2Destination2 = EventDestination.adopt("audit-stream2", "ed_000000000000000000000000003", {',
      '  description: "Audit stream2",',
      '  target: { datadog: { apiKey: config.requireSecret("auditStream2ApiKey") } },',
      "});",
      "",
      'const alertsSubscription = EventSubscription.adopt("alerts", "esb_000000000000000000000000001", {',
      '  description: "Alerts",',
      "  sources: [",
      "    {",
      `      type: "${"u".repeat(75)}",`,
      "    },",
      "  ],",
      "  destinationIds: [auditStream2Destination2.id],",
      "});",
      "",
      'const alerts2Subscription = EventSubscription.adopt("alerts-2", "esb_000000000000000000000000002", {',
      '  description: "Alerts",',
      `  sources: [{ type: "${"t".repeat(74)}" }],`,
      "  destinationIds: [auditStream2Destination.id],",
      "});",
      "",
      'const alerts2Subscription2 = EventSubscription.adopt("alerts2", "esb_000000000000000000000000003", {',
      '  description: "Alerts2",',
      '  sources: [{ type: "ip_policy_created.v0" }],',
      "  destinationIds: [auditStreamDestination.id],",
      "});",
      "",
      'const alerts3Subscription = EventSubscription.adopt("alerts-3", "esb_000000000000000000000000004", {',
      '  description: "Alerts",',
      '  sources: [{ type: "ip_policy_created.v0" }],',
      "  destinationIds: [auditStreamDestination.id],",
      "});",
      "",
      "export const destinationIds = {",
      '  "audit-stream": auditStreamDestination.id,',
      '  "audit-stream-2": auditStream2Destination.id,',
      '  "audit-stream2": auditStream2Destination2.id,',
      "};",
      "export const subscriptionIds = {",
      "  alerts: alertsSubscription.id,",
      '  "alerts-2": alerts2Subscription.id,',
      "  alerts2: alerts2Subscription2.id,",
      '  "alerts-3": alerts3Subscription.id,',
      "};",
      "",
    ]);
    expect(secrets.map((s) => [s.configKey, s.resourceName, s.path])).toEqual([
      ["auditStream2AwsSecretAccessKey", "audit-stream-2", "target.kinesis.auth.creds.awsSecretAccessKey"],
      ["auditStream2ApiKey", "audit-stream2", "target.datadog.apiKey"],
    ]);
  });
});
