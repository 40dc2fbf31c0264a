import { redactSecrets } from "../secrets/redact-secrets.ts";
import { checkRunPart, checkShardJoins } from "./run-shards.ts";
import type { StoreShards } from "./run-store.ts";
import type { SqliteAccess } from "./sqlite-access.ts";
import { writeRunPart } from "./sqlite-runs.ts";
import { checkRunNames } from "./stored-names.ts";
import { numberOrNull } from "./stored-rows.ts";

/**
 * How shards join a run of the SQLite store. Only the start is here: reopening, heartbeats
 * and finishing a shard's part are those of the run with a shard (see `SqliteRuns`).
 */
export function createSqliteShards(access: SqliteAccess): Pick<StoreShards, "startRunPart"> {
  return {
    startRunPart: async (options) => {
      const { run, part } = options;
      checkRunNames(run);
      const { action, problem } = checkRunPart(options);
      access.use(action, (statements) => {
        if (problem !== null) throw access.failure(action, problem);
        // One write transaction: shards starting at once on other processes wait their turn,
        // so exactly one creates the run.
        access.transaction(() => {
          statements.insertRunIfMissing.run(
            run.id,
            run.identifier,
            "running",
            run.startedAt,
            null,
            access.json(action, redactSecrets(run.config)),
            null,
            part.shard.count,
          );
          const count = numberOrNull(statements.shardCount.get(run.id) ?? {}, "shard_count");
          const joins = checkShardJoins({ shard: part.shard, count });
          if (joins !== null) throw access.failure(action, joins);
          writeRunPart(access, statements, {
            action,
            runId: run.id,
            part: {
              shard: part.shard.index,
              status: "running",
              startedAt: part.startedAt,
              endedAt: null,
              summary: null,
              owner: part.owner,
            },
          });
          statements.reopenRun.run(run.id);
        });
      });
    },
  };
}
