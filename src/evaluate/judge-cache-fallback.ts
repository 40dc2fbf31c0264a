import { redactSecretText } from "../secrets/redact-secrets.ts";
import { claimWithLease } from "../store/judge-lease.ts";
import { leaseHolder } from "../store/lease-holder.ts";
import type {
  CachedJudgeAnswer,
  JudgeCache,
  JudgeCacheClaim,
  JudgeLeases,
} from "../store/run-store.ts";

/** Which use of the judge cache failed. */
type CacheUse = "read" | "write" | "claim";

const CONSEQUENCE: Record<CacheUse, string> = {
  read: "the judge is asked instead",
  write: "the answer is kept and the case scored; the next run asks the judge again",
  claim: "the judge is asked without a lease (another process asking the same may pay too)",
};

/**
 * The judge cache as the scheduler uses it, for any store: the cache saves money, it never
 * costs a case its score. A read that fails is a miss; a write that fails keeps the answer
 * (the case is scored, the next run asks again); a lease claim that fails goes on without the
 * lease, and without a read (the store just failed: another read would wait as long). Each
 * kind of failure is warned of once. A cancelled run's abort goes through as it is, and so
 * does a read that fails in `"replay"` mode, where a miss cannot be told from a broken store.
 */
export class JudgeCacheFallback {
  private readonly warn: (message: string) => void;
  private readonly warned = new Set<CacheUse>();

  constructor(options: { warn: (message: string) => void }) {
    this.warn = options.warn;
  }

  /**
   * The claim of `key` through `leases` (see `claimWithLease`), or `null` when the store
   * failed: proceed as on a miss, without a lease.
   */
  async claim(options: {
    leases: JudgeLeases;
    key: string;
    signal: AbortSignal | undefined;
    /** Called before each wait for another holder's answer (see `claimWithLease`). */
    onWait?: () => void;
  }): Promise<JudgeCacheClaim | null> {
    const { leases, key, signal } = options;
    try {
      return await claimWithLease({
        backend: leases,
        key,
        holder: leaseHolder(),
        leaseMs: leases.leaseMs ?? 30_000,
        signal,
        ...(options.onWait === undefined ? {} : { onWait: options.onWait }),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      this.failed("claim", error);
      return null;
    }
  }

  /** The cached answer of `key`, or `undefined` on a miss or a failed read (warned once). */
  async read(options: {
    cache: JudgeCache;
    key: string;
    replay: boolean;
  }): Promise<CachedJudgeAnswer | undefined> {
    try {
      return await options.cache.get(options.key);
    } catch (error) {
      if (options.replay) throw error;
      this.failed("read", error);
      return undefined;
    }
  }

  /** Stores an answer; a failed write is warned of once and otherwise ignored. */
  async write(options: { cache: JudgeCache; key: string; answer: CachedJudgeAnswer }) {
    try {
      await options.cache.set(options.key, options.answer);
    } catch (error) {
      this.failed("write", error);
    }
  }

  private failed(use: CacheUse, error: unknown): void {
    if (this.warned.has(use)) return;
    this.warned.add(use);
    const reason = error instanceof Error ? error.message : String(error);
    // Masked here too: a Vitest worker prints it straight to the console.
    this.warn(
      redactSecretText(
        `Warning: the judge cache failed (${reason}): ${CONSEQUENCE[use]}. Later ${use} failures of the judge cache are not repeated.`,
      ),
    );
  }
}
