import { redactSecrets } from "../secrets/redact-secrets.ts";
import { checkOwner } from "./check-owner.ts";
import type { PostgresAccess } from "./postgres-access.ts";
import { partStatement } from "./postgres-runs.ts";
import { checkRunPart, checkShardJoins } from "./run-shards.ts";
import type { StoredRunPart, StoreShards } from "./run-store.ts";
import { checkRunNames } from "./stored-names.ts";
import { numberOrNull } from "./stored-rows.ts";

/** The parts of sharded runs in the PostgreSQL store: each shard's status, owner and totals. */
export function createPostgresShards(access: PostgresAccess): StoreShards {
  const runs = access.table("runs");
  const parts = access.table("run_parts");

  /** Throws why a shard's part was not found: no such run, or no such shard in it. */
  async function explainMissingPart(action: string, runId: string, shard: number): Promise<never> {
    const [found] = await access.use(action, () =>
      access.run([{ text: `SELECT 1 FROM ${runs} WHERE id = $1`, values: [runId] }]),
    );
    if (found?.rowCount === 0) throw access.failure(action, "there is no run with this id");
    throw access.failure(action, `the run has no shard ${shard}: start it with startRunPart`);
  }

  return {
    startRunPart: async (options) => {
      const { run, part } = options;
      checkRunNames(run);
      const { action, problem } = checkRunPart(options);
      if (problem !== null) throw access.failure(action, problem);
      const joinable = `EXISTS (SELECT 1 FROM ${runs} WHERE id = $1 AND shard_count = $2)`;
      const partRow: StoredRunPart = {
        shard: part.shard.index,
        status: "running",
        startedAt: part.startedAt,
        endedAt: null,
        summary: null,
        owner: part.owner,
      };
      const statements = [
        {
          text: `INSERT INTO ${runs} (id, identifier, status, started_at, config, shard_count)
                 VALUES ($1, $2, 'running', $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
          values: [
            run.id,
            run.identifier,
            run.startedAt,
            access.json(action, redactSecrets(run.config)),
            part.shard.count,
          ],
        },
        { text: `SELECT shard_count FROM ${runs} WHERE id = $1 FOR UPDATE`, values: [run.id] },
        partStatement({
          access,
          action,
          runId: run.id,
          part: partRow,
          where: `WHERE EXISTS (SELECT 1 FROM ${runs} WHERE id = $1 AND shard_count = $10)`,
          extra: [part.shard.count],
        }),
        {
          text: `UPDATE ${runs} SET status = 'running', ended_at = NULL, summary = NULL
                 WHERE ${joinable}`,
          values: [run.id, part.shard.count],
        },
      ];
      // One transaction: the run is created by exactly one shard (the others find it), and
      // the part and the reopened run are written only when the shard belongs to the run.
      const [, counted] = await access.use(action, () => access.run(statements, { atomic: true }));
      const count = numberOrNull(counted?.rows[0] ?? {}, "shard_count");
      const joins = checkShardJoins({ shard: part.shard, count });
      if (joins !== null) throw access.failure(action, joins);
    },

    reopenRunPart: async (runId, shard) => {
      const action = `reopen run "${runId}"`;
      const [reopened] = await access.use(action, () =>
        access.run(
          [
            {
              text: `UPDATE ${parts} SET status = 'running', ended_at = NULL, summary = NULL
                     WHERE run_id = $1 AND shard = $2`,
              values: [runId, shard],
            },
            {
              text: `UPDATE ${runs} SET status = 'running', ended_at = NULL, summary = NULL
                     WHERE id = $1 AND EXISTS
                       (SELECT 1 FROM ${parts} WHERE run_id = $1 AND shard = $2)`,
              values: [runId, shard],
            },
          ],
          { atomic: true },
        ),
      );
      if (reopened?.rowCount === 0) await explainMissingPart(action, runId, shard);
    },

    heartbeatRunPart: async ({ runId, owner, shard }) => {
      const action = `record a heartbeat of run "${runId}"`;
      const problem = checkOwner(owner);
      if (problem !== null) throw access.failure(action, problem);
      const [changed] = await access.use(action, () =>
        access.run([
          {
            text: `UPDATE ${parts} SET owner_pid = $1, owner_hostname = $2, heartbeat_at = $3
                   WHERE run_id = $4 AND shard = $5`,
            values: [owner.pid, owner.hostname, owner.heartbeatAt, runId, shard],
          },
        ]),
      );
      if (changed?.rowCount === 0) await explainMissingPart(action, runId, shard);
    },

    finishRunPart: async (options) => {
      const action = `finish run "${options.runId}"`;
      const summary = access.json(action, options.summary);
      const [changed] = await access.use(action, () =>
        access.run([
          {
            text: `UPDATE ${parts} SET status = $1, ended_at = $2, summary = $3
                   WHERE run_id = $4 AND shard = $5`,
            values: [options.status, options.endedAt, summary, options.runId, options.shard],
          },
        ]),
      );
      if (changed?.rowCount === 0) await explainMissingPart(action, options.runId, options.shard);
    },
  };
}
