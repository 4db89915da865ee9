/**
 * `adopting` (provider/impl/create/adopt.ts): an `adoptId` is held for one resource of the deployment,
 * as a lost create's lookup holds what it adopts, and given back when the adoption fails.
 */
import { RESOURCES } from "service-contract";
import { adopting } from "../../../../provider/impl/create/adopt";
import { processClaims } from "../../../../provider/impl/create/claims";

const what = RESOURCES.eventSubscription;

describe("adopting (adoptId)", () => {
  it("refuses an ID another resource of the deployment holds, naming it, without reading or writing it", async () => {
    // The engine passed the ID to diff for the resource's old self (a replacement still carrying adoptId).
    processClaims.claim("esb_held");
    const adopt = jest.fn(async () => "adopted");
    await expect(adopting(what, "esb_held", adopt)).rejects.toThrow(
      /adoptId: event subscription esb_held is already held by another resource of this deployment.*remove adoptId/,
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
