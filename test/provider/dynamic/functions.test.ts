/**
 * The dynamic door's lookups (provider/dynamic/functions.ts, exported by the package's index) in
 * a program run with Pulumi's mocks (`pulumi.runtime.setMocks`: no engine) against the real
 * emulator, the account taken from the stack's `service:*` config as the dynamic providers take
 * it: the values the shared lookups give, a destination's result secret, a secret ID's result
 * secret, an ID or a dependency still unknown in a preview giving an unknown result without a
 * request, and a missing ID failing the `Output` with a message naming it.
 */
import * as pulumi from "@pulumi/pulumi";
import { ServiceClient } from "../../../client";
import * as service from "../../../provider";
import type { ReportOutputs } from "../../../provider/impl/abuseReport";
import type { DestinationOutputs } from "../../../provider/impl/eventDestination";
import type { SubscriptionOutputs } from "../../../provider/impl/eventSubscription";
import { LOOKUPS, type Found } from "../../../provider/impl/reads/lookups";
import { startEmulator, type RunningEmulator } from "../../helpers/emulator";

/** `true` only when `A` and `B` have the same keys. */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
// The result interfaces are written out (users hover their TSDoc); the shared lookups' results
// are assignable to them (the functions do not compile otherwise) and hold exactly their keys
// (this file does not compile otherwise).
const sameKeys: true[] = [
  true as SameKeys<service.GetEventSubscriptionResult, Found<SubscriptionOutputs>>,
  true as SameKeys<service.GetEventDestinationResult, Found<DestinationOutputs>>,
  true as SameKeys<service.GetAbuseReportResult, Found<ReportOutputs>>,
];

/** What Pulumi's `Output` holds besides its value (internals of @pulumi/pulumi 3.x). */
interface OutputState {
  isKnown: Promise<boolean>;
  promise(): Promise<unknown>;
}
const state = (o: pulumi.Output<unknown>) => o as unknown as OutputState;
/** The value of a known output. */
const valueOf = <T>(o: pulumi.Output<T>) => state(o).promise() as Promise<T>;
/**
 * The error a failed output holds. Each of an output's promises rejects with it; all are
 * handled here, as a program's `Output` that fails rejects them all (which fails the program).
 */
async function failureOf(o: pulumi.Output<unknown>): Promise<Error> {
  const s = state(o);
  const [value] = await Promise.allSettled([s.promise(), s.isKnown, pulumi.isSecret(o)]);
  if (value.status === "fulfilled") throw new Error("the output did not fail");
  return value.reason as Error;
}

/** A resource of the mocks whose ID is unknown during a preview (the mocks answer an empty ID). */
class Unmade extends pulumi.CustomResource {
  constructor(name: string) {
    super("test:index:Unmade", name, {});
  }
}

const mocks = (preview: boolean) =>
  pulumi.runtime.setMocks(
    {
      newResource: (args) => ({ id: preview ? "" : `${args.name}_id`, state: args.inputs }),
      call: () => ({}),
    },
    "project",
    "stack",
    preview,
  );

describe("get…Output lookups of pulumi-service (Pulumi's mocks, real emulator)", () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  const ids = { sub: "", dest: "", report: "" };
  let requests = 0;

  beforeAll(async () => {
    emulator = await startEmulator({
      onApp: (app) => {
        (app as unknown as { addHook(n: string, f: () => Promise<void>): void }).addHook(
          "onRequest",
          async () => {
            requests++;
          },
        );
      },
    });
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    const dest = await client.eventDestinations.create({
      description: "audit",
      target: { datadog: { apiKey: "dd-dynamic-lookup-key", ddsite: "datadoghq.eu" } },
    });
    const sub = await client.eventSubscriptions.create({
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [dest.id],
    });
    const report = await client.abuseReports.create({ urls: ["https://phish.example.com/login"] });
    Object.assign(ids, { sub: sub.id, dest: dest.id, report: report.id });
    // The stack's config, as the engine hands it to a program.
    pulumi.runtime.setAllConfig({ "service:apiKey": emulator.apiKeys[0], "service:baseUrl": emulator.url }, [
      "service:apiKey",
    ]);
  });

  beforeEach(() => mocks(false));

  afterAll(async () => {
    await client?.close();
    await emulator?.close();
  });

  it("the package's index exports the five lookups, whose results have the shared lookups' keys", () => {
    expect(sameKeys).toEqual([true, true, true]);
    expect(
      Object.keys(service)
        .filter((k) => /^get.*Output$/.test(k))
        .sort(),
    ).toEqual([
      "getAbuseReportOutput",
      "getEventDestinationOutput",
      "getEventDestinationsOutput",
      "getEventSubscriptionOutput",
      "getEventSubscriptionsOutput",
    ]);
  });

  it("a subscription and a report by ID: the shared lookups' values, not secret", async () => {
    const sub = service.getEventSubscriptionOutput({ id: ids.sub });
    expect(await valueOf(sub)).toEqual(await LOOKUPS.eventSubscription.get(ids.sub));
    expect(await pulumi.isSecret(sub)).toBe(false);
    const report = service.getAbuseReportOutput({ id: pulumi.output(ids.report) });
    expect(await valueOf(report)).toMatchObject({ id: ids.report, status: "PENDING" });
    expect(await pulumi.isSecret(report)).toBe(false);
  });

  it("a destination and the list of destinations are secrets; lists hold every resource", async () => {
    const dest = service.getEventDestinationOutput({ id: ids.dest });
    expect(await pulumi.isSecret(dest)).toBe(true);
    expect(await valueOf(dest)).toEqual(await LOOKUPS.eventDestination.get(ids.dest));
    const dests = service.getEventDestinationsOutput();
    expect(await pulumi.isSecret(dests)).toBe(true);
    expect(await valueOf(dests)).toEqual({ items: [await LOOKUPS.eventDestination.get(ids.dest)] });
    const subs = service.getEventSubscriptionsOutput();
    expect(await pulumi.isSecret(subs)).toBe(false);
    expect((await valueOf(subs)).items.map((s) => s.id)).toEqual([ids.sub]);
  });

  it("a secret ID gives a secret result, and a missing one an error that does not show it", async () => {
    const sub = service.getEventSubscriptionOutput({ id: pulumi.secret(ids.sub) });
    expect(await pulumi.isSecret(sub)).toBe(true);
    expect((await valueOf(sub)).id).toBe(ids.sub);
    const hidden = `esb_${"Q".repeat(27)}`;
    const err = await failureOf(service.getEventSubscriptionOutput({ id: pulumi.secret(hidden) }));
    expect(err.message).toContain("(whose ID is a secret) does not exist");
    expect(err.message).not.toContain(hidden);
  });

  it("a missing ID fails the Output with a RunError whose message names it", async () => {
    const missing = `abrp_${"Z".repeat(27)}`;
    const err = await failureOf(service.getAbuseReportOutput({ id: missing }));
    // A RunError: Pulumi reports its message alone (see the module comment of functions.ts).
    expect(pulumi.RunError.isInstance(err)).toBe(true);
    // Its stack is its first line only: no frame for Node.js 20.20's util.inspect to loop over.
    expect(err.stack).toBe(`${err.name}: ${err.message}`);
    expect(err.message).toBe(
      `abuse report "${missing}" does not exist in the account of this API key (deleted, mistyped, or owned by another account)`,
    );
  });

  it("in a preview, an unknown ID or dependency gives an unknown result and sends no request", async () => {
    await mocks(true);
    const unmade = new Unmade("unmade");
    const before = requests;
    const byId = service.getEventSubscriptionOutput({ id: unmade.id });
    const listed = service.getEventDestinationsOutput({ dependsOn: unmade });
    const known = service.getEventSubscriptionsOutput({ dependsOn: [] });
    expect(await state(byId).isKnown).toBe(false);
    expect(await state(listed).isKnown).toBe(false);
    expect(await state(known).isKnown).toBe(true);
    expect(requests).toBe(before + 1); // the list without an unknown dependency only
  });
});
