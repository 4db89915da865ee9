/**
 * The words of a create whose answer was lost (provider/impl/create/lostCreateMessages.ts), whole:
 * each message opens with the kind and the last error, names the resources by ID and the times in
 * ISO 8601, and says what the provider did or what to run next.
 */
import {
  adoptedWarning,
  cannotBeListedError,
  lookupFailedError,
  mayHaveBeenMade,
  noneWarning,
  nothingCreatedError,
  sameKeyWarning,
  severalMatchesError,
  writeOnlySecretError,
  type LostCreateFacts,
} from "../../../../provider/impl/create/lostCreateMessages";

const SINCE = Date.parse("2026-11-29T10:00:00.000Z");
const facts = (over: Partial<LostCreateFacts> = {}): LostCreateFacts => ({
  what: "event subscription",
  lost: new Error("POST /event_subscriptions: socket hang up"),
  conflict: false,
  lookedSince: SINCE,
  ...over,
});
const OPENING =
  "event subscription: the create failed and may have been made (POST /event_subscriptions: socket hang up)";
const [A, B] = [{ id: "esb_A" }, { id: "esb_B" }];

describe("the messages of a lost create", () => {
  it("open with the kind and the last error, a thrown value that is no Error as text", () => {
    expect(mayHaveBeenMade(facts())).toBe(OPENING);
    expect(mayHaveBeenMade(facts({ lost: "reset" }))).toBe(
      "event subscription: the create failed and may have been made (reset)",
    );
  });

  it("say when the create is sent again under its key, or again after a lookup found none", () => {
    expect(sameKeyWarning(facts())).toBe(
      `${OPENING}; sending it again with the same Idempotency-Key, which the service honours`,
    );
    expect(noneWarning(facts())).toBe(
      `${OPENING}, but the service holds no such event subscription: sending it again`,
    );
  });

  it("name what was adopted: the one match, or one of several twins of this deployment", () => {
    expect(adoptedWarning(facts(), [A], A)).toBe(
      `${OPENING}; the service holds exactly one event subscription with these values made since it started that no ` +
        "other resource of this deployment holds, esb_A: adopted it",
    );
    expect(adoptedWarning(facts(), [A, B], B)).toBe(
      `${OPENING}; the service holds 2 event subscriptions with these values made since it started that no other ` +
        "resource of this deployment holds, no more than the creates of these values whose answers were lost, esb_B: adopted it",
    );
  });

  it("name every twin a write-only secret keeps from being told apart, as it or them", () => {
    const tail = (them: string) =>
      " with these values, but another create of this deployment whose request differs only in what the service does " +
      "not return (a write-only secret) lost its answer too: the provider cannot tell whose it is, so no resource of " +
      `this deployment adopts ${them}. Delete ${them} (or adopt with adoptId) and run pulumi up again.`;
    expect(writeOnlySecretError(facts(), [A]).message).toBe(
      `${OPENING}, and the service holds esb_A${tail("it")}`,
    );
    expect(writeOnlySecretError(facts(), [A, B]).message).toBe(
      `${OPENING}, and the service holds esb_A, esb_B${tail("them")}`,
    );
  });

  it("name every match when more match than creates wait, with the start of the window", () => {
    expect(severalMatchesError(facts(), [A, B]).message).toBe(
      `${OPENING}, and 2 event subscriptions made since 2026-11-29T10:00:00.000Z have exactly these values: esb_A, esb_B. ` +
        "The provider cannot tell which one (if any) this create made, so it adopts none. Delete the extra ones " +
        "(or adopt one with adoptId) and run pulumi up again.",
    );
  });

  it("say that nothing was made after two failures and two empty lookups", () => {
    expect(nothingCreatedError(facts()).message).toBe(
      "event subscription: the create failed twice (last: POST /event_subscriptions: socket hang up), and the service " +
        "holds no event subscription with these values made since 2026-11-29T10:00:00.000Z: nothing was created. " +
        "Run pulumi up again.",
    );
  });

  it("say what to look for, with its article, when the listings failed", () => {
    expect(lookupFailedError(facts(), 5, new Error("GET /event_subscriptions: 503"), SINCE).message).toBe(
      `${OPENING}, and looking for it failed 5 times (last: GET /event_subscriptions: 503). Before running pulumi up ` +
        "again, look for an event subscription with these values made since 2026-11-29T10:00:00.000Z: if there is " +
        "one, delete it or adopt it with adoptId.",
    );
    expect(lookupFailedError(facts({ what: "destination" }), 1, "x", SINCE).message).toContain(
      "look for a destination with these values",
    );
  });

  it("of a kind that cannot be listed: run up again after a conflict; else ask the service first", () => {
    const report = (over: Partial<LostCreateFacts>) =>
      cannotBeListedError(facts({ what: "abuse report", lost: new Error("lost"), ...over })).message;
    expect(report({ conflict: true })).toBe(
      "abuse report: lost, so it was not taken for this resource. abuse reports cannot be listed, so the provider " +
        "cannot look for a twin: run pulumi up again to create it.",
    );
    expect(report({})).toBe(
      "abuse report: the create failed after reaching the service (lost), so it may or may not have been made. " +
        "abuse reports cannot be listed, so the provider cannot look for it, and the service has not shown that it " +
        "honours Idempotency-Key, so sending it again could make a second one. Check with the service before running " +
        "pulumi up again.",
    );
  });
});
