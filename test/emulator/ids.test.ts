/**
 * IDs of the emulator (emulator/ids.ts): prefix + 27 base62 characters in creation order, RFC 3339 times.
 */
import fc from "fast-check";
import { KsuidGenerator, rfc3339 } from "../../packages/emulator/ids";

describe("KSUID-like IDs", () => {
  it("are the prefix and 27 base62 characters, with the creation second inside", () => {
    const now = Date.UTC(2026, 10, 21, 9, 30, 0, 700);
    const m = new KsuidGenerator(() => now).next("esb_");
    expect(m.id).toMatch(/^esb_[0-9A-Za-z]{27}$/);
    expect(rfc3339(m.unixSeconds)).toBe("2026-11-21T09:30:00Z");
  });

  it("sort in creation order for any non-decreasing clock, within a second and across seconds", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 2, maxLength: 200 }), (steps) => {
        let t = 1_700_000_000_000;
        const gen = new KsuidGenerator(() => t);
        const ids = steps.map((s) => {
          t += s;
          return gen.next("ed_").id;
        });
        for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
      }),
    );
  });

  it("keep sorting after an observed ID even when the clock went back", () => {
    let t = 1_700_000_000_000;
    const a = new KsuidGenerator(() => t);
    const last = Array.from({ length: 5 }, () => a.next("esb_").id).at(-1)!;
    t -= 5000;
    const b = new KsuidGenerator(() => t);
    b.observe(last, "esb_");
    expect(b.next("esb_").id > last).toBe(true);
  });

  it("format timestamps as RFC 3339 UTC with whole seconds", () => {
    expect(rfc3339(0)).toBe("1970-01-01T00:00:00Z");
    expect(rfc3339(1_795_253_400)).toBe("2026-11-21T09:30:00Z");
  });
});
