import type { JudgeLeases } from "./run-store.ts";
import type { SqliteAccess } from "./sqlite-access.ts";
import { toCachedAnswer } from "./sqlite-judge-cache.ts";

/**
 * Leases on judge cache keys in `judge_leases`, for the processes that share the file, on the
 * clock of this machine (the only one that opens the file).
 */
export function createSqliteJudgeLeases(access: SqliteAccess, leaseMs: number): JudgeLeases {
  return {
    leaseMs,
    tryClaim: async (key, holder, leaseMs) =>
      access.use(`claim judge cache entry "${key}"`, (statements) => {
        const cached = statements.cachedAnswer.get(key);
        if (cached !== undefined) return { answer: toCachedAnswer(cached) };
        // A miss: look again and take the lease under the write lock, so that of the
        // processes missing at once exactly one takes it.
        return access.transaction(() => {
          const row = statements.cachedAnswer.get(key);
          if (row !== undefined) return { answer: toCachedAnswer(row) };
          const now = Date.now();
          const taken = statements.takeLease.run(key, holder, now + leaseMs, now);
          if (Number(taken.changes) > 0) return { leased: true };
          // Who holds it: a claimant takes over at once the lease of a process that died.
          const current = statements.leaseHolder.get(key)?.holder;
          return typeof current === "string"
            ? { leased: false, holder: current }
            : { leased: false };
        });
      }),
    takeOver: async (key, from, holder, leaseMs) =>
      access.use(`take over the lease on judge cache entry "${key}"`, (statements) => {
        // Only from the holder the claimant found gone: one claimant wins, in one statement.
        const taken = statements.takeOverLease.run(holder, Date.now() + leaseMs, key, from);
        return Number(taken.changes) > 0;
      }),
    renew: async (key, holder, leaseMs) =>
      access.use(`renew the lease on judge cache entry "${key}"`, (statements) => {
        statements.renewLease.run(Date.now() + leaseMs, key, holder);
      }),
    release: async (key, holder) =>
      access.use(`release the lease on judge cache entry "${key}"`, (statements) => {
        statements.releaseLease.run(key, holder);
      }),
  };
}
