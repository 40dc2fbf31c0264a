import { createHash } from "node:crypto";
import type { EvaluationSummary, JudgeSpending, TestResult } from "../results/evaluation-result.ts";
import { addSpending, emptySpending } from "../results/spending.ts";
import { RunTally, worstRunStatus } from "../results/summarize-run.ts";
import { checkOwner } from "./check-owner.ts";
import type { RunOwner, RunShard, StartRunPartOptions, StoredRunPart } from "./run-store.ts";

/** What is wrong with a shard given to a store, or `null` when it can be stored. */
/**
 * How every store names starting a shard's part in its errors, and what is wrong with the part
 * (`null`: nothing).
 */
export function checkRunPart(options: StartRunPartOptions): {
  action: string;
  problem: string | null;
} {
  const { run, part } = options;
  return {
    action: `start shard ${part.shard.index}/${part.shard.count} of run "${run.id}"`,
    problem: checkShard(part.shard) ?? (part.owner === null ? null : checkOwner(part.owner)),
  };
}

export function checkShard(shard: RunShard): string | null {
  if (!Number.isSafeInteger(shard.count) || shard.count < 1) {
    return "shard.count must be a whole number of at least 1";
  }
  if (!Number.isSafeInteger(shard.index) || shard.index < 1 || shard.index > shard.count) {
    return `shard.index must be a whole number from 1 to ${shard.count}`;
  }
  return null;
}

/** Why a shard cannot join a stored run split `count` ways, or `null` when it can. */
export function checkShardJoins(options: { shard: RunShard; count: number | null }): string | null {
  const { shard, count } = options;
  if (count === null) {
    return "a run of one process with this id exists: a sharded run needs an id of its own";
  }
  if (count !== shard.count) {
    return `the run is split into ${count} shards, not ${shard.count}: every shard of a run must be given the same count`;
  }
  return null;
}

/**
 * The owner a sharded run shows (see `StoredRun.owner`): of its running parts, the one heard
 * from least recently, since a run is only as alive as its stalest part; with none running,
 * the owner of the part that started last.
 */
export function shardedRunOwner(parts: readonly StoredRunPart[]): RunOwner | null {
  let stalest: RunOwner | null = null;
  for (const part of parts) {
    if (part.status !== "running" || part.owner === null) continue;
    if (stalest === null || part.owner.heartbeatAt < stalest.heartbeatAt) stalest = part.owner;
  }
  if (stalest !== null) return stalest;
  let latest: StoredRunPart | null = null;
  for (const part of parts) {
    if (part.owner !== null && (latest === null || part.startedAt >= latest.startedAt)) {
      latest = part;
    }
  }
  return latest?.owner ?? null;
}

/** `"2/8"`: how a shard is written on the command line and in reports. */
export function formatShard(shard: RunShard): string {
  return `${shard.index}/${shard.count}`;
}

/** Parses `"i/n"` (spaces allowed around the numbers); `null` when it is not a valid shard. */
export function parseShard(text: string): RunShard | null {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (match === null) return null;
  const shard = { index: Number(match[1]), count: Number(match[2]) };
  return checkShard(shard) === null ? shard : null;
}

/**
 * What names one CI build, so that its shards join one stored run: `VERDICT_RUN_GROUP` when
 * set, else the build's id on GitHub Actions, GitLab CI, Buildkite or CircleCI (with the
 * repository or project, so builds of two repositories sharing a store stay apart); `null`
 * elsewhere (each shard then stores a run of its own).
 * @example
 * runGroupOf({ GITHUB_REPOSITORY: "acme/app", GITHUB_RUN_ID: "912" }); // "github:acme/app:912"
 */
export function runGroupOf(env: NodeJS.ProcessEnv): string | null {
  const value = (name: string) => env[name]?.trim() || null;
  const explicit = value("VERDICT_RUN_GROUP");
  if (explicit !== null) return explicit;
  // A re-run of a failed job keeps the build's id (not the attempt's): it rejoins its run.
  const builds: ReadonlyArray<[ci: string, scope: string, build: string]> = [
    ["github", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"],
    ["gitlab", "CI_PROJECT_ID", "CI_PIPELINE_ID"],
    ["buildkite", "BUILDKITE_PIPELINE_SLUG", "BUILDKITE_BUILD_ID"],
    ["circleci", "CIRCLE_PROJECT_REPONAME", "CIRCLE_WORKFLOW_ID"],
  ];
  for (const [ci, scope, build] of builds) {
    const id = value(build);
    if (id !== null) return `${ci}:${value(scope) ?? ""}:${id}`;
  }
  return null;
}

/**
 * The id of the run that every shard of one build writes into, the same on every machine: a
 * UUID-shaped hash of the run's identifier, its group and its shard count.
 */
export function shardedRunId(options: {
  identifier: string | null;
  group: string;
  count: number;
}): string {
  const hash = createHash("sha256")
    .update(
      JSON.stringify(["verdict-sharded-run", options.identifier, options.group, options.count]),
    )
    .digest("hex");
  return [
    hash.slice(0, 8),
    hash.slice(8, 12),
    hash.slice(12, 16),
    hash.slice(16, 20),
    hash.slice(20, 32),
  ].join("-");
}

/**
 * The totals of a sharded run once every started part has ended: its results summarised
 * whole, its status the worst part's, what the parts spent added up, its duration the
 * longest part's (shards run side by side).
 */
export function summarizeShardedRun(options: {
  parts: readonly StoredRunPart[];
  /** Its results, or their totals kept as they were read (a run too large to hold). */
  testResults: readonly TestResult[] | RunTally;
}): EvaluationSummary {
  const summaries = options.parts.map((part) => part.summary);
  let tally = options.testResults;
  if (!(tally instanceof RunTally)) {
    const list = tally;
    tally = new RunTally({ order: "added" });
    for (const result of list) tally.add(result);
  }
  return tally.summarize({
    status: worstRunStatus(options.parts.map((part) => part.status)),
    total: summaries.reduce((sum, summary) => sum + (summary?.testCases.total ?? 0), 0),
    spending: summaries.reduce(
      (total: JudgeSpending, summary) => (summary === null ? total : addSpending(total, summary)),
      emptySpending(),
    ),
    durationMs: Math.max(0, ...summaries.map((summary) => summary?.durationMs ?? 0)),
  });
}
