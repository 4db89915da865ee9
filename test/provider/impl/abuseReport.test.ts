/**
 * The abuse report's `delete` sends nothing (reports cannot be deleted) and only logs a warning;
 * a failure to log never fails the operation.
 */
import * as pulumi from "@pulumi/pulumi";
import * as reports from "../../../provider/impl/abuseReport";

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
