import { ConfigError } from "../errors/config-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { isPostgresUrl } from "./postgres-connection.ts";
import { PostgresRunStore } from "./postgres-run-store.ts";
import type { JudgeBatchLog, JudgeCache, RunStore } from "./run-store.ts";
import { SqliteRunStore } from "./sqlite-run-store.ts";

/** A store as opened by verdict: a run store, with its judge cache and batch log when it has them. */
export type OpenedRunStore = RunStore & { judgeCache?: JudgeCache; judgeBatches?: JudgeBatchLog };

/** Options of {@link openRunStore}. */
export interface OpenRunStoreOptions {
  /** A `postgres://` URL; else `VERDICT_STORE`; else the SQLite store of `VERDICT_HOME`. */
  url?: string | undefined;
  /** Where `VERDICT_STORE`, `VERDICT_HOME` and the PG* variables are read. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Where a relative `VERDICT_HOME` is resolved from. @default process.cwd() */
  cwd?: string | undefined;
}

/**
 * The store a setting names: a PostgreSQL store for a `postgres://` (or `postgresql://`) URL
 * given here or in `VERDICT_STORE`, else the default SQLite store (`$VERDICT_HOME/verdict.db`,
 * or `.verdict/verdict.db`). Throws a `ConfigError` for a setting that is neither, and a
 * `StoreError` when the store cannot be opened.
 * @example
 * const store = openRunStore({ env: process.env }); // VERDICT_STORE=postgres://… or .verdict/
 */
export function openRunStore(options: OpenRunStoreOptions = {}): OpenedRunStore {
  const env = options.env ?? process.env;
  const url = storeUrlOf(options.url, env);
  if (url !== null) return new PostgresRunStore({ url, env });
  return SqliteRunStore.open({ env, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) });
}

/**
 * The PostgreSQL URL a setting names (the `store` option, else `VERDICT_STORE`), or `null` for
 * the default SQLite store. Throws a `ConfigError` for anything else.
 */
export function storeUrlOf(url: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (url !== undefined) {
    if (isPostgresUrl(url)) return url.trim();
    throw new ConfigError(
      `store is "${redactSecretText(url)}": give a postgres:// URL, a RunStore object, or false ` +
        "(leave it out for the SQLite store in .verdict/).",
    );
  }
  const setting = env.VERDICT_STORE?.trim();
  if (!setting) return null;
  if (isPostgresUrl(setting)) return setting;
  throw new ConfigError(
    `VERDICT_STORE is "${redactSecretText(setting)}": set it to a postgres:// URL for a shared ` +
      "PostgreSQL store, or unset it for the SQLite store in VERDICT_HOME (.verdict/).",
  );
}
