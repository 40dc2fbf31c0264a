import { ConfigError } from "../errors/config-error.ts";
import { StoreError } from "../errors/store-error.ts";
import type { JudgeCache, RunStore } from "../store/run-store.ts";
import { SqliteRunStore } from "../store/sqlite-run-store.ts";

/** The `store` option: the default `.verdict/` SQLite store, a store of your own, or `false`. */
export type RunStoreOption = RunStore | false | undefined;

/**
 * Opens the run store and judge cache for a run. A default store that cannot be opened
 * (read-only folder, corrupt file) is not fatal: the run goes on without it, with a warning.
 * `owned`: the run opened the store itself, so the run closes it.
 */
export function openRunStore(options: {
  store: RunStoreOption;
  env: NodeJS.ProcessEnv;
  resume: boolean;
}): { store: RunStore | null; cache: JudgeCache | null; warning: string | null; owned: boolean } {
  if (options.store === false) {
    if (options.resume) {
      throw new ConfigError(
        "resume needs a store to read the earlier run from: remove store: false.",
      );
    }
    return { store: null, cache: null, warning: null, owned: false };
  }
  if (options.store) {
    const cache = (options.store as { judgeCache?: JudgeCache }).judgeCache ?? null;
    return { store: options.store, cache, warning: null, owned: false };
  }
  try {
    const store = SqliteRunStore.open({ env: options.env });
    return { store, cache: store.judgeCache, warning: null, owned: true };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    const warning = `Warning: ${error.message} This run goes on without the store: no judge cache, and results are not kept.`;
    console.warn(warning);
    return { store: null, cache: null, warning, owned: false };
  }
}
