import { abuseReportsAllowed } from "../../packages/policy/abuseReports";
import { dynamicType, nativeType } from "../../packages/policy/resources";
import { violationsOf } from "../helpers/policy";

describe.each([nativeType("AbuseReport"), dynamicType("AbuseReport")])(
  "service-abuse-reports-allowed on %s",
  (type) => {
    const report = { urls: ["https://phish.example/login"] };

    it("refuses an abuse report by default, telling how to allow it", async () => {
      expect(await violationsOf(abuseReportsAllowed, type, report, {}, "phish")).toEqual([
        'abuse report "phish" is not allowed in this stack (set allowAbuseReports: true in the policy pack config of stacks that file abuse reports)',
      ]);
    });

    it("lets it through where allowAbuseReports is true", async () => {
      expect(await violationsOf(abuseReportsAllowed, type, report, { allowAbuseReports: true })).toEqual([]);
    });
  },
);
