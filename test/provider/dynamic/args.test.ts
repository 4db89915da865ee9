/**
 * The providers' `XArgs` interfaces are written out by hand (users hover their TSDoc), but must
 * stay the contract's request types lifted to `pulumi.Input` at every level: this file does not
 * type-check (`npm run typecheck`, part of `npm test`) when they drift apart.
 */
import type * as pulumi from "@pulumi/pulumi";
import type { AbuseReportCreate, EventDestinationCreate, EventSubscriptionCreate } from "service-contract";
import type { AbuseReportArgs, EventDestinationArgs, EventSubscriptionArgs } from "../../../provider";

type Primitive = string | number | boolean;
/** `T` lifted: every value, list and object may be a `pulumi.Input`. */
type Lifted<T> = pulumi.Input<Shape<T>>;
/** The shape of `T` with its members lifted (distributes over unions, e.g. target kinds). */
type Shape<T> = T extends Primitive
  ? T
  : T extends readonly (infer U)[]
    ? Lifted<U>[]
    : { [K in keyof T]: Lifted<Exclude<T[K], undefined>> };
/** The top level of an `XArgs`: its members lifted, the object itself not. */
type Args<T> = { [K in keyof T]: Lifted<Exclude<T[K], undefined>> };

/** `true` only when each type is assignable to the other. */
type Assignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** `true` only when both have the same keys (an extra optional key passes assignability) and are assignable. */
type Same<A, B> = Assignable<keyof A, keyof B> extends true ? Assignable<A, B> : false;

const subscription: Same<Omit<EventSubscriptionArgs, "adoptId">, Args<EventSubscriptionCreate>> = true;
const destination: Same<Omit<EventDestinationArgs, "adoptId">, Args<EventDestinationCreate>> = true;
const report: Same<AbuseReportArgs, Args<AbuseReportCreate>> = true;

describe("XArgs and the contract", () => {
  it("each XArgs is the contract's create input lifted to pulumi.Input (checked by the compiler)", () => {
    expect([subscription, destination, report]).toEqual([true, true, true]);
  });
});
