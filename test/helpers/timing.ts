/**
 * Slack for tests that bound how long something took.
 *
 * @packageDocumentation
 */

/**
 * How late, in **milliseconds**, a test may see a timer or an answer on a loaded machine: CI on a
 * 2-core machine has seen a test worker's event loop stall for 1.1 s while the release tests built
 * beside it. A test that holds an answer holds it far longer than this and bounds the time by the
 * hold; any other upper bound on a duration adds this, and the behaviour it tells apart (a server
 * that never answers, a retry loop without its budget) must take longer still.
 */
export const LOAD_SLACK_MS = 3_000;
