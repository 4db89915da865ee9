/**
 * The contract's own checks as any zod user meets them (packages/contract/checks.ts): the issue a
 * repeated item raises, where and with what message, and the members of an `exactlyOne` union.
 */
import { z } from "zod";
import { EventSubscriptionCreate, Review, exactlyOne, list, membersOf, metaOf } from "service-contract";
import { fakeId } from "../helpers/scripted-server";

const ED = (n: number) => fakeId("ed_", n);

it("reports a repeated item at the item, or at the member compared, with its own message", () => {
  const ids = EventSubscriptionCreate.safeParse({
    sources: [{ type: "ip_policy_created.v0" }],
    destinationIds: [ED(1), ED(2), ED(1)],
  });
  expect(ids.success ? [] : ids.error.issues.map((i) => [i.path, i.message])).toEqual([
    [["destinationIds", 2], "duplicate destination ID"],
  ]);
  const hosts = Review.safeParse({
    hostnames: [
      { hostname: "A.org", status: "BANNED" },
      { hostname: "a.org", status: "BANNED" },
    ],
  });
  expect(hosts.success ? [] : hosts.error.issues.map((i) => [i.path, i.message])).toEqual([
    [["hostnames", 1, "hostname"], "duplicate hostname"],
  ]);
});

it("membersOf: each option's member in order, none of another schema or of an option that is no object", () => {
  const target = exactlyOne({ a: z.string(), b: z.number() });
  expect(membersOf(target)).toEqual(["a", "b"]);
  expect(membersOf(z.union([z.string(), z.strictObject({ c: z.string() })]))).toEqual(["c"]);
  expect(membersOf(list(z.string(), { min: 1 }))).toEqual([]);
  expect(membersOf(z.string())).toEqual([]);
});

it("list: its limits in the schema's metadata and its issues' own messages", () => {
  const tags = list(z.string(), { min: 1, max: 2, unique: { what: "tag" } });
  expect(metaOf(tags)).toEqual({ minItems: 1, maxItems: 2, uniqueItems: true });
  const messages = (value: unknown) => {
    const r = tags.safeParse(value);
    return r.success ? [] : r.error.issues.map((i) => i.message);
  };
  expect(messages([])).toEqual(["at least 1 items"]);
  expect(messages(["a", "b", "c"])).toEqual(["at most 2 items"]);
  expect(messages(["a", "b"])).toEqual([]);
});

it("exactlyOne: the other members allowed as null, other keys refused unless not strict", () => {
  const strict = exactlyOne({ a: z.string(), b: z.number() });
  expect(strict.safeParse({ a: "x", b: null }).success).toBe(true);
  expect(strict.safeParse({ a: "x" }).success).toBe(true);
  expect(strict.safeParse({ a: "x", q: 1 }).success).toBe(false);
  expect(exactlyOne({ a: z.string(), b: z.number() }, false).safeParse({ a: "x", q: 1 }).success).toBe(true);
});

it("list: a repeat is refused, and a list without limits has none in its metadata", () => {
  const tags = list(z.string(), { unique: { what: "tag" } });
  const r = tags.safeParse(["a", "a"]);
  expect(r.success ? [] : r.error.issues.map((i) => [i.path, i.message])).toEqual([[[1], "duplicate tag"]]);
  expect(metaOf(list(z.string(), {}))).toStrictEqual({});
  expect(metaOf(list(z.string(), { max: 1 }))).toStrictEqual({ maxItems: 1 });
});
