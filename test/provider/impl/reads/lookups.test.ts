/**
 * The lookups both doors' functions run (provider/impl/reads/lookups.ts), against the real emulator
 * with the runtime's client: a get gives the values the kind's `read` gives plus `id`, a list
 * every resource, "not found" and "not an ID of the kind" become messages naming the ID (or the
 * phrase a caller gives instead of a secret ID), and any other error of the client is passed on
 * as is. The native door's `Invoke` on top of them: test/provider/native/invokes.test.ts; the
 * dynamic door's functions: test/provider/dynamic/functions.test.ts.
 */
import { AuthenticationError } from "../../../../client/errors";
import { ServiceClient } from "../../../../client";
import * as eventSubscription from "../../../../provider/impl/eventSubscription";
import { LOOKUPS } from "../../../../provider/impl/reads/lookups";
import * as runtime from "../../../../provider/impl/runtime";
import { startEmulator, type RunningEmulator } from "../../../helpers/emulator";
import { publicOutputs } from "../../../helpers/public-outputs";

const config = (values: Record<string, string>) => ({ get: (key: string) => values[key] });

describe("lookups (real emulator)", () => {
  let emulator: RunningEmulator;
  let client: ServiceClient;
  let subId: string;
  let destId: string;
  const useKey = (apiKey: string) =>
    runtime.configure({ config: config({ "service:apiKey": apiKey, "service:baseUrl": emulator.url }) });

  beforeAll(async () => {
    emulator = await startEmulator({});
    client = new ServiceClient({ apiKey: emulator.apiKeys[0], baseUrl: emulator.url });
    const dest = await client.eventDestinations.create({ target: { datadog: { apiKey: "dd-lookup-key" } } });
    const sub = await client.eventSubscriptions.create({
      sources: [{ type: "ip_policy_created.v0" }],
      destinationIds: [dest.id],
    });
    subId = sub.id;
    destId = dest.id;
  });

  beforeEach(() => useKey(emulator.apiKeys[0]));

  afterAll(async () => {
    await runtime.configure({ config: config({}) }); // closes the runtime's client
    await client?.close();
    await emulator?.close();
  });

  it("get gives id first and the outputs the kind's read gives (none internal)", async () => {
    const found = await LOOKUPS.eventSubscription.get(subId);
    expect(Object.keys(found)[0]).toBe("id");
    expect(found).toEqual({
      id: subId,
      ...publicOutputs((await eventSubscription.read(subId, {} as never)).props),
    });
  });

  it("list gives every resource of the kind, as get gives each", async () => {
    expect(await LOOKUPS.eventDestination.list()).toEqual([await LOOKUPS.eventDestination.get(destId)]);
  });

  it("names the ID when the account lacks it or it is another kind's, or the caller's phrase instead", async () => {
    const missing = `esb_${"Z".repeat(27)}`;
    await expect(LOOKUPS.eventSubscription.get(missing)).rejects.toThrow(
      `event subscription "${missing}" does not exist in the account of this API key`,
    );
    await expect(LOOKUPS.eventSubscription.get(destId)).rejects.toThrow(
      `id: "${destId}" is not an event subscription ID (esb_…)`,
    );
    const err = await LOOKUPS.eventSubscription.get(missing, "(hidden)").catch((e: Error) => e);
    expect((err as Error).message).toMatch(/^event subscription \(hidden\) does not exist/);
    expect((err as Error).message).not.toContain(missing);
  });

  it("passes the client's other errors on as they are (an unknown API key)", async () => {
    await useKey("sk_not_a_key_of_the_emulator");
    await expect(LOOKUPS.eventSubscription.get(subId)).rejects.toBeInstanceOf(AuthenticationError);
    await expect(LOOKUPS.eventDestination.list()).rejects.toBeInstanceOf(AuthenticationError);
  });
});
