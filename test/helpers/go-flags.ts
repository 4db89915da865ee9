/**
 * The flags of the tests' Go commands. Every Go build, vet and test a test runs passes
 * `GO_BUILD_FLAGS` of scripts/pulumi-env.js (`-trimpath`, `-gcflags=all=-dwarf=false`), as the
 * engine's own builds do (scripts/ensure-pulumi.js): Go's build cache keys a compiled package by
 * the flags it was compiled with, and without `-trimpath` by the folder of its files too.
 * So the tests share the packages compiled once: those of Pulumi's Go SDK and its dependencies
 * between the Go SDK's checks, the Go example and the Go install (each reads the SDK from another
 * folder), and those of the language hosts' module between the engine's build and the hosts' own
 * tests. On a new machine, where the build cache is empty, each would otherwise compile them again:
 * docs/performance.md § The tests' time budget gives the minutes.
 */
import { GO_BUILD_FLAGS } from "../../scripts/pulumi-env";

/**
 * The value of `GOFLAGS` for a test's Go command: the flags `extra` (for example `-mod=readonly`),
 * then `GO_BUILD_FLAGS`, separated by spaces (none holds a space).
 */
export function goFlags(...extra: string[]): string {
  return [...extra, ...GO_BUILD_FLAGS].join(" ");
}
