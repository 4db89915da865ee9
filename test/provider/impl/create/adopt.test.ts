/**
 * `adopting` (provider/impl/create/adopt.ts): an `adoptId` is held for one resource of the deployment,
 * as a lost create's lookup holds what it adopts, and given back when the adoption fails; the read
 * of what is adopted (an ID that does not exist or is not of the kind named in the error), and the
 * one `PATCH` sent only when the resource does not already hold the program's values.
 */
import { RESOURCES } from "service-contract";
import { NotFoundError, ValidationError } from "../../../../client/errors";
import {
  adopting,
  adoptExisting,
  readForAdoption,
  type AdoptableKind,
} from "../../../../provider/impl/create/adopt";
import { processClaims } from "../../../../provider/impl/create/claims";

const what = RESOURCES.eventSubscription;

describe("adopting (adoptId)", () => {
  it("refuses an ID another resource of the deployment holds, naming it, without reading or writing it", async () => {
    // The engine passed the ID to diff for the resource's old self (a replacement still carrying adoptId).
    processClaims.claim("esb_held");
    const adopt = jest.fn(async () => "adopted");
    await expect(adopting(what, "esb_held", adopt)).rejects.toThrow(
      new Error(
        "adoptId: event subscription esb_held is already held by another resource of this deployment, so it cannot " +
          "be adopted twice. A resource is adopted once: remove adoptId from it after its first pulumi up (a " +
          "replacement would otherwise adopt its own old self, which the replacement then deletes).",
      ),
    );
    expect(adopt).not.toHaveBeenCalled();
  });

  it("holds the ID while it adopts, so a second adoption of it in the deployment fails", async () => {
    await expect(adopting(what, "esb_free", async () => "adopted")).resolves.toBe("adopted");
    expect(processClaims.isClaimed("esb_free")).toBe(true);
    await expect(adopting(what, "esb_free", async () => "again")).rejects.toThrow(/already held/);
  });

  it("gives the ID back when the adoption fails, so a later adoption can take it", async () => {
    await expect(
      adopting(what, "esb_gone", async () => {
        throw new Error("adoptId: event subscription esb_gone does not exist in the account of this API key");
      }),
    ).rejects.toThrow(/does not exist/);
    expect(processClaims.isClaimed("esb_gone")).toBe(false);
    await expect(adopting(what, "esb_gone", async () => "adopted")).resolves.toBe("adopted");
  });
});

describe("readForAdoption", () => {
  const ID = `esb_${"Q".repeat(27)}`;

  it("gives the live resource", async () => {
    await expect(readForAdoption(what, ID, async (id) => ({ id }))).resolves.toEqual({ id: ID });
  });

  it("names an ID this account does not have, and what to do instead", async () => {
    const notFound = new NotFoundError(
      { status: 404, method: "GET", path: `/event_subscriptions/${ID}`, bodyText: "{}" },
      { body: {} },
    );
    await expect(readForAdoption(what, ID, () => Promise.reject(notFound))).rejects.toThrow(
      new Error(
        `adoptId: event subscription ${ID} does not exist in the account of this API key (deleted, mistyped, or ` +
          "owned by another account), so it cannot be adopted. To create a new one instead (e.g. after an adopted " +
          "resource was deleted outside Pulumi), declare it without adoptId.",
      ),
    );
  });

  it("names a value that is not an ID of the kind; any other error is thrown as it is", async () => {
    const invalid = new ValidationError([{ field: "id", message: "id: must be an event subscription ID" }]);
    await expect(readForAdoption(what, "ed_x", () => Promise.reject(invalid))).rejects.toThrow(
      new Error('adoptId: "ed_x" is not an event subscription ID (esb_…), so it cannot be adopted'),
    );
    const refused = new Error("401");
    await expect(readForAdoption(what, ID, () => Promise.reject(refused))).rejects.toBe(refused);
  });
});

describe("adoptExisting", () => {
  /** A kind whose one resource holds `held`, recording the updates sent. */
  function kind(held: string) {
    const updates: string[] = [];
    const k: AdoptableKind<{ id: string; v: string }, string, { v: string }> = {
      resource: what,
      get: async (id) => ({ id, v: held }),
      update: async (id, news) => {
        updates.push(news);
        return { id, v: news };
      },
      outputs: (live) => ({ v: live.v }),
      adoptedAsIs: (live, news) => live.v === news,
    };
    return { k, updates };
  }

  it("takes a resource that holds the program's values as it is, without a write", async () => {
    const { k, updates } = kind("same");
    await expect(adoptExisting(k, "esb_as_is", "same")).resolves.toEqual({
      id: "esb_as_is",
      outs: { v: "same" },
    });
    expect(updates).toEqual([]);
  });

  it("sends the program's values to one that differs, and gives the answer's outputs", async () => {
    const { k, updates } = kind("old");
    await expect(adoptExisting(k, "esb_differs", "new")).resolves.toEqual({
      id: "esb_differs",
      outs: { v: "new" },
    });
    expect(updates).toEqual(["new"]);
  });
});
