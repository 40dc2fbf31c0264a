/**
 * `verdict/stores`: where runs, their results and the judge cache are kept — the SQLite store
 * (the default), the PostgreSQL store a team shares, the in-memory store for tests — and
 * `openStore`, which opens the one a setting names. Their types are exported by `verdict` too.
 * @packageDocumentation
 */
export { MemoryRunStore } from "./memory-run-store.ts";
export {
  type OpenedStore,
  type OpenStoreOptions,
  openStore,
  type StoreOption,
} from "./open-store.ts";
export { PostgresRunStore, type PostgresRunStoreOptions } from "./postgres-run-store.ts";
export { readTestResults } from "./read-test-results.ts";
export type * from "./run-store.ts";
export {
  type OpenSqliteRunStoreOptions,
  SqliteRunStore,
  type SqliteRunStoreOptions,
} from "./sqlite-run-store.ts";
