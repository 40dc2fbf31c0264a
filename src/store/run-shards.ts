import type { RunOwner, RunShard, StoredRunPart } from "./run-store.ts";

/** What is wrong with a shard given to a store, or `null` when it can be stored. */
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
