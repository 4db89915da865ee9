/**
 * The native provider's resources: each schema token mapped to the implementation the dynamic
 * providers call (provider/impl), so both doors run the same check, diff, create, read, update
 * and delete code. The only adapter is the signature: the implementations take and return the
 * dynamic-provider shapes (`pulumi.dynamic.CheckResult`, `DiffResult`…), which the server
 * translates into the protocol's messages.
 *
 * @packageDocumentation
 */
import type * as pulumi from "@pulumi/pulumi";
import * as abuseReport from "../impl/abuseReport";
import * as eventDestination from "../impl/eventDestination";
import * as eventSubscription from "../impl/eventSubscription";
import type { ServiceDiffResult } from "../impl/resourceOptions";
import { PACKAGE, RESOURCES } from "./schema";

/** Plain property values. */
type Props = Record<string, unknown>;

/** The operations of one resource, as the dynamic providers call them. */
export interface ResourceImpl {
  check(olds: Props, news: Props): Promise<pulumi.dynamic.CheckResult>;
  diff(id: string, olds: Props, news: Props): Promise<ServiceDiffResult>;
  /** `timeoutMs`: the request's `customTimeouts.create`, in milliseconds (none when absent). */
  create(news: Props, timeoutMs?: number): Promise<pulumi.dynamic.CreateResult>;
  read(id: string, props: Props): Promise<pulumi.dynamic.ReadResult>;
  /** Absent for resources without an update (a change replaces them). */
  update?(id: string, olds: Props, news: Props, timeoutMs?: number): Promise<pulumi.dynamic.UpdateResult>;
  /** `props`: the state's outputs; `timeoutMs` as for `create`. */
  remove(id: string, props?: Props, timeoutMs?: number): Promise<void>;
  /** Properties always stored as secrets (the schema's `secret` properties). */
  secrets: string[];
}

/** Loosens an implementation module's parameter types to plain properties. */
const loose = (m: object) => m as unknown as Omit<ResourceImpl, "secrets">;

// Stryker disable next-line ArrayDeclaration: unreachable: each token below is one of the schema's RESOURCES
const secretsOf = (token: string): string[] => RESOURCES.find((r) => r.token === token)?.secrets ?? [];

/** The implementation of each resource token (`service:index:EventSubscription`…). */
export const IMPLEMENTATIONS: Readonly<Record<string, ResourceImpl>> = {
  [`${PACKAGE}:index:EventSubscription`]: {
    ...loose(eventSubscription),
    secrets: secretsOf(`${PACKAGE}:index:EventSubscription`),
  },
  [`${PACKAGE}:index:EventDestination`]: {
    ...loose(eventDestination),
    secrets: secretsOf(`${PACKAGE}:index:EventDestination`),
  },
  [`${PACKAGE}:index:AbuseReport`]: {
    ...loose(abuseReport),
    update: undefined,
    secrets: secretsOf(`${PACKAGE}:index:AbuseReport`),
  },
};

/**
 * The implementation of the resource a URN names (`urn:pulumi:stack::project::type::name`).
 * @throws Error naming the type when the provider has no such resource.
 */
export function implementationOf(urn: string): ResourceImpl {
  const type = urn.split("::")[2]?.split("$").pop() ?? "";
  const impl = IMPLEMENTATIONS[type];
  if (!impl)
    throw new Error(
      `unknown resource type ${type} (this provider has ${Object.keys(IMPLEMENTATIONS).join(", ")})`,
    );
  return impl;
}
