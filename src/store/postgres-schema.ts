import type { PoolClient } from "pg";
import type { PostgresPool } from "./postgres-pool.ts";

/** A step of the schema: the SQL that turns version `version - 1` into `version`. */
export interface PostgresMigration {
  version: number;
  description: string;
  /** Statements; `{schema}` stands for the quoted schema name. */
  statements: readonly string[];
}

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
  {
    version: 2,
    description: "the token log-probabilities of judge answers that asked for them",
    statements: ["ALTER TABLE {schema}.judge_cache ADD COLUMN logprobs text"],
  },
  {
    version: 3,
    description: "the judge's prompts and raw answers of a run, each text once per run by hash",
    // `text` holds the text as a JSON string, as the judge cache does (NUL would be refused).
    // PostgreSQL compresses the long ones itself (TOAST).
    statements: [
      `CREATE TABLE {schema}.judge_texts (
         run_id text NOT NULL REFERENCES {schema}.runs (id) ON DELETE CASCADE,
         hash text COLLATE "C" NOT NULL,
         text text NOT NULL,
         PRIMARY KEY (run_id, hash)
       )`,
    ],
  },
  // Nothing to change in the tables: a version that cannot read such a run must refuse the
  // schema as newer rather than fail on that run.
  {
    version: 4,
    description:
      'runs may end "budget-exhausted", their summaries holding the budget and its spending',
    statements: [],
  },
];

/** The schema version this build of verdict writes. */
export const POSTGRES_SCHEMA_VERSION = POSTGRES_MIGRATIONS.length;

// One lock key per schema, so that processes migrating the same schema take turns.
function migrationLockKey(schema: string): string {
  let hash = 0n;
  for (const character of `verdict-migrations:${schema}`) {
    hash = (hash * 31n + BigInt(character.codePointAt(0) ?? 0)) & 0x7fff_ffff_ffff_ffffn;
  }
  return hash.toString();
}

async function appliedVersions(client: PoolClient, quoted: string): Promise<number[]> {
  const exists = await client.query("SELECT to_regclass($1) IS NOT NULL AS present", [
    `${quoted}.schema_migrations`,
  ]);
  if (exists.rows[0]?.present !== true) return [];
  const rows = await client.query(`SELECT version FROM ${quoted}.schema_migrations`);
  return rows.rows.map((row) => Number(row.version)).sort((left, right) => left - right);
}

/**
 * Applies the pending steps of {@link POSTGRES_MIGRATIONS} to `schema` (or, with `check`, only
 * reads which are applied); returns the applied versions. Processes that migrate one schema
 * at once take turns (an advisory lock): the first applies, the others find nothing to do.
 */
export function migratePostgresSchema(
  pool: PostgresPool,
  options: { schema: string; check: boolean },
): Promise<number[]> {
  const quoted = `"${options.schema}"`;
  return pool.withClient(async (client) => {
    const before = await appliedVersions(client, quoted);
    const pending = POSTGRES_MIGRATIONS.filter((step) => !before.includes(step.version));
    if (options.check || pending.length === 0) return before;
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [
        migrationLockKey(options.schema),
      ]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${quoted}.schema_migrations (
           version integer PRIMARY KEY,
           description text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const done = await appliedVersions(client, quoted);
      for (const step of POSTGRES_MIGRATIONS) {
        if (done.includes(step.version)) continue;
        for (const statement of step.statements) {
          await client.query(statement.replaceAll("{schema}", quoted));
        }
        await client.query(
          `INSERT INTO ${quoted}.schema_migrations (version, description) VALUES ($1, $2)`,
          [step.version, step.description],
        );
        done.push(step.version);
      }
      await client.query("COMMIT");
      return done.sort((left, right) => left - right);
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  });
}
