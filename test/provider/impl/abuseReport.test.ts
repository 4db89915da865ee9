/**
 * The abuse report's `delete` sends nothing (reports cannot be deleted) and only logs a warning;
 * a failure to log never fails the operation. Its create (an answer lost on the way back), read
 * (refresh) and diff against the emulator.
 */
import * as pulumi from "@pulumi/pulumi";
import * as reports from "../../../provider/impl/abuseReport";
import { KEY_STAMP, keyStamp } from "../../../provider/impl/keyStamp";
import { getClient } from "../../../provider/impl/process/client";
import { lostAnswer, useProviderOnEmulator } from "../../helpers/provider-emulator";

const ID = "abrp_" + "0".repeat(26) + "1";

describe("AbuseReport delete", () => {
  afterEach(() => jest.restoreAllMocks());

  it("logs that the report stays on the service", async () => {
    const warn = jest.spyOn(pulumi.log, "warn").mockResolvedValue(undefined);
    await reports.remove(ID);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining(`Abuse report ${ID} was removed from the stack`),
    );
  });

  it.each([
    ["the log rejects", () => Promise.reject(new Error("engine connection closed"))],
    [
      "the log throws",
      () => {
        throw new Error("no engine");
      },
    ],
  ])("succeeds when %s", async (_label, failure) => {
    jest.spyOn(pulumi.log, "warn").mockImplementation(failure as () => Promise<void>);
    await expect(reports.remove(ID)).resolves.toBeUndefined();
  });
});

describe("AbuseReport create, read and diff against the emulator", () => {
  const service = useProviderOnEmulator("sk_abuse_report_impl_5c1e");
  const outputs = (over: Partial<reports.ReportOutputs> = {}): reports.ReportOutputs => ({
    urls: ["https://a.example/x", "https://b.example/y"],
    metadata: "",
    status: "PENDING",
    hostnames: [],
    uri: "",
    createdAt: "",
    ...over,
  });

  it("files the report with its metadata, and a refresh reads it back with the inputs that made it", async () => {
    const made = await reports.create({ urls: ["https://bad.example/x"], metadata: "ticket 9" });
    expect(made.outs).toMatchObject({
      urls: ["https://bad.example/x"],
      metadata: "ticket 9",
      status: "PENDING",
      hostnames: [{ hostname: "bad.example", status: "PENDING" }],
    });
    const live = await service().client.abuseReports.get(made.id);
    expect(live.metadata).toBe("ticket 9");
    const refreshed = await reports.read(made.id, made.outs);
    expect(refreshed.inputs).toEqual({ urls: ["https://bad.example/x"], metadata: "ticket 9" });
    expect(refreshed.props).toMatchObject({ urls: ["https://bad.example/x"], metadata: "ticket 9" });

    const plain = await reports.create({ urls: ["https://plain.example/"] });
    expect((await reports.read(plain.id, plain.outs)).inputs).toEqual({ urls: ["https://plain.example/"] });
  });

  it("a refresh answered 404 to another key than the one that filed the report fails naming the report, and keeps it", async () => {
    const gone = "abrp_" + "0".repeat(26) + "2";
    const props = { ...outputs(), [KEY_STAMP]: keyStamp("sk_another_account_key_0000") };
    await expect(reports.read(gone, props)).rejects.toThrow(
      new RegExp(
        `^abuse report ${gone} was made with another service API key .* so it is not dropped from the state`,
      ),
    );
  });

  it("a create whose answer was lost is sent again under its idempotency key: the report the lost answer filed is the one taken", async () => {
    const client = getClient();
    const send = client.abuseReports.create.bind(client.abuseReports);
    const filed: string[] = [];
    const creates = jest
      .spyOn(client.abuseReports, "create")
      .mockImplementationOnce(async (body, options) => {
        filed.push((await send(body, options)).id);
        throw lostAnswer("POST /abuse_reports");
      });
    try {
      const made = await reports.create({ urls: ["https://lost.example/x"] });
      expect(filed).toHaveLength(1);
      expect(made.id).toBe(filed[0]);
      expect(creates).toHaveBeenCalledTimes(2);
      const keys = creates.mock.calls.map(([, options]) => options?.idempotencyKey);
      expect(keys[0]).toEqual(expect.any(String));
      expect(keys[1]).toBe(keys[0]);
    } finally {
      creates.mockRestore();
    }
  });

  it("diff: urls in another order and an empty metadata left out are no change; another URL or metadata replaces", async () => {
    const olds = outputs();
    expect((await reports.diff("abrp_x", olds, { urls: [...olds.urls].reverse() })).changes).toBe(false);
    expect((await reports.diff("abrp_x", olds, { urls: olds.urls, metadata: "" })).changes).toBe(false);
    expect(await reports.diff("abrp_x", olds, { urls: [olds.urls[0]] })).toMatchObject({
      changes: true,
      replaces: ["urls"],
    });
    expect(await reports.diff("abrp_x", olds, { urls: olds.urls, metadata: "m" })).toMatchObject({
      changes: true,
      replaces: ["metadata"],
    });
    expect(await reports.diff("abrp_x", outputs({ metadata: "m" }), { urls: olds.urls })).toMatchObject({
      replaces: ["metadata"],
    });
  });
});
