/**
 * What consumers read from the contract's field metadata: the write-only secrets and the
 * optional strings of each target kind.
 */
import { DESTINATION_TARGET_KINDS, OPTIONAL_STRINGS, SECRET_PATHS } from "service-contract";

describe("event destination metadata", () => {
  it("names the write-only secret of every target kind", () => {
    expect(SECRET_PATHS).toEqual({
      firehose: [["auth", "creds", "awsSecretAccessKey"]],
      kinesis: [["auth", "creds", "awsSecretAccessKey"]],
      cloudwatchLogs: [["auth", "creds", "awsSecretAccessKey"]],
      datadog: [["apiKey"]],
      azureLogsIngestion: [["clientSecret"]],
    });
  });

  it("names the optional strings of every target kind", () => {
    expect(OPTIONAL_STRINGS).toEqual({
      firehose: [],
      kinesis: [],
      cloudwatchLogs: [],
      datadog: ["ddtags", "service", "ddsite"],
      azureLogsIngestion: [],
    });
    expect(Object.keys(SECRET_PATHS)).toEqual([...DESTINATION_TARGET_KINDS]);
  });
});
