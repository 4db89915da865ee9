/**
 * The policy pack `service-policy`: the program `pulumi preview --policy-pack <this folder>`
 * runs (PulumiPolicy.yaml, `main` of package.json). Importing it starts the pack's server: import
 * `service-policy/policies` for the rules alone.
 *
 * @packageDocumentation
 */
import { PolicyPack } from "@pulumi/policy";
import { POLICIES, POLICY_PACK_NAME } from "./policies";

new PolicyPack(POLICY_PACK_NAME, { policies: POLICIES });
