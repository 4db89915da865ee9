/**
 * The checks of the provider's API key against a resource's state (provider/impl/keyChecks.ts,
 * which runtime.ts re-exports; the stamps themselves: keyStamp.ts): the stamp a process writes,
 * the one comparison every check uses, what a write keeps or replaces, what it costs, and when a
 * 404 counts as gone.
 */
import { NotFoundError } from "../../../client";
import * as keyChecks from "../../../provider/impl/keyChecks";
import { legacyKeyStamp } from "../../../provider/impl/keyStamp";
import { configure } from "../../../provider/impl/process/client";
import { configBag } from "../../helpers/provider-settings";

const ESB = `esb_${"S".repeat(27)}`;

describe("key stamps", () => {
  const KEY = "sk_runtime_stamp_key_5e1a";
  const OTHER = "sk_runtime_stamp_other_77b2";
  const useKey = (apiKey?: string) =>
    configure({
      config: configBag(apiKey ? { "service:apiKey": apiKey, "service:baseUrl": "http://127.0.0.1:9" } : {}),
    });
  /** keyStamp.ts loaded afresh: the stamps another provider process writes. */
  const anotherProcess = () => {
    let fresh: typeof import("../../../provider/impl/keyStamp") | undefined;
    jest.isolateModules(() => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      fresh = require("../../../provider/impl/keyStamp");
    });
    return fresh!;
  };
  const notFound = () =>
    Promise.reject(
      new NotFoundError(
        { status: 404, method: "GET", path: `/event_subscriptions/${ESB}`, bodyText: "{}" },
        { body: {} },
      ),
    );
  /** Node's crypto module itself (an `import *` would be a copy), to count the scrypt derivations. */
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const crypto = require("node:crypto") as typeof import("node:crypto");
  const saved = process.env.SERVICE_API_KEY;

  beforeEach(() => delete process.env.SERVICE_API_KEY);
  afterEach(async () => {
    await useKey();
    if (saved !== undefined) process.env.SERVICE_API_KEY = saved;
    jest.restoreAllMocks();
  });

  test("currentKeyStamp is the salted stamp of the configured key, derived once; isCurrentKeyStamp tells its key's stamps from others", async () => {
    const scrypt = jest.spyOn(crypto, "scryptSync");
    await useKey(KEY);
    const stamp = keyChecks.currentKeyStamp();
    expect(stamp).toMatch(/^s1\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    expect(keyChecks.currentKeyStamp()).toBe(stamp);
    expect(keyChecks.isCurrentKeyStamp(stamp)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(1);

    const elsewhere = anotherProcess();
    expect(keyChecks.isCurrentKeyStamp(elsewhere.keyStamp(KEY))).toBe(true);
    expect(keyChecks.isCurrentKeyStamp(elsewhere.keyStamp(OTHER))).toBe(false);
    expect(keyChecks.isCurrentKeyStamp(legacyKeyStamp(KEY))).toBe(true);
    expect(keyChecks.isCurrentKeyStamp(legacyKeyStamp(OTHER))).toBe(false);
    expect(keyChecks.isCurrentKeyStamp(undefined)).toBeUndefined();
    expect(keyChecks.isCurrentKeyStamp("not a stamp")).toBeUndefined();

    await useKey(OTHER);
    expect(keyChecks.isCurrentKeyStamp(stamp)).toBe(false);
    expect(keyChecks.currentKeyStamp()).not.toBe(stamp);
    await useKey();
    expect(() => keyChecks.isCurrentKeyStamp(stamp)).toThrow(/No API key/i);
    expect(keyChecks.isCurrentKeyStamp(undefined)).toBeUndefined();
  });

  test("checking the stamps of 1,000 resources written by 3 processes costs 3 derivations, not 1,000", async () => {
    const writers = [anotherProcess(), anotherProcess(), anotherProcess()];
    const stamps = Array.from({ length: 1_000 }, (_, i) => writers[i % 3].keyStamp(KEY));
    await useKey(KEY);
    keyChecks.currentKeyStamp();
    const scrypt = jest.spyOn(crypto, "scryptSync");
    expect(stamps.every((s) => keyChecks.isCurrentKeyStamp(s) === true)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(3);
  });

  test("a write stamps the outputs; a refresh keeps its key's salted stamp as it is and replaces an earlier version's or another key's", async () => {
    await useKey(KEY);
    const current = keyChecks.currentKeyStamp();
    expect(keyChecks.stamped({ description: "made" })).toEqual({ description: "made", __keyStamp: current });

    const elsewhere = anotherProcess().keyStamp(KEY);
    expect(keyChecks.stamped({ description: "read" }, { description: "was", __keyStamp: elsewhere })).toEqual(
      {
        description: "read",
        __keyStamp: elsewhere,
      },
    );
    for (const replaced of [legacyKeyStamp(KEY), anotherProcess().keyStamp(OTHER), legacyKeyStamp(OTHER)]) {
      expect(
        keyChecks.stamped({ description: "read" }, { description: "was", __keyStamp: replaced }),
      ).toEqual({
        description: "read",
        __keyStamp: current,
      });
    }
    // A state written before stamps keeps its shape: an upgrade refreshes to no change.
    expect(keyChecks.stamped({ description: "read" }, { description: "was" })).toEqual({
      description: "read",
    });
  });

  test("a 404 to the key of an earlier version's stamp counts as gone; to another key it fails, naming no stamp in full", async () => {
    await useKey(KEY);
    const state = { what: `event subscription ${ESB}`, props: { __keyStamp: legacyKeyStamp(KEY) } };
    await expect(keyChecks.getUnlessGone(notFound, state)).resolves.toBeUndefined();

    await useKey(OTHER);
    const current = keyChecks.currentKeyStamp();
    const error = String(await keyChecks.getUnlessGone(notFound, state).catch((e: unknown) => e));
    expect(error).toContain(
      `event subscription ${ESB} was made with another service API key (key stamp of an earlier provider version) ` +
        `than this provider's (key stamp ${current.split(".")[2].slice(0, 6)}…)`,
    );
    expect(error).not.toContain(legacyKeyStamp(KEY).slice(0, 4));
    expect(error).not.toContain(current.split(".")[1].slice(0, 6));
    expect(error).not.toContain(current.split(".")[2].slice(0, 7));
    expect(error).not.toContain(OTHER);
  });

  test("a delete's 404 counts as done only from the service the resource was made at; other errors pass as they are", async () => {
    await useKey(KEY);
    const here = "http://127.0.0.1:9";
    // Made here (below this provider's base URL), or no record of where: done.
    await expect(
      keyChecks.deleteUnlessGone(notFound, `${here}/event_subscriptions/${ESB}`),
    ).resolves.toBeUndefined();
    await expect(keyChecks.deleteUnlessGone(notFound, "")).resolves.toBeUndefined();
    await expect(keyChecks.deleteUnlessGone(notFound, undefined)).resolves.toBeUndefined();
    // Made at another service: its 404 says nothing.
    const elsewhere = `http://127.0.0.1:99/event_subscriptions/${ESB}`;
    const error = (await keyChecks.deleteUnlessGone(notFound, elsewhere).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(
      `${elsewhere} was made at another service than this provider's (${here}), which answers 404 for it: ` +
        "it cannot be counted as deleted. Delete it through a provider configured for the service that " +
        "made it, or remove it from the stack with `pulumi state delete` if it is gone.",
    );
    expect(error.cause).toBeInstanceOf(NotFoundError);
    // A service whose URL only starts alike is another service.
    await expect(keyChecks.deleteUnlessGone(notFound, `${here}0/event_subscriptions/${ESB}`)).rejects.toThrow(
      /was made at another service/,
    );
    const refused = new Error("500 from the service");
    await expect(keyChecks.deleteUnlessGone(() => Promise.reject(refused))).rejects.toBe(refused);
    await expect(keyChecks.getUnlessGone(() => Promise.reject(refused))).rejects.toBe(refused);
  });
});
