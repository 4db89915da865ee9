/**
 * List paging (docs/service-api.md § Paging: newest first, `limit` 1..100 default 100,
 * `before_id`, absolute `next_page_uri` or null).
 */
import { apiRequest, startEmulator, type RunningEmulator } from "../../helpers/emulator";
import { destinationBody, subscriptionBody } from "../../helpers/emulator-fixtures";

const KEY = "key-paging";
const OTHER = "key-paging-other";
let em: RunningEmulator;
const call = (method: string, path: string, body?: unknown, key = KEY) =>
  apiRequest(em.url, key, method, path, body);

/** Body of a subscription list page. */
interface ListBody {
  event_subscriptions: { id: string }[];
  uri: string;
  next_page_uri: string | null;
}

let created: string[] = [];
let destination: string;

beforeAll(async () => {
  em = await startEmulator({ apiKeys: [KEY, OTHER] });
  destination = (await call("POST", "/event_destinations", destinationBody())).json().id;
  // Another account's subscriptions must never show up.
  const otherDest = (await call("POST", "/event_destinations", destinationBody(), OTHER)).json().id;
  for (let i = 0; i < 5; i++)
    await call("POST", "/event_subscriptions", subscriptionBody([otherDest]), OTHER);
  created = [];
  for (let i = 0; i < 250; i++) {
    const res = await call(
      "POST",
      "/event_subscriptions",
      subscriptionBody([destination], { description: `#${i}` }),
    );
    expect(res.status).toBe(201);
    created.push(res.json().id);
  }
}, 60_000);
afterAll(() => em.close());

describe("subscription list paging", () => {
  it("reads 250 subscriptions back as pages of 100, 100 and 50, newest first, without gaps or duplicates", async () => {
    const pages: { ids: string[]; next: string | null }[] = [];
    let path: string | null = "/event_subscriptions?limit=100";
    while (path !== null) {
      const res = await call("GET", path);
      expect(res.status).toBe(200);
      const body = res.json();
      const ids = body.event_subscriptions.map((s: { id: string }) => s.id);
      pages.push({ ids, next: body.next_page_uri });
      if (body.next_page_uri !== null) {
        expect(body.next_page_uri).toBe(
          `${em.url}/event_subscriptions?before_id=${ids[ids.length - 1]}&limit=100`,
        );
        path = new URL(body.next_page_uri).pathname + new URL(body.next_page_uri).search;
      } else {
        path = null;
      }
      expect(pages.length).toBeLessThanOrEqual(3);
    }
    expect(pages.map((p) => p.ids.length)).toEqual([100, 100, 50]);
    expect(pages[2].next).toBeNull();
    const all = pages.flatMap((p) => p.ids);
    expect(new Set(all).size).toBe(250);
    expect(all).toEqual([...created].reverse());
  });

  it("sorting the IDs sorts by creation, even within one second", () => {
    expect([...created].sort()).toEqual(created);
  });

  it("uses a page size of 100 when limit is absent", async () => {
    const body = (await call("GET", "/event_subscriptions")).json();
    expect(body.event_subscriptions).toHaveLength(100);
    expect(body.next_page_uri).toBe(`${em.url}/event_subscriptions?before_id=${created[150]}&limit=100`);
  });

  it.each([
    [1, 250],
    [7, 36],
    [50, 5],
    [100, 3],
  ])(
    "with limit %i walks all subscriptions in %i pages",
    async (limit, expectedPages) => {
      let path: string | null = `/event_subscriptions?limit=${limit}`;
      const all: string[] = [];
      let pages = 0;
      while (path !== null) {
        const body: ListBody = (await call("GET", path)).json();
        pages++;
        expect(body.event_subscriptions.length).toBeLessThanOrEqual(limit);
        all.push(...body.event_subscriptions.map((s: { id: string }) => s.id));
        path = body.next_page_uri === null ? null : body.next_page_uri.slice(em.url.length);
      }
      expect(pages).toBe(expectedPages);
      expect(all).toEqual([...created].reverse());
    },
    60_000,
  );

  it("answers an empty last page when before_id is the oldest", async () => {
    const body = (await call("GET", `/event_subscriptions?before_id=${created[0]}`)).json();
    expect(body).toEqual({
      event_subscriptions: [],
      uri: `${em.url}/event_subscriptions`,
      next_page_uri: null,
    });
  });

  it("has next_page_uri null when the page is exactly the rest", async () => {
    const body = (await call("GET", `/event_subscriptions?before_id=${created[50]}&limit=50`)).json();
    expect(body.event_subscriptions).toHaveLength(50);
    expect(body.next_page_uri).toBeNull();
  });

  it("shows a deleted subscription on no page", async () => {
    const victim = created[125];
    expect((await call("DELETE", `/event_subscriptions/${victim}`)).status).toBe(204);
    const ids: string[] = [];
    let path: string | null = "/event_subscriptions";
    while (path !== null) {
      const body: ListBody = (await call("GET", path)).json();
      ids.push(...body.event_subscriptions.map((s: { id: string }) => s.id));
      path = body.next_page_uri === null ? null : body.next_page_uri.slice(em.url.length);
    }
    expect(ids).toHaveLength(249);
    expect(ids).not.toContain(victim);
  });
});

describe("destination list paging", () => {
  it("pages newest first with the same rules", async () => {
    const ids = [destination];
    for (let i = 0; i < 4; i++)
      ids.push((await call("POST", "/event_destinations", destinationBody())).json().id);
    const p1 = (await call("GET", "/event_destinations?limit=2")).json();
    expect(p1.event_destinations.map((d: { id: string }) => d.id)).toEqual([ids[4], ids[3]]);
    expect(p1.uri).toBe(`${em.url}/event_destinations`);
    expect(p1.next_page_uri).toBe(`${em.url}/event_destinations?before_id=${ids[3]}&limit=2`);
    const p2 = (await call("GET", p1.next_page_uri.slice(em.url.length))).json();
    expect(p2.event_destinations.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    const p3 = (await call("GET", p2.next_page_uri.slice(em.url.length))).json();
    expect(p3.event_destinations.map((d: { id: string }) => d.id)).toEqual([ids[0]]);
    expect(p3.next_page_uri).toBeNull();
  });
});
