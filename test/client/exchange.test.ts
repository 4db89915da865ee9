/**
 * One exchange through undici's dispatch (client/exchange.ts): the whole answer, undici's errors as
 * they are, and an abort that ends it at once at any stage, the per-call timeout's tool.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, type Dispatcher } from "undici";
import { exchange } from "../../client/exchange";

describe("exchange", () => {
  let server: http.Server;
  let origin: string;
  let agent: Agent;
  const closed: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      res.on("close", () => closed.push(req.url ?? ""));
      if (req.url === "/chunks") {
        res.writeHead(201, { "content-type": "application/json", "operation-id": "op_1" });
        res.write('{"a":"é');
        setTimeout(() => res.end('tç"}'), 20);
      } else if (req.url === "/stall") {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"a":'); // and nothing more
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    agent = new Agent();
  });
  afterAll(async () => {
    await agent.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("reads the whole answer: status, headers, body in UTF-8 across chunks", async () => {
    const answer = await exchange(agent, { origin, path: "/chunks", method: "GET" }).done;
    expect(answer.status).toBe(201);
    expect(answer.headers["operation-id"]).toBe("op_1");
    expect(answer.text).toBe('{"a":"étç"}');
  });

  it("an abort in the middle of the body rejects at once with the reason and closes the connection", async () => {
    const x = exchange(agent, {
      origin,
      path: "/stall",
      method: "GET",
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    setTimeout(() => x.abort(new Error("too slow")), 50);
    await expect(x.done).rejects.toThrow("too slow");
    for (let waited = 0; !closed.includes("/stall") && waited < 2000; waited += 10) {
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(closed).toContain("/stall");
  });

  it("passes undici's errors through, with their codes", async () => {
    const refused = new Agent();
    const port = await new Promise<number>((resolve) => {
      const s = http.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    await expect(
      exchange(refused, { origin: `http://127.0.0.1:${port}`, path: "/", method: "GET" }).done,
    ).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await refused.close();
  });

  it("an abort before undici starts the request rejects at once and aborts it when it starts", async () => {
    // A dispatcher that starts requests late, like one still opening a connection.
    let start: (() => void) | undefined;
    const aborted: Error[] = [];
    const late = {
      dispatch(_opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) {
        start = () =>
          handler.onRequestStart!(
            {
              abort: (reason: Error) => aborted.push(reason),
              aborted: false,
              paused: false,
              reason: null,
              pause() {},
              resume() {},
            },
            {},
          );
        return true;
      },
    } as unknown as Dispatcher;
    const x = exchange(late, { origin, path: "/", method: "GET" });
    x.abort(new Error("timed out"));
    await expect(x.done).rejects.toThrow("timed out");
    expect(aborted).toEqual([]);
    start!();
    expect(aborted.map((e) => e.message)).toEqual(["timed out"]);
  });
});

test("a dispatcher that throws instead of starting: the exchange rejects with its error (a thrown non-Error as an Error of its text)", async () => {
  const throwing = (thrown: unknown) =>
    ({
      dispatch() {
        throw thrown;
      },
    }) as unknown as Dispatcher;
  const closedError = Object.assign(new Error("closed"), { code: "UND_ERR_CLOSED" });
  await expect(
    exchange(throwing(closedError), { origin: "http://x", path: "/", method: "GET" }).done,
  ).rejects.toBe(closedError);
  const text = exchange(throwing("plain text"), { origin: "http://x", path: "/", method: "GET" }).done;
  await expect(text).rejects.toBeInstanceOf(Error);
  await expect(text).rejects.toThrow("plain text");
});
