import type { PostgresMigration } from "./postgres-protocol.ts";

/**
 * The PostgreSQL store's schema, one step per version, applied in order on first use (or by
 * `verdict store migrate`) and recorded in `schema_migrations`. Append steps; never edit a
 * released one, since databases have already run it. `{schema}` is the quoted schema name.
 *
 * JSON values are kept as text, not jsonb: jsonb refuses `\u0000` and lone surrogates, which
 * results may hold, and text gives back exactly what was written. Times are the ISO text the
 * store is given, in the "C" collation so that they sort as they do in SQLite. A run's `seq`
 * keeps the order of starts, which breaks ties between runs started at the same instant. A
 * result's `version` is taken from its run's `results_version` under the run row's lock, so
 * versions commit in order even while many shards write one run: a viewer that has read up
 * to version N never misses a result saved before it.
 */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description:
      "runs, shards' parts, versioned test results, calibrations, judge cache, leases and batches",
    statements: [
      `CREATE TABLE {schema}.runs (
         id text PRIMARY KEY,
         seq bigint GENERATED ALWAYS AS IDENTITY,
         identifier text,
         status text NOT NULL,
         started_at text COLLATE "C" NOT NULL,
         ended_at text,
         config text NOT NULL,
         summary text,
         owner_pid bigint,
         owner_hostname text,
         heartbeat_at text,
         shard_count integer,
         results_version bigint NOT NULL DEFAULT 0
       )`,
      "CREATE INDEX runs_by_identifier ON {schema}.runs (identifier, started_at DESC, seq DESC)",
      "CREATE INDEX runs_by_start ON {schema}.runs (started_at DESC, seq DESC)",
      `CREATE TABLE {schema}.run_parts (
         run_id text NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
         shard integer NOT NULL,
         status text NOT NULL,
         started_at text NOT NULL,
         ended_at text,
         summary text,
         owner_pid bigint,
         owner_hostname text,
         heartbeat_at text,
         PRIMARY KEY (run_id, shard)
       )`,
      `CREATE TABLE {schema}.test_results (
         run_id text NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
         idx bigint NOT NULL,
         fingerprint text NOT NULL,
         success boolean,
         result text NOT NULL,
         version bigint NOT NULL,
         PRIMARY KEY (run_id, idx)
       )`,
      "CREATE INDEX test_results_by_version ON {schema}.test_results (run_id, version)",
      // `text` holds the answer's text as a JSON string: a judge's text may hold what a text
      // column refuses (NUL).
      `CREATE TABLE {schema}.judge_cache (
         key text COLLATE "C" PRIMARY KEY,
         text text,
         object text,
         input_tokens bigint,
         output_tokens bigint,
         cost_usd double precision,
         created_at text NOT NULL
       )`,
      `CREATE TABLE {schema}.calibrations (
         id text PRIMARY KEY,
         seq bigint GENERATED ALWAYS AS IDENTITY,
         run_id text NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
         created_at text COLLATE "C" NOT NULL,
         metric text NOT NULL,
         report text NOT NULL
       )`,
      "CREATE INDEX calibrations_by_run ON {schema}.calibrations (run_id, created_at DESC, seq DESC)",
      "CREATE INDEX calibrations_by_time ON {schema}.calibrations (created_at DESC, seq DESC)",
      `CREATE TABLE {schema}.judge_batches (
         provider text NOT NULL,
         id text NOT NULL,
         seq bigint GENERATED ALWAYS AS IDENTITY,
         judge text NOT NULL,
         request_keys text NOT NULL,
         state text NOT NULL,
         provider_status text NOT NULL,
         created_at text COLLATE "C" NOT NULL,
         updated_at text NOT NULL,
         PRIMARY KEY (provider, id)
       )`,
      "CREATE INDEX judge_batches_open ON {schema}.judge_batches (state, created_at, seq)",
      // Expiry on the server's clock: every machine judges a lease by the same clock.
      `CREATE TABLE {schema}.judge_leases (
         key text PRIMARY KEY,
         holder text NOT NULL,
         expires_at timestamptz NOT NULL
       )`,
    ],
  },
];

/** The schema version this build of verdict writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;
