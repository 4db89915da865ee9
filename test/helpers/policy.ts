/**
 * Direct calls of the policy pack's rules (packages/policy), as `@pulumi/policy` makes them: a
 * resource or the stack's resources, the rule's configuration with its schema's defaults under
 * what the test sets, and the violations reported, in order.
 */
import type { PolicyResource, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";

type Policy = ResourceValidationPolicy | StackValidationPolicy;

/** The configuration `@pulumi/policy` hands a rule: its schema's defaults, then `config`. */
function configOf(policy: Policy, config: Record<string, unknown>): Record<string, unknown> {
  const props = (policy.configSchema?.properties ?? {}) as Record<string, { default?: unknown }>;
  const defaults = Object.fromEntries(
    Object.entries(props)
      .filter(([, s]) => s.default !== undefined)
      .map(([k, s]) => [k, s.default]),
  );
  return { ...defaults, ...config };
}

/** The violations `policy` reports for the resource `name` of type `type` with inputs `props`. */
export async function violationsOf(
  policy: ResourceValidationPolicy,
  type: string,
  props: Record<string, unknown>,
  config: Record<string, unknown> = {},
  name = "r",
): Promise<string[]> {
  const out: string[] = [];
  const args = {
    type,
    props,
    name,
    urn: `urn:pulumi:s::p::${type}::${name}`,
    getConfig: () => configOf(policy, config),
  };
  const validate = policy.validateResource;
  for (const v of Array.isArray(validate) ? validate : validate ? [validate] : [])
    await v(args as never, (message: string) => out.push(message));
  return out;
}

/** A resource of a stack as a stack policy sees it. */
export function stackResource(
  type: string,
  name: string,
  props: Record<string, unknown>,
  propertyDependencies: Record<string, PolicyResource[]> = {},
): PolicyResource {
  return {
    type,
    name,
    props,
    urn: `urn:pulumi:s::p::${type}::${name}`,
    propertyDependencies,
  } as unknown as PolicyResource;
}

/** The violations the stack policy `policy` reports for `resources`. */
export async function stackViolationsOf(
  policy: StackValidationPolicy,
  resources: PolicyResource[],
): Promise<string[]> {
  const out: string[] = [];
  await policy.validateStack({ resources, getConfig: () => configOf(policy, {}) } as never, (m: string) =>
    out.push(m),
  );
  return out;
}
