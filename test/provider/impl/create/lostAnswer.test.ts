/**
 * The lost answer's small rules (provider/impl/create/lostAnswer.ts): which failures may have made
 * the resource (so a create looks for it, or sends again under its key), and the article before a
 * kind's name in the messages.
 */
import { APIConnectionError } from "../../../../client/errors";
import {
  describe as describeError,
  maybeApplied,
  withArticle,
} from "../../../../provider/impl/create/lostAnswer";

describe("maybeApplied", () => {
  const connectionError = (requestNotSent: boolean) =>
    new APIConnectionError("POST /event_subscriptions: connection reset", {
      request: "POST /event_subscriptions",
      requestNotSent,
    });

  it("is true for an answer lost after the request was sent, or an earlier attempt's", () => {
    expect(maybeApplied(connectionError(false))).toBe(true);
    const retried = connectionError(true);
    retried.maybeApplied = true;
    expect(maybeApplied(retried)).toBe(true);
  });

  it("is false for a request never sent, and for what the client did not throw", () => {
    expect(maybeApplied(connectionError(true))).toBe(false);
    expect(maybeApplied(new Error("POST /event_subscriptions: socket hang up"))).toBe(false);
    expect(maybeApplied("reset")).toBe(false);
  });
});

describe("the messages' words", () => {
  it.each([
    ["event subscription", "an event subscription"],
    ["Event destination", "an Event destination"],
    ["abuse report", "an abuse report"],
    ["destination", "a destination"],
    ["thing with an e", "a thing with an e"],
  ])("%s after its article: %s", (what, expected) => {
    expect(withArticle(what)).toBe(expected);
  });

  it("an error is named by its message, any other thrown value as text", () => {
    expect(describeError(new Error("boom"))).toBe("boom");
    expect(describeError(503)).toBe("503");
  });
});
