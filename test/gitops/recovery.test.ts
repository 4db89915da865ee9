/**
 * `planRecovery` / `applyRecovery` (gitops/recovery.ts, the logic of `service-recover`) on
 * exported stacks made up here, against the in-process emulator: every decision (adopt by the
 * recorded ID, adopt by a unique match, clear, keep several candidates, keep abuse reports, leave
 * other operations), the time window, IDs already in the stack, and encrypted secrets; and
 * `findUnrecorded` (`service-recover --since`), for runs that skipped checkpoints.
 * test/reliability/interrupted.test.ts runs the command line on real stacks after a real kill.
 */
import { ServiceClient } from "../../client";
import {
  applyRecovery,
  findUnrecorded,
  planRecovery,
  TYPE_TOKENS,
  type ExportedStack,
} from "../../gitops/recovery";
import { startEmulator, type RunningEmulator } from "../helpers/emulator";

const SIG = "4dabf18193072939515e22adb298388d";
const SIG_VALUE = "1b47061264138c4ac30d75fd1eb44270";
const urn = (type: string, name: string) => `urn:pulumi:dev::p::${type}::${name}`;

describe("service-recover's decisions", () => {
  let em: RunningEmulator;
  let client: ServiceClient;
  let destination: string;
  const sub = (description: string) => ({
    sources: [{ type: "ip_policy_created.v0" }],
    destinationIds: [destination],
    description,
  });
  const pendingSub = (
    name: string,
    inputs: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => ({
    type: "creating",
    resource: {
      urn: urn(TYPE_TOKENS.subscription, name),
      type: TYPE_TOKENS.subscription,
      inputs: { __provider: "serialized", ...inputs },
      created: new Date(Date.now() - 5000).toISOString(),
      ...extra,
    },
  });
  const stackOf = (pending: unknown[], resources: unknown[] = []): ExportedStack =>
    ({ version: 3, deployment: { resources, pending_operations: pending } }) as ExportedStack;

  beforeAll(async () => {
    em = await startEmulator();
    client = new ServiceClient({ apiKey: em.apiKeys[0], baseUrl: em.url });
    destination = (
      await client.eventDestinations.create({
        description: "recovery",
        target: { datadog: { apiKey: "dd-secret", ddsite: "datadoghq.eu" } },
      })
    ).id;
  });
  afterAll(async () => {
    await client.close();
    await em.close();
  });

  it("adopts a unique match, clears what the service lacks, keeps several candidates", async () => {
    const made = await client.eventSubscriptions.create(sub("made"));
    const twins = [
      await client.eventSubscriptions.create(sub("twin")),
      await client.eventSubscriptions.create(sub("twin")),
    ];
    const stack = stackOf([
      pendingSub("made", sub("made")),
      pendingSub("never", sub("never made")),
      pendingSub("twin", sub("twin")),
    ]);
    const decisions = await planRecovery(stack, client);
    expect(decisions.map((d) => [d.urn.split("::").pop(), d.action, d.id])).toEqual([
      ["made", "adopt", made.id],
      ["never", "clear", undefined],
      ["twin", "keep", undefined],
    ]);
    expect(decisions[2].candidates?.sort()).toEqual(twins.map((t) => t.id).sort());

    const fixed = applyRecovery(stack, decisions);
    expect(fixed.deployment.resources).toEqual([
      expect.objectContaining({ urn: urn(TYPE_TOKENS.subscription, "made"), id: made.id }),
    ]);
    // Outputs default to the inputs (with __provider), which `pulumi refresh` replaces.
    expect(fixed.deployment.resources![0].outputs).toMatchObject({
      __provider: "serialized",
      description: "made",
    });
    expect(fixed.deployment.pending_operations!.map((p) => p.resource.urn)).toEqual([
      urn(TYPE_TOKENS.subscription, "twin"),
    ]);
    expect(stack.deployment.resources).toEqual([]); // the input is not changed
  });

  it("never adopts a resource already in the stack, nor one made before the create started", async () => {
    const owned = await client.eventSubscriptions.create(sub("owned"));
    const stack = stackOf(
      [pendingSub("again", sub("owned"))],
      [{ urn: urn(TYPE_TOKENS.subscription, "owner"), type: TYPE_TOKENS.subscription, id: owned.id }],
    );
    expect((await planRecovery(stack, client))[0]).toMatchObject({ action: "clear" });
    const old = await client.eventSubscriptions.create(sub("old"));
    const later = pendingSub("later", sub("old"), { created: new Date(Date.now() + 120_000).toISOString() });
    expect((await planRecovery(stackOf([later]), client))[0]).toMatchObject({ action: "clear" });
    expect(old.id).toBeTruthy();
  });

  it("adopts an ID the engine recorded when the service holds it", async () => {
    const made = await client.eventSubscriptions.create(sub("recorded"));
    const stack = stackOf([pendingSub("recorded", sub("something else"), { id: made.id })]);
    expect((await planRecovery(stack, client))[0]).toMatchObject({ action: "adopt", id: made.id });
  });

  it("matches destinations with secrets exported in clear, blank on the service", async () => {
    const stack = stackOf([
      {
        type: "creating",
        resource: {
          urn: urn(TYPE_TOKENS.destination, "dest"),
          type: TYPE_TOKENS.destination,
          inputs: {
            description: "recovery",
            target: {
              [SIG]: SIG_VALUE,
              plaintext: JSON.stringify({ datadog: { apiKey: "dd-secret", ddsite: "datadoghq.eu" } }),
            },
          },
        },
      },
    ]);
    expect((await planRecovery(stack, client))[0]).toMatchObject({ action: "adopt", id: destination });
    const encrypted = JSON.parse(JSON.stringify(stack)) as ExportedStack;
    (encrypted.deployment.pending_operations![0].resource.inputs as Record<string, unknown>).target = {
      [SIG]: SIG_VALUE,
      ciphertext: "v1:abc",
    };
    await expect(planRecovery(encrypted, client)).rejects.toThrow(/--show-secrets/);
  });

  it("keeps abuse reports (no list) and operations that are not creates", async () => {
    const stack = stackOf([
      {
        type: "creating",
        resource: { urn: urn(TYPE_TOKENS.report, "r"), type: TYPE_TOKENS.report, inputs: {} },
      },
      {
        type: "updating",
        resource: { urn: urn(TYPE_TOKENS.subscription, "u"), type: TYPE_TOKENS.subscription },
      },
    ]);
    const decisions = await planRecovery(stack, client);
    expect(decisions.map((d) => [d.action, d.operation])).toEqual([
      ["keep", "creating"],
      ["keep", "updating"],
    ]);
    expect(decisions[0].reason).toMatch(/abuse reports cannot be listed/);
    expect(applyRecovery(stack, decisions).deployment.pending_operations).toHaveLength(2);
  });

  it("findUnrecorded lists what the service made since the time (less the margin) that the stack holds nowhere", async () => {
    // created_at has whole seconds: start on a fresh second, so that only this test's resources
    // are made since `before`.
    await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
    const before = Date.now() - (Date.now() % 1000);
    const inState = await client.eventSubscriptions.create(sub("in the state"));
    const inPending = await client.eventSubscriptions.create(sub("pending"));
    const lost = await client.eventSubscriptions.create(sub("lost by a fast run"));
    const lostDestination = await client.eventDestinations.create({
      description: "lost destination",
      target: { datadog: { apiKey: "dd-secret", ddsite: "datadoghq.eu" } },
    });
    const stack = stackOf(
      [pendingSub("pending", sub("pending"), { id: inPending.id })],
      [{ urn: urn(TYPE_TOKENS.subscription, "s"), type: TYPE_TOKENS.subscription, id: inState.id }],
    );
    const found = await findUnrecorded(stack, client, before, { clockSkewMs: 0 });
    expect(found.map((f) => [f.kind, f.id, f.description])).toEqual([
      ["subscription", lost.id, "lost by a fast run"],
      ["destination", lostDestination.id, "lost destination"],
    ]);
    // A time after everything: nothing.
    expect(await findUnrecorded(stack, client, Date.now() + 5000, { clockSkewMs: 0 })).toEqual([]);
  });
});

describe("service-recover's decisions at their edges", () => {
  let em: RunningEmulator;
  let client: ServiceClient;
  let destination: string;
  const sub = (description: string, source = "ip_policy_created.v0") => ({
    sources: [{ type: source }],
    destinationIds: [destination],
    description,
  });
  const pending = (
    type: string,
    name: string,
    inputs: Record<string, unknown>,
    extra: Record<string, unknown> = {},
  ) => ({
    type: "creating",
    resource: {
      urn: urn(type, name),
      type,
      inputs,
      created: new Date(Date.now() - 5000).toISOString(),
      ...extra,
    },
  });
  const stackOf = (ops: unknown[], resources: unknown[] = []): ExportedStack =>
    ({ version: 3, deployment: { resources, pending_operations: ops } }) as ExportedStack;
  const reasons = async (stack: ExportedStack) =>
    (await planRecovery(stack, client)).map((d) => [d.urn.split("::").pop(), d.action, d.id, d.reason]);

  beforeAll(async () => {
    em = await startEmulator();
    client = new ServiceClient({ apiKey: em.apiKeys[0], baseUrl: em.url });
    destination = (
      await client.eventDestinations.create({ description: "edges", target: { datadog: { apiKey: "k" } } })
    ).id;
  });
  afterAll(async () => {
    await client.close();
    await em.close();
  });

  it("each decision's reason word for word: recorded ID, one match, none, several, an abuse report, another package's type, an update", async () => {
    const recorded = await client.eventSubscriptions.create(sub("recorded"));
    const one = await client.eventSubscriptions.create(sub("one"));
    const twins = [
      await client.eventSubscriptions.create(sub("twin")),
      await client.eventSubscriptions.create(sub("twin")),
    ];
    const S = TYPE_TOKENS.subscription;
    const stack = stackOf([
      pending(S, "recorded", sub("anything"), { id: recorded.id }),
      pending(S, "one", sub("one")),
      pending(S, "none", sub("none")),
      pending(S, "twin", sub("twin")),
      pending(TYPE_TOKENS.report, "report", {}),
      pending("aws:s3/bucket:Bucket", "bucket", {}),
      { type: "deleting", resource: { urn: urn(S, "gone"), type: S } },
    ]);
    expect(await reasons(stack)).toEqual([
      ["recorded", "adopt", recorded.id, "the engine had recorded its ID, and the service holds it"],
      [
        "one",
        "adopt",
        one.id,
        "the service holds exactly one resource with its values, made after the create started",
      ],
      [
        "none",
        "clear",
        undefined,
        "the service holds no resource with its values made since: the create did not happen",
      ],
      [
        "twin",
        "keep",
        undefined,
        `2 resources not in the stack have exactly its values (${twins[1].id}, ${twins[0].id}); keep one (adopt it by hand) and delete the others`,
      ],
      [
        "report",
        "keep",
        undefined,
        "abuse reports cannot be listed, so whether this one was filed cannot be found out; clear it with " +
          "`pulumi refresh --clear-pending-creates` (then `pulumi up` files it, maybe a second time), or put the " +
          "report's ID in the state by hand",
      ],
      ["bucket", "keep", undefined, "not a resource of this package (aws:s3/bucket:Bucket)"],
      ["gone", "keep", undefined, "a pending deleting, not a create: pulumi refresh settles it"],
    ]);
  });

  it("a recorded ID is looked up as its own kind (a destination, an abuse report); one the service lacks falls back to matching", async () => {
    const report = await client.abuseReports.create({ urls: ["https://example.com/edges"] });
    const deleted = await client.eventSubscriptions.create(sub("deleted"));
    await client.eventSubscriptions.delete(deleted.id);
    const stack = stackOf([
      pending(TYPE_TOKENS.destination, "dest", { description: "elsewhere" }, { id: destination }),
      pending(TYPE_TOKENS.report, "report", {}, { id: report.id }),
      pending(TYPE_TOKENS.subscription, "deleted", sub("deleted"), { id: deleted.id }),
    ]);
    expect((await planRecovery(stack, client)).map((d) => [d.action, d.id])).toEqual([
      ["adopt", destination],
      ["adopt", report.id],
      ["clear", undefined],
    ]);
  });

  it("an error other than not found (a key the service refuses) is thrown, not taken as absence", async () => {
    const made = await client.eventSubscriptions.create(sub("refused"));
    const refused = new ServiceClient({ apiKey: "sk_not_a_key_of_this_service_0", baseUrl: em.url });
    try {
      const stack = stackOf([pending(TYPE_TOKENS.subscription, "refused", sub("refused"), { id: made.id })]);
      await expect(planRecovery(stack, refused)).rejects.toMatchObject({ status: 401 });
    } finally {
      await refused.close();
    }
  });

  it("two pending creates of the same values: the first adopts the one match, the second does not take it again", async () => {
    const made = await client.eventSubscriptions.create(sub("same values"));
    const stack = stackOf([
      pending(TYPE_TOKENS.subscription, "first", sub("same values")),
      pending(TYPE_TOKENS.subscription, "second", sub("same values")),
    ]);
    expect((await planRecovery(stack, client)).map((d) => [d.action, d.id])).toEqual([
      ["adopt", made.id],
      ["clear", undefined],
    ]);
  });

  it("a subscription of the same description but other sources is no match", async () => {
    await client.eventSubscriptions.create(sub("same description", "ip_policy_created.v0"));
    const stack = stackOf([
      pending(TYPE_TOKENS.subscription, "other", sub("same description", "ip_policy_updated.v0")),
    ]);
    expect((await planRecovery(stack, client)).map((d) => d.action)).toEqual(["clear"]);
  });

  it("a resource made in the very second the create started matches (created_at has whole seconds)", async () => {
    const made = await client.eventSubscriptions.create(sub("same second"));
    const stack = stackOf([
      pending(TYPE_TOKENS.subscription, "same-second", sub("same second"), { created: made.createdAt }),
    ]);
    const [decision] = await planRecovery(stack, client, { clockSkewMs: 0 });
    expect([decision.action, decision.id]).toEqual(["adopt", made.id]);
  });

  it("applyRecovery keeps the stack's resources first, and the outputs the engine recorded for an adopted create", () => {
    const S = TYPE_TOKENS.subscription;
    const held = { urn: urn(S, "held"), type: S, id: "esb_held" };
    const stack = stackOf(
      [
        pending(S, "recorded", { description: "in" }, { outputs: { description: "out" } }),
        pending(S, "empty", { description: "in" }, { outputs: {} }),
      ],
      [held],
    );
    const fixed = applyRecovery(stack, [
      { urn: urn(S, "recorded"), operation: "creating", action: "adopt", id: "esb_1", reason: "" },
      { urn: urn(S, "empty"), operation: "creating", action: "adopt", id: "esb_2", reason: "" },
    ]);
    expect(fixed.deployment.resources!.map((r) => [r.urn.split("::").pop(), r.id, r.outputs])).toEqual([
      ["held", "esb_held", undefined],
      ["recorded", "esb_1", { description: "out" }],
      ["empty", "esb_2", { description: "in" }],
    ]);
    expect(fixed.deployment.pending_operations).toEqual([]);
  });

  it("findUnrecorded gives a resource without a description as an empty one", async () => {
    await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000)));
    const before = Date.now() - (Date.now() % 1000);
    const bare = await client.eventSubscriptions.create({
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [destination],
    });
    expect(await findUnrecorded(stackOf([]), client, before, { clockSkewMs: 0 })).toEqual([
      { kind: "subscription", id: bare.id, createdAt: bare.createdAt, description: "" },
    ]);
  });

  it("a refusal other than not found of a recorded ID's lookup is thrown, even when the list after it would answer", async () => {
    // The service refuses the lookup (403) but would list: taking the refusal as absence would go
    // on to match by values, and clear the create for want of a match.
    const { lastPage, serviceError, startScriptedServer } = await import("../helpers/scripted-server");
    const server = await startScriptedServer([
      serviceError(403, 103, "not allowed"),
      lastPage("event_subscriptions"),
    ]);
    const scripted = new ServiceClient({ apiKey: "sk_scripted_recovery_0123", baseUrl: server.url });
    try {
      const recorded = `esb_${"7".repeat(27)}`;
      const stack = stackOf([pending(TYPE_TOKENS.subscription, "refused", sub("refused"), { id: recorded })]);
      await expect(planRecovery(stack, scripted)).rejects.toMatchObject({ status: 403 });
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
        `GET /event_subscriptions/${recorded}`,
      ]);
    } finally {
      await scripted.close();
      await server.close();
    }
  });
});
