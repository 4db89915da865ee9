/**
 * The throw-away PostgreSQL server of the tests that share Pulumi state the way a team does:
 * scripts/postgres-server.ts, which the scale benchmark (bench/scale.ts) starts too.
 */
export { findPostgresBin, startPostgres, type RunningPostgres } from "../../scripts/postgres-server";
