import { existsSync } from "node:fs";
import path from "node:path";
import { resolveVerdictHome } from "../config/project-config.ts";
import { ConfigError } from "../errors/config-error.ts";
import { StoreError } from "../errors/store-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { isPostgresUrl } from "./postgres-connection.ts";
import { formatShard, runGroupOf } from "./run-shards.ts";
import type { RunShard, Store } from "./run-store.ts";

/**
 * The `store` option: the default store (`VERDICT_STORE`, else the `.verdict/` SQLite store), a
 * `postgres://` URL, a store of your own, or `false` for none.
 */
export type StoreOption = Store | string | false | undefined;

/** Options of {@link openStore}. */
export interface OpenStoreOptions {
  /** What the user asked for. @default the default store */
  store?: StoreOption;
  /** Where `VERDICT_STORE`, `VERDICT_HOME` and the PG* variables are read. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** Where a relative `VERDICT_HOME` is resolved from. @default process.cwd() */
  cwd?: string | undefined;
  /**
   * `"run"` (default): the default SQLite store is created when missing, and a run goes on
   * without it (with a warning) when it cannot be opened. `"read"`: a reading command never
   * creates it: `missingFile` says where it would be.
   */
  purpose?: "run" | "read";
  /** What a run loses without the default store, said in the warning. */
  withoutStore?: string;
  /**
   * A PostgreSQL store's opening waits out a server away for a passing reason (see
   * `PostgresRunStoreOptions.retryOpen`): for a process joining a run that is going. @default false
   */
  retryOpen?: boolean;
  /**
   * Why this run cannot go on without its store, e.g. "A resumed run reads its finished cases
   * from its store" (see `whyRunNeedsStore`): then the default SQLite store must open too, and
   * a failure is a `StoreError` ending with this reason, instead of the fallback.
   */
  needed?: string | null | undefined;
}

/** What {@link openStore} opened. */
export interface OpenedStore {
  /** The store, or `null`: `store: false`, or the default store could not be opened. */
  store: Store | null;
  /** Whether `openStore` opened it: then the caller closes it. */
  owned: boolean;
  /** Why the run goes on without the default store, or `null`. */
  warning: string | null;
  /** Why the default store could not be opened (the `StoreError`'s message), or `null`. */
  failure: string | null;
  /** How messages name it: the SQLite file, the PostgreSQL target (never its password), … */
  where: string;
  /** A reading command's default SQLite file that does not exist yet (`store` is then `null`). */
  missingFile: string | null;
}

/**
 * Opens the store a setting names, with verdict's one failure policy:
 * - `store: false`: none; a store object: used as it is (the caller closes it);
 * - a store the user named (a `postgres://` URL here or in `VERDICT_STORE`) must open: else
 *   this throws a `StoreError` that says what to do, and the run stops;
 * - the default SQLite store (`$VERDICT_HOME/verdict.db`, or `.verdict/verdict.db`) may fall
 *   back: when it cannot be opened a run goes on without it, with `warning` saying so —
 *   unless the run cannot go on without it (`needed`: a resumed run, a shard of a build's
 *   shared run), which then throws the `StoreError`, before anything runs.
 * A setting that is neither a URL nor a store is a `ConfigError`. The PostgreSQL and SQLite
 * stores are loaded only when used.
 * @example
 * const { store, warning } = await openStore({ env: process.env });
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<OpenedStore> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const none = { owned: false, warning: null, failure: null, missingFile: null };
  if (options.store === false) return { store: null, where: "no store", ...none };
  if (options.store && typeof options.store === "object") {
    return { store: options.store, where: "the given store", ...none };
  }
  const url = storeUrlOf(options.store || undefined, env);
  if (url !== null) {
    const { PostgresRunStore } = await import("./postgres-run-store.ts");
    const store = await PostgresRunStore.open({ url, env, retryOpen: options.retryOpen ?? false });
    return { store, where: store.target, ...none, owned: true };
  }
  const { SqliteRunStore, STORE_FILE_NAME } = await import("./sqlite-run-store.ts");
  const file = path.join(resolveVerdictHome({ env, cwd }), STORE_FILE_NAME);
  if (options.purpose === "read") {
    if (!existsSync(file)) return { store: null, where: file, ...none, missingFile: file };
    return { store: new SqliteRunStore({ path: file }), where: file, ...none, owned: true };
  }
  try {
    const store = SqliteRunStore.open({ env, cwd });
    return { store, where: store.path, ...none, owned: true };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    if (options.needed) {
      throw new StoreError(
        redactSecretText(`${error.message} ${options.needed}: nothing was run.`),
        {
          cause: error,
        },
      );
    }
    const loses = options.withoutStore ?? "no judge cache, and results are not kept";
    const warning = redactSecretText(
      `Warning: ${error.message} This run goes on without the store: ${loses}.`,
    );
    return { store: null, where: file, ...none, warning, failure: redactSecretText(error.message) };
  }
}

/**
 * Why a run cannot go on without its store, for `openStore`'s `needed`; `null` when it can
 * (then the default store may fall back to none, with a warning). A resumed run reads its
 * finished cases from the store: without it, it would pay for every case again and report
 * "completed" having stored nothing. A shard of a build's shared run (a run group) writes its
 * part there: without it, the shared run would never be complete.
 * @example
 * whyRunNeedsStore({ resume: true, shard: null, env }); // "A resumed run reads …"
 */
export function whyRunNeedsStore(options: {
  resume: boolean;
  shard: RunShard | null;
  env: NodeJS.ProcessEnv;
}): string | null {
  if (options.resume) {
    return (
      "A resumed run reads its finished cases from this store and cannot go on without it " +
      "(without resume, every case is scored again)"
    );
  }
  const group = options.shard === null ? null : runGroupOf(options.env);
  if (options.shard !== null && group !== null) {
    return (
      `Shard ${formatShard(options.shard)} writes its part of the run its build's shards share ` +
      `(run group "${group}") into this store and cannot go on without it`
    );
  }
  return null;
}

/**
 * The PostgreSQL URL a setting names (the `store` option, else `VERDICT_STORE`), or `null` for
 * the default SQLite store. Throws a `ConfigError` for anything else.
 */
export function storeUrlOf(url: string | undefined, env: NodeJS.ProcessEnv): string | null {
  if (url !== undefined) {
    if (isPostgresUrl(url)) return url.trim();
    throw new ConfigError(
      `store is "${redactSecretText(url)}": give a postgres:// URL, a Store object, or false ` +
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
