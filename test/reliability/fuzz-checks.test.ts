/**
 * The providers' `check` functions and the client's request validation under arbitrary input,
 * property-based (fast-check): arbitrary and mutated inputs, and objects whose reading throws
 * (getters, proxies, revoked proxies), never make them throw, and every failure names a top-level
 * input property and has a reason that starts with the field path.
 *
 * `RELIABILITY_LONG=1` runs ten times as many cases; `FUZZ_SEED=<n>` replays a run.
 */
import fc from "fast-check";
import {
  checkAbuseReportInputs,
  checkEventDestinationInputs,
  checkEventSubscriptionInputs,
  type CheckFailure,
} from "../../provider/impl/inputChecks";
import * as clientValidation from "../../client/requestValidation";
import {
  TEST_TIMEOUT_MS,
  define,
  junk,
  keyArb,
  mutate,
  mutationArb,
  nest,
  runs,
} from "../helpers/fuzz-arbitraries";

let checkCases = 0;

afterAll(() => {
  console.log(`hostile input: provider/sdk check inputs: ${checkCases}`);
});

const INPUT_NAMES = {
  subscription: ["sources", "destinationIds", "description", "metadata", "adoptId"],
  destination: ["format", "target", "description", "metadata", "adoptId"],
  report: ["urls", "metadata"],
};

const VALID_INPUTS = {
  subscription: {
    sources: [{ type: "ip_policy_created.v0" }],
    destinationIds: ["ed_" + "0".repeat(26) + "1"],
    description: "d",
    metadata: "m",
  },
  destination: {
    target: {
      kinesis: {
        auth: { creds: { awsAccessKeyId: "AKIA", awsSecretAccessKey: "s" } },
        streamArn: "arn:aws:kinesis:s",
      },
    },
    format: "json",
    description: "d",
    metadata: "m",
  },
  report: { urls: ["https://a.example.com/x"], metadata: "m" },
};

const CHECKS = {
  subscription: checkEventSubscriptionInputs,
  destination: checkEventDestinationInputs,
  report: checkAbuseReportInputs,
};

/** Made inside the property: fast-check itself cannot hold a revoked proxy as a value. */
class Hostile {
  constructor(readonly make: () => unknown) {}
}
const unwrap = (v: unknown) => (v instanceof Hostile ? v.make() : v);

/**
 * A generated input as fast-check reports it: through {@link show}, since fast-check's own
 * printer recurses once per level and overflows the stack on the deepest inputs (thousands of
 * nested arrays), which would hide the property's failure behind a RangeError of the report.
 */
class Shown {
  constructor(readonly value: unknown) {}
  [fc.toStringMethod](): string {
    return show(this.value);
  }
}

/** Objects whose reading throws: getters, proxies, revoked proxies. */
const hostile = fc.constantFrom<() => unknown>(
  () =>
    Object.defineProperty({}, "sources", {
      enumerable: true,
      get() {
        throw new Error("getter");
      },
    }),
  () =>
    new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("ownKeys");
        },
      },
    ),
  () => {
    const p = Proxy.revocable({}, {});
    p.revoke();
    return p.proxy;
  },
  () => ({
    target: new Proxy(
      {},
      {
        get: () => {
          throw new Error("get");
        },
      },
    ),
  }),
  () => Object.create(null),
  () =>
    Object.assign(Object.create({ sources: [{ type: "ip_policy_created.v0" }] }), {
      description: "inherited",
    }),
);

function show(input: unknown): string {
  if (input instanceof Hostile) return `Hostile(${input.make.toString().slice(0, 200)})`;
  try {
    return fc.stringify(input).slice(0, 300);
  } catch {
    try {
      const keys =
        input !== null && typeof input === "object"
          ? Object.keys(input)
              .map((k) => JSON.stringify(k))
              .join(", ")
          : typeof input;
      return `(an input too deep to print, with keys: ${keys})`;
    } catch {
      return "(an input that cannot be shown)";
    }
  }
}

function expectGoodFailures(kind: keyof typeof CHECKS, input: unknown, failures: CheckFailure[]): void {
  if (!Array.isArray(failures)) throw new Error("check did not return an array");
  let ownKeys: string[] = [];
  try {
    ownKeys = input !== null && typeof input === "object" ? Object.keys(input) : [];
  } catch {
    ownKeys = [];
  }
  // A key with no name is reported as `""` (client/requestValidation.ts).
  const allowed = new Set([...INPUT_NAMES[kind], ...ownKeys.map((k) => (k === "" ? '""' : k))]);
  for (const f of failures) {
    const what = () => `${kind} check of ${show(input)}: ${JSON.stringify(f)}`;
    if (typeof f.property !== "string" || f.property === "") throw new Error(`empty property: ${what()}`);
    if (!allowed.has(f.property)) throw new Error(`property is not a top-level input name: ${what()}`);
    if (typeof f.reason !== "string" || !f.reason.startsWith(f.property))
      throw new Error(`reason does not start with the field path: ${what()}`);
    const next = f.reason.charAt(f.property.length);
    if (![":", ".", "["].includes(next))
      throw new Error(`reason does not start with the field path: ${what()}`);
  }
}

describe("the providers' check functions under arbitrary input", () => {
  const anything = fc.anything({
    maxDepth: 4,
    withBoxedValues: true,
    withMap: true,
    withSet: true,
    withObjectString: true,
    withNullPrototype: true,
    withBigInt: true,
    withDate: true,
    withTypedArray: true,
    withSparseArray: true,
    key: keyArb,
  });

  it.each(Object.keys(CHECKS) as (keyof typeof CHECKS)[])(
    "%s: never throws; every failure names a top-level input and starts with its path",
    (kind) => {
      const check = CHECKS[kind];
      expect(check(VALID_INPUTS[kind] as Record<string, unknown>)).toEqual([]);
      const inputs = fc.oneof(
        { weight: 3, arbitrary: anything },
        {
          weight: 5,
          arbitrary: fc
            .array(mutationArb, { minLength: 1, maxLength: 4 })
            .map((ms) => mutate(VALID_INPUTS[kind], ms)),
        },
        { weight: 1, arbitrary: hostile.map((make) => new Hostile(make)) },
        {
          // A value deeper than any recursive walk can follow, in one input: whatever
          // overflows the stack must be caught and named, never thrown.
          weight: 1,
          arbitrary: fc
            .tuple(
              // Each input, an unknown one, and one with no name.
              fc.constantFrom(...INPUT_NAMES[kind], "unknownField", ""),
              fc.integer({ min: 20_000, max: 200_000 }),
              fc.boolean(),
            )
            .map(([k, depth, asObject]) => ({ ...VALID_INPUTS[kind], [k]: nest(depth, "x", asObject) })),
        },
        {
          weight: 1,
          arbitrary: fc.dictionary(keyArb, junk, { maxKeys: 6 }).map((d) => {
            const o = {};
            for (const [k, v] of Object.entries(d)) define(o, k, v);
            return o;
          }),
        },
      );
      fc.assert(
        fc.property(
          inputs.map((v) => new Shown(v)),
          ({ value: generated }) => {
            const input = unwrap(generated);
            checkCases++;
            let failures: CheckFailure[] = [];
            try {
              failures = check(input as Record<string, unknown>);
            } catch (e) {
              throw new Error(`${kind} check threw ${String(e)} for ${show(input)}`);
            }
            expectGoodFailures(kind, input, failures);
          },
        ),
        runs(3000),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "the client's validation functions never throw and quote the field in every message",
    () => {
      const fns = [
        clientValidation.validateAbuseReportCreate,
        clientValidation.validateEventDestinationCreate,
        clientValidation.validateEventDestinationUpdate,
        clientValidation.validateEventSubscriptionCreate,
        clientValidation.validateEventSubscriptionUpdate,
        (v: unknown) => clientValidation.validateId(v, "esb_"),
        clientValidation.validateListParams,
      ];
      fc.assert(
        fc.property(
          fc.constantFrom(...fns),
          fc
            .oneof(
              anything,
              hostile.map((make) => new Hostile(make)),
              fc
                .tuple(
                  fc.constantFrom(...Object.values(VALID_INPUTS)),
                  fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
                )
                .map(([v, ms]) => mutate(v, ms)),
            )
            .map((v) => new Shown(v)),
          (fn, { value: generated }) => {
            checkCases++;
            const issues = fn(unwrap(generated));
            for (const i of issues) {
              if (typeof i.field !== "string" || !i.message.startsWith(`${i.field}: `))
                throw new Error(`issue without its field: ${JSON.stringify(i)}`);
            }
          },
        ),
        runs(3000),
      );
    },
    TEST_TIMEOUT_MS,
  );
});
