/**
 * The `EventDestination` provider's pure parts (provider/impl/eventDestination.ts): outputs
 * from the API's answer with the program's secrets kept, the inputs a refresh returns, `diff`,
 * and the match that finds the destination an ambiguous create made; and, against the emulator,
 * a refresh and a delete after the destination was deleted outside Pulumi, adoption (`adoptId`)
 * and a placeholder's replacement (the PATCH sent only when the values cannot be shown equal).
 */
import type { EventDestination } from "service-contract";
import {
  create,
  diff,
  hasWriteOnlySecret,
  matchKey,
  matchesInputs,
  read,
  remove,
  toInputs,
  toOutputs,
  type DestinationInputs,
  type DestinationOutputs,
} from "../../../provider/impl/eventDestination";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PENDING_CREATE_OUTPUT } from "../../../provider/impl/create/pendingCreate";
import { getClient } from "../../../provider/impl/process/client";
import * as runtime from "../../../provider/impl/runtime";
import { getRequestLog, lastRequestSeq } from "../../helpers/emulator";
import { placeholderOf, useProviderOnEmulator } from "../../helpers/provider-emulator";

const ID = `ed_${"A".repeat(27)}`;
const creds = (secret: string) => ({
  kinesis: { auth: { creds: { awsAccessKeyId: "AK", awsSecretAccessKey: secret } }, streamArn: "arn:k" },
});
/** The destination as the API returns it (secret blanked). */
const live = (over: Partial<EventDestination> = {}): EventDestination => ({
  id: ID,
  uri: `http://svc/event_destinations/${ID}`,
  createdAt: "2026-11-23T08:00:00Z",
  metadata: "",
  description: "",
  format: "json",
  target: creds(""),
  ...over,
});

describe("outputs and inputs", () => {
  it("outputs keep the program's secret (the API returns it blank) and every other field as returned", () => {
    expect(toOutputs(live({ description: "d" }), creds("s3cr3t"))).toEqual({
      uri: live().uri,
      createdAt: live().createdAt,
      metadata: "",
      description: "d",
      format: "json",
      target: creds("s3cr3t"),
    });
  });

  it('outputs hold optional target strings as the API does ("") when the API left them out', () => {
    const outs = toOutputs(live({ target: { datadog: { apiKey: "" } } }), { datadog: { apiKey: "k" } });
    expect(outs.target).toEqual({ datadog: { apiKey: "k", ddtags: "", service: "", ddsite: "" } });
  });

  it('a refresh\'s inputs leave out the fields that are ""', () => {
    const outs = toOutputs(live({ metadata: "m" }), creds("s"));
    expect(toInputs(outs)).toEqual({ metadata: "m", format: "json", target: creds("s") });
  });
});

describe("diff", () => {
  const outs = toOutputs(live(), creds("s"));
  it.each<[string, DestinationInputs, boolean]>([
    ["the same inputs", { target: creds("s") }, false],
    ["defaults written out", { target: creds("s"), format: "json", description: "", metadata: "" }, false],
    ["another description", { target: creds("s"), description: "x" }, true],
    ["another metadata", { target: creds("s"), metadata: "x" }, true],
    ["another secret", { target: creds("t") }, true],
    ["another target kind", { target: { datadog: { apiKey: "k" } } }, true],
  ])("%s", async (_what, news, changes) => {
    const result = await diff(ID, outs, news);
    expect(result.changes).toBe(changes);
    expect(result.replaces).toEqual([]);
  });
});

describe("matchesInputs (which live destination a lost create made)", () => {
  it.each<[string, Partial<EventDestination>, DestinationInputs, boolean]>([
    ["same values, secret unseen", {}, { target: creds("anything") }, true],
    ["description differs", { description: "a" }, { target: creds("s"), description: "b" }, false],
    ['left-out description is ""', { description: "a" }, { target: creds("s") }, false],
    [
      "target differs",
      {},
      { target: { ...creds("s"), kinesis: { ...creds("s").kinesis, streamArn: "arn:other" } } },
      false,
    ],
    [
      "Datadog optional strings left out",
      { target: { datadog: { apiKey: "", ddtags: "", service: "", ddsite: "" } } },
      { target: { datadog: { apiKey: "k" } } },
      true,
    ],
  ])("%s", (_what, over, news, expected) => {
    expect(matchesInputs(live(over), news)).toBe(expected);
  });
});

describe("matchKey (which creates side by side may have made the same destination)", () => {
  it("is one for inputs that send the same create, whatever their write-only secrets; another for any other difference", () => {
    const base: DestinationInputs = { target: creds("one") };
    expect(matchKey({ ...base, target: creds("two") })).toBe(matchKey(base));
    expect(matchKey({ ...base, description: "", format: "json" })).toBe(matchKey(base));
    for (const other of [
      { ...base, description: "d" },
      { ...base, metadata: "m" },
      { target: { datadog: { apiKey: "one" } } },
      { target: { kinesis: { ...creds("one").kinesis, streamArn: "arn:other" } } },
    ])
      expect(matchKey(other as DestinationInputs)).not.toBe(matchKey(base));
  });
});

describe("hasWriteOnlySecret", () => {
  it.each([
    [creds("s"), true],
    [creds(""), false],
    [{ kinesis: { auth: { role: { roleArn: "r" } }, streamArn: "a" } }, false],
    [{ datadog: { apiKey: "k" } }, true],
    [undefined, false],
  ])("%j: %s", (target, expected) => {
    expect(hasWriteOnlySecret(target as never)).toBe(expected);
  });
});

describe("after a delete outside Pulumi (real emulator)", () => {
  const service = useProviderOnEmulator("sk_destination_out_of_band_7d2a");

  it("a refresh drops the destination from the state, and a delete counts it as done", async () => {
    const { client } = service();
    const made = await create({ target: { datadog: { apiKey: "dd-oob-key" } }, description: "oob" });
    const outs = made.outs as DestinationOutputs;
    await expect(read(made.id, outs)).resolves.toMatchObject({ id: made.id });
    await client.eventDestinations.delete(made.id);
    await expect(read(made.id, outs)).resolves.toEqual({});
    await expect(remove(made.id, outs)).resolves.toBeUndefined();
  });
});

describe("adoption (adoptId, real emulator)", () => {
  const service = useProviderOnEmulator("sk_destination_adoption_3f9c");
  /** The PATCH requests the emulator logged after `since`, by path. */
  const patchesSince = async (since: number) =>
    (await getRequestLog(service().emulator.url, service().emulator.adminKey, since)).requests
      .filter((r) => r.method === "PATCH")
      .map((r) => r.path);
  const lastSeq = () => lastRequestSeq(service().emulator.url, service().emulator.adminKey);
  const roleTarget = { kinesis: { auth: { role: { roleArn: "arn:role" } }, streamArn: "arn:stream" } };

  it("takes a destination that holds the program's values as it is; updates one that differs, or whose target holds a write-only secret", async () => {
    const { client } = service();
    const same = await client.eventDestinations.create({ target: roleTarget, description: "kept" });
    let since = await lastSeq();
    await expect(
      create({ target: roleTarget, description: "kept", adoptId: same.id }),
    ).resolves.toMatchObject({
      id: same.id,
    });
    expect(await patchesSince(since)).toEqual([]);

    const other = await client.eventDestinations.create({ target: roleTarget, description: "outside" });
    since = await lastSeq();
    await create({ target: roleTarget, description: "kept", adoptId: other.id });
    expect(await patchesSince(since)).toEqual([`/event_destinations/${other.id}`]);
    expect((await client.eventDestinations.get(other.id)).description).toBe("kept");

    const secret = { datadog: { apiKey: "dd-adopt-key" } };
    const withSecret = await client.eventDestinations.create({ target: secret });
    since = await lastSeq();
    await create({ target: secret, adoptId: withSecret.id });
    expect(await patchesSince(since)).toEqual([`/event_destinations/${withSecret.id}`]);
  });

  it("a placeholder's replacement takes what the timed-out create made, and sends the program's values when they differ from those sent or hold a write-only secret", async () => {
    const { client } = service();
    /** The request the provider sends for `inputs` (read from its client; nothing is sent). */
    const requestFor = async (inputs: DestinationInputs) => {
      let request: unknown;
      const creates = jest
        .spyOn(getClient().eventDestinations, "create")
        .mockImplementationOnce(async (body) => {
          request = body;
          throw new Error("read, not sent");
        });
      await expect(create(inputs)).rejects.toThrow("read, not sent");
      creates.mockRestore();
      return request as Parameters<typeof client.eventDestinations.create>[0];
    };
    const secret = { datadog: { apiKey: "dd-replay-key" } };
    for (const [sent, now, patched] of [
      [{ target: roleTarget, description: "as sent" }, { target: roleTarget, description: "as sent" }, false],
      [
        { target: roleTarget, description: "sent" },
        { target: roleTarget, description: "changed since" },
        true,
      ],
      [{ target: secret, description: "secret" }, { target: secret, description: "secret" }, true],
    ] as const) {
      // The create the placeholder stands for, made under its key; then the state it left.
      const idempotencyKey = randomUUID();
      const made = await client.eventDestinations.create(await requestFor(sent), { idempotencyKey });
      const { id: placeholderId, props } = placeholderOf(sent, idempotencyKey);
      expect((await diff(placeholderId, props as never, now)).replaces).toEqual([PENDING_CREATE_OUTPUT]);
      const since = await lastSeq();
      await expect(create(now)).resolves.toMatchObject({ id: made.id });
      expect(await patchesSince(since)).toEqual(patched ? [`/event_destinations/${made.id}`] : []);
      expect((await client.eventDestinations.get(made.id)).description).toBe(now.description);
    }
  });

  it(`recovery (${runtime.ADOPT_FROM_ENV}) adopts a listed destination with the program's values instead of creating one, and sends the write-only secret it cannot compare`, async () => {
    const { client } = service();
    const secret = { datadog: { apiKey: "dd-recovery-key" } };
    const [plain, withSecret] = [
      await client.eventDestinations.create({ target: roleTarget, description: "recovered" }),
      await client.eventDestinations.create({ target: secret, description: "recovered secret" }),
    ];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "destination-recovery-"));
    const saved = process.env[runtime.ADOPT_FROM_ENV];
    try {
      const found = path.join(dir, "found.json");
      const resources = [plain, withSecret].map((d) => ({
        kind: "destination",
        id: d.id,
        createdAt: d.createdAt,
      }));
      fs.writeFileSync(found, JSON.stringify({ since: plain.createdAt, resources }));
      process.env[runtime.ADOPT_FROM_ENV] = found;
      const since = await lastSeq();
      await expect(create({ target: roleTarget, description: "recovered" })).resolves.toMatchObject({
        id: plain.id,
      });
      await expect(create({ target: secret, description: "recovered secret" })).resolves.toMatchObject({
        id: withSecret.id,
      });
      expect(await patchesSince(since)).toEqual([`/event_destinations/${withSecret.id}`]);
    } finally {
      if (saved === undefined) delete process.env[runtime.ADOPT_FROM_ENV];
      else process.env[runtime.ADOPT_FROM_ENV] = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
