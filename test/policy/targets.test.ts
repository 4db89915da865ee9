import { ARN_FIELDS, destinationTargets } from "../../packages/policy/targets";
import { dynamicType, nativeType } from "../../packages/policy/resources";
import { violationsOf } from "../helpers/policy";

const role = { role: { roleArn: "arn:aws:iam::111122223333:role/events" } };
const kinesis = (streamArn: string) => ({ target: { kinesis: { auth: role, streamArn } } });
const ALLOW = { awsAccounts: ["111122223333"], awsRegions: ["us-east-1"] };

describe.each([nativeType("EventDestination"), dynamicType("EventDestination")])(
  "service-destination-targets on %s",
  (type) => {
    it("lets a Kinesis stream of an allowed account and region through", async () => {
      expect(
        await violationsOf(
          destinationTargets,
          type,
          kinesis("arn:aws:kinesis:us-east-1:111122223333:stream/audit"),
          ALLOW,
        ),
      ).toEqual([]);
    });

    it("refuses a Kinesis stream of another account or region, naming the field and the list", async () => {
      const v = await violationsOf(
        destinationTargets,
        type,
        kinesis("arn:aws:kinesis:eu-west-1:999988887777:stream/x"),
        ALLOW,
        "audit",
      );
      expect(v).toEqual([
        'event destination "audit": kinesis.streamArn is in AWS account 999988887777, not an allowed one (awsAccounts: 111122223333)',
        'event destination "audit": kinesis.streamArn is in AWS region eu-west-1, not an allowed one (awsRegions: us-east-1)',
      ]);
    });

    it("checks Firehose and CloudWatch Logs ARNs too (the ARN fields of the contract)", async () => {
      expect(ARN_FIELDS).toMatchObject({
        firehose: ["deliveryStreamArn"],
        cloudwatchLogs: ["logGroupArn"],
        kinesis: ["streamArn"],
      });
      const logs = {
        target: {
          cloudwatchLogs: { auth: role, logGroupArn: "arn:aws:logs:us-east-1:999988887777:log-group:audit" },
        },
      };
      expect(await violationsOf(destinationTargets, type, logs, ALLOW)).toEqual([
        'event destination "r": cloudwatchLogs.logGroupArn is in AWS account 999988887777, not an allowed one (awsAccounts: 111122223333)',
      ]);
      const firehose = { target: { firehose: { auth: role, deliveryStreamArn: "not-an-arn" } } };
      expect(await violationsOf(destinationTargets, type, firehose)).toEqual([
        'event destination "r": firehose.deliveryStreamArn "not-an-arn" is not an ARN (arn:<partition>:<service>:<region>:<account>:<resource>)',
      ]);
    });

    it("allows Datadog's sites by default, an unset site counting as datadoghq.com, and honours datadogSites", async () => {
      const dd = (ddsite?: string) => ({
        target: { datadog: { apiKey: "k", ...(ddsite ? { ddsite } : {}) } },
      });
      expect(await violationsOf(destinationTargets, type, dd("datadoghq.eu"))).toEqual([]);
      expect(await violationsOf(destinationTargets, type, dd("evil.example"))).toHaveLength(1);
      expect(await violationsOf(destinationTargets, type, dd(), { datadogSites: ["datadoghq.eu"] })).toEqual([
        'event destination "r": datadog.ddsite "datadoghq.com" is not an allowed Datadog site (datadogSites: datadoghq.eu)',
      ]);
    });

    it("allows only the configured Azure data collection rules and target kinds", async () => {
      const az = { target: { azureLogsIngestion: { dataCollectionRuleId: "dcr-1", clientSecret: "s" } } };
      expect(
        await violationsOf(destinationTargets, type, az, { azureDataCollectionRuleIds: ["dcr-1"] }),
      ).toEqual([]);
      expect(
        await violationsOf(destinationTargets, type, az, { azureDataCollectionRuleIds: ["dcr-2"] }),
      ).toHaveLength(1);
      expect(await violationsOf(destinationTargets, type, az, { targetKinds: ["kinesis"] })).toEqual([
        'event destination "r": target kind "azureLogsIngestion" is not allowed (targetKinds: kinesis)',
      ]);
    });
  },
);

it("service-destination-targets leaves other resources alone (another dynamic provider's, another package's)", async () => {
  const bad = kinesis("arn:aws:kinesis:eu-west-1:999988887777:stream/x");
  expect(await violationsOf(destinationTargets, "pulumi-nodejs:dynamic:Resource", bad, ALLOW)).toEqual([]);
  expect(await violationsOf(destinationTargets, "aws:kinesis/stream:Stream", bad, ALLOW)).toEqual([]);
});
