/**
 * The flags of the tests' Go commands. Every Go build, vet and test a test runs passes
 * `-trimpath`, as the engine's own builds do (scripts/ensure-pulumi.js): Go's build cache keys a
 * package compiled without it by the folder of its files, and with it by their contents alone.
 * So the tests share the packages compiled once: those of Pulumi's Go SDK and its dependencies
 * between the Go SDK's checks, the Go example and the Go install (each reads the SDK from another
 * folder), and those of the language hosts' module between the engine's build and the hosts' own
 * tests. On a new machine, where the build cache is empty, each would otherwise compile them again:
 * docs/development.md § Time budget gives the minutes.
 */

/**
 * The value of `GOFLAGS` for a test's Go command: `-trimpath` after the flags `extra` (for example
 * `-mod=readonly`), separated by spaces.
 */
export function goFlags(...extra: string[]): string {
  return [...extra, "-trimpath"].join(" ");
}
