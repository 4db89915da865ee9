/**
 * Abuse report review: the operator endpoint, the status rule of docs/service-api.md § Abuse reports, the
 * admin key, and the automatic review after a delay.
 */
import { autoReviewStatus, reportStatus } from "../../packages/emulator/review";
import { createApp } from "../../packages/emulator/app";
import { openStore } from "../../packages/emulator/store";
import { apiRequest, rawRequest, review, startEmulator, type RunningEmulator } from "../helpers/emulator";
import { absentId, expectError } from "../helpers/emulator-fixtures";
import { attachResponseValidation } from "../helpers/openapi";

const KEY = "key-review";
const OTHER = "key-review-other";

describe("operator review", () => {
  let em: RunningEmulator;
  const call = (method: string, path: string, body?: unknown, key = KEY) =>
    apiRequest(em.url, key, method, path, body);
  const operator = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    rawRequest({
      method,
      url: em.url + path,
      headers: {
        authorization: `Bearer ${em.adminKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [KEY, OTHER] });
  });
  afterAll(() => em.close());

  it("moves a report from PENDING to PARTIALLY_PROCESSED to PROCESSED", async () => {
    const created = (
      await call("POST", "/abuse_reports", { urls: ["https://a.bad.org/1", "https://b.bad.org/2"] })
    ).json();
    expect(created.status).toBe("PENDING");

    const partly = await review(em.url, em.adminKey, created.id, [
      { hostname: "a.bad.org", status: "BANNED" },
    ]);
    expect(partly).toEqual({
      ...created,
      status: "PARTIALLY_PROCESSED",
      hostnames: [
        { hostname: "a.bad.org", status: "BANNED" },
        { hostname: "b.bad.org", status: "PENDING" },
      ],
    });
    expect((await call("GET", `/abuse_reports/${created.id}`)).json()).toEqual(partly);

    const done = await review(em.url, em.adminKey, created.id, [{ hostname: "B.BAD.ORG", status: "IGNORE" }]);
    expect(done.status).toBe("PROCESSED");
    expect((await call("GET", `/abuse_reports/${created.id}`)).json()).toEqual({
      ...created,
      status: "PROCESSED",
      hostnames: [
        { hostname: "a.bad.org", status: "BANNED" },
        { hostname: "b.bad.org", status: "IGNORE" },
      ],
    });

    const back = await review(em.url, em.adminKey, created.id, [
      { hostname: "a.bad.org", status: "UNBANNED" },
      { hostname: "b.bad.org", status: "PENDING" },
    ]);
    expect(back.status).toBe("PARTIALLY_PROCESSED");
  });

  it("reviews any account's report, without a Service-Version header, and is not in the request log", async () => {
    const created = (await call("POST", "/abuse_reports", { urls: ["https://c.bad.org/"] }, OTHER)).json();
    const res = await operator("POST", `/_operator/abuse_reports/${created.id}/review`, {
      hostnames: [{ hostname: "c.bad.org", status: "BANNED" }],
    });
    expect(res.status).toBe(200);
    expect(res.headers["operation-id"]).toMatch(/^op_[0-9A-Za-z]{27}$/);
    expect(res.json().status).toBe("PROCESSED");
    const log = (await operator("GET", "/_operator/requests")).json().requests;
    expect(log.some((r: { path: string }) => r.path.startsWith("/_operator"))).toBe(false);
  });

  describe("rejects", () => {
    let id: string;
    beforeAll(async () => {
      id = (await call("POST", "/abuse_reports", { urls: ["https://d.bad.org/"] })).json().id;
    });

    it.each([
      ["no Authorization header", { authorization: "" }, 401, 201],
      ["an API key instead of the admin key", { authorization: `Bearer ${KEY}` }, 401, 203],
      ["a wrong admin key", { authorization: "Bearer wrong-admin" }, 401, 203],
    ])("%s", async (_name, headers, status, code) => {
      const h: Record<string, string> = { "content-type": "application/json" };
      if (headers.authorization !== "") h.authorization = headers.authorization;
      const before = em.store.snapshot();
      const res = await rawRequest({
        method: "POST",
        url: `${em.url}/_operator/abuse_reports/${id}/review`,
        headers: h,
        body: JSON.stringify({ hostnames: [{ hostname: "d.bad.org", status: "BANNED" }] }),
      });
      expectError(res, status, code);
      expect(em.store.snapshot()).toEqual(before);
    });

    it.each([
      [
        "a hostname not in the report",
        () => id,
        { hostnames: [{ hostname: "e.bad.org", status: "BANNED" }] },
        400,
        215,
      ],
      [
        "an unknown status",
        () => id,
        { hostnames: [{ hostname: "d.bad.org", status: "DELETED" }] },
        400,
        215,
      ],
      ["an empty list", () => id, { hostnames: [] }, 400, 215],
      [
        "an unknown field",
        () => id,
        { hostnames: [{ hostname: "d.bad.org", status: "BANNED" }], note: "x" },
        400,
        214,
      ],
      [
        "one good and one unknown hostname (all or nothing)",
        () => id,
        {
          hostnames: [
            { hostname: "d.bad.org", status: "BANNED" },
            { hostname: "x.org", status: "BANNED" },
          ],
        },
        400,
        215,
      ],
      [
        "an unknown report",
        () => absentId("abrp_"),
        { hostnames: [{ hostname: "d.bad.org", status: "BANNED" }] },
        404,
        404,
      ],
      [
        "a subscription ID",
        () => absentId("esb_"),
        { hostnames: [{ hostname: "d.bad.org", status: "BANNED" }] },
        400,
        227,
      ],
    ])("%s", async (_name, target, body, status, code) => {
      const before = em.store.snapshot();
      expectError(await operator("POST", `/_operator/abuse_reports/${target()}/review`, body), status, code);
      expect(em.store.snapshot()).toEqual(before);
    });

    it("a wrong method with 405", async () => {
      expectError(await operator("GET", `/_operator/abuse_reports/${id}/review`), 405, 405);
    });
  });

  it("answers 404 on every operator path when no admin key is configured", async () => {
    const store = openStore(":memory:");
    const app = createApp({ store, apiKeys: ["k-no-admin"] });
    await attachResponseValidation(app);
    try {
      await app.listen({ port: 0, host: "127.0.0.1" });
      const { port } = app.server.address() as { port: number };
      for (const path of [
        "/_operator/faults",
        "/_operator/requests",
        `/_operator/abuse_reports/${absentId("abrp_")}/review`,
      ]) {
        const res = await rawRequest({
          method: "GET",
          url: `http://127.0.0.1:${port}${path}`,
          headers: { authorization: "Bearer k-no-admin" },
        });
        expectError(res, 404, 404);
      }
    } finally {
      await app.close();
      store.close();
    }
  });
});

describe("automatic review", () => {
  let now = Date.now();
  let em: RunningEmulator;
  beforeAll(async () => {
    em = await startEmulator({ apiKeys: [KEY], reviewDelayMs: 30_000, clock: () => now });
  });
  afterAll(() => em.close());

  it("reviews pending hostnames once the delay has passed: BANNED, or IGNORE for reserved names", async () => {
    const urls = [
      "https://evil.example.com/x",
      "http://localhost:3000/",
      "https://shop.example/",
      "https://a.test/",
    ];
    const created = (await apiRequest(em.url, KEY, "POST", "/abuse_reports", { urls })).json();
    expect(created.status).toBe("PENDING");
    now += 29_000;
    expect((await apiRequest(em.url, KEY, "GET", `/abuse_reports/${created.id}`)).json().status).toBe(
      "PENDING",
    );
    // An operator decision before the delay stands.
    await review(em.url, em.adminKey, created.id, [{ hostname: "a.test", status: "BANNED" }]);
    now += 1_000;
    const got = (await apiRequest(em.url, KEY, "GET", `/abuse_reports/${created.id}`)).json();
    expect(got.status).toBe("PROCESSED");
    expect(got.hostnames).toEqual([
      { hostname: "evil.example.com", status: "BANNED" },
      { hostname: "localhost", status: "IGNORE" },
      { hostname: "shop.example", status: "IGNORE" },
      { hostname: "a.test", status: "BANNED" },
    ]);
    // Saved, not only shown.
    const row = em.store.snapshot().abuse_reports.find((r) => (r as { id: string }).id === created.id) as {
      hostnames: string;
    };
    expect(JSON.parse(row.hostnames).map((h: { status: string }) => h.status)).toEqual([
      "BANNED",
      "IGNORE",
      "IGNORE",
      "BANNED",
    ]);
  });

  it("measures the delay from when a hostname was set back to PENDING", async () => {
    const created = (
      await apiRequest(em.url, KEY, "POST", "/abuse_reports", { urls: ["https://z.org/"] })
    ).json();
    await review(em.url, em.adminKey, created.id, [{ hostname: "z.org", status: "UNBANNED" }]);
    now += 60_000;
    await review(em.url, em.adminKey, created.id, [{ hostname: "z.org", status: "PENDING" }]);
    expect((await apiRequest(em.url, KEY, "GET", `/abuse_reports/${created.id}`)).json().status).toBe(
      "PENDING",
    );
    now += 30_000;
    expect((await apiRequest(em.url, KEY, "GET", `/abuse_reports/${created.id}`)).json().hostnames).toEqual([
      { hostname: "z.org", status: "BANNED" },
    ]);
  });

  it("is off by default", async () => {
    const other = await startEmulator({ apiKeys: ["k-no-delay"], clock: () => now });
    try {
      const created = (
        await apiRequest(other.url, "k-no-delay", "POST", "/abuse_reports", { urls: ["https://y.org/"] })
      ).json();
      now += 365 * 24 * 3600 * 1000;
      expect(
        (await apiRequest(other.url, "k-no-delay", "GET", `/abuse_reports/${created.id}`)).json().status,
      ).toBe("PENDING");
    } finally {
      await other.close();
    }
  });
});

describe("review rules", () => {
  it.each([
    [["PENDING"], "PENDING"],
    [["PENDING", "PENDING"], "PENDING"],
    [["BANNED"], "PROCESSED"],
    [["IGNORE", "UNBANNED", "BANNED"], "PROCESSED"],
    [["PENDING", "BANNED"], "PARTIALLY_PROCESSED"],
    [["IGNORE", "PENDING", "UNBANNED"], "PARTIALLY_PROCESSED"],
  ] as const)("hostnames %j make the report %s", (statuses, expected) => {
    expect(reportStatus(statuses.map((status) => ({ status })))).toBe(expected);
  });

  it.each([
    ["localhost", "IGNORE"],
    ["api.localhost", "IGNORE"],
    ["example", "IGNORE"],
    ["www.example", "IGNORE"],
    ["foo.test", "IGNORE"],
    ["x.invalid", "IGNORE"],
    ["example.com", "BANNED"],
    ["evil.org", "BANNED"],
    ["[::1]", "BANNED"],
    ["testing.com", "BANNED"],
  ])("the automatic review sets %s to %s", (hostname, expected) => {
    expect(autoReviewStatus(hostname)).toBe(expected);
  });
});
