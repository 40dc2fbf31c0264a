import { StoreError } from "../../errors/store-error.ts";
import { formatPlural } from "../../report/format.ts";
import type { EvaluationResult } from "../../results/evaluation-result.ts";
import { emptySpending } from "../../results/spending.ts";
import { summarizeRun } from "../../results/summarize-run.ts";
import { openStore } from "../../store/open-store.ts";
import { summarizeShardedRun } from "../../store/run-shards.ts";
import type { StoredRun } from "../../store/run-store.ts";

/** A stored run read whole for `verdict merge --run`, or why it cannot be. */
export type StoredRunForMerge =
  | { result: EvaluationResult; problems: string[]; message: string }
  | { error: string };

/** What is missing from a run that shards share: shards that never started, or still run. */
export function findUnfinishedShards(run: StoredRun): string[] {
  const shards = run.shards;
  if (shards === undefined) return [];
  const started = new Map(shards.parts.map((part) => [part.shard, part]));
  const missing: string[] = [];
  const running: string[] = [];
  for (let shard = 1; shard <= shards.count; shard++) {
    const part = started.get(shard);
    if (part === undefined) missing.push(`${shard}/${shards.count}`);
    else if (part.status === "running") running.push(`${shard}/${shards.count}`);
  }
  const name = (list: string[]) =>
    list.length === 1 ? `shard ${list[0]} has` : `shards ${list.join(", ")} have`;
  return [
    ...(missing.length === 0 ? [] : [`${name(missing)} not stored a part of the run`]),
    ...(running.length === 0
      ? []
      : [`${name(running)} not finished (still running, or stopped: see verdict view)`]),
  ];
}

/**
 * The run that CI shards wrote into one store (on any number of machines), read whole:
 * every shard's cases, the totals of the whole run, and what is missing.
 */
export async function readStoredRunForMerge(options: {
  run: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<StoredRunForMerge> {
  const found = await openStore({ env: options.env, cwd: options.cwd, purpose: "read" });
  if (found.store === null) {
    return {
      error: `No verdict store at ${found.missingFile ?? found.where}: set VERDICT_STORE to the store the shards wrote into (or VERDICT_HOME to the folder that holds it).`,
    };
  }
  const { store, where } = found;
  try {
    const run = await store.runs.getRun(options.run);
    if (run === null) {
      return {
        error: `No run with the id or identifier "${options.run}" in the verdict store ${where}.`,
      };
    }
    const testResults = (await store.runs.getTestResults(run.id)).map((stored) => stored.result);
    const parts = run.shards?.parts ?? [];
    const summary =
      run.summary ??
      (parts.length > 0
        ? summarizeShardedRun({ parts, testResults })
        : summarizeRun({
            status: run.status,
            testResults,
            spending: emptySpending(),
            durationMs: 0,
          }));
    const shards =
      run.shards === undefined
        ? "a run of one process"
        : `${formatPlural(parts.length, "shard")} of ${run.shards.count}`;
    return {
      result: { testRunId: run.id, identifier: run.identifier, testResults, summary },
      problems: findUnfinishedShards(run),
      message: `Merged run ${run.identifier ?? run.id} from ${where}: ${shards}, ${formatPlural(testResults.length, "test case")}.`,
    };
  } catch (error) {
    if (error instanceof StoreError) return { error: error.message };
    throw error;
  } finally {
    await store.close();
  }
}
