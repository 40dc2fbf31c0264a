/**
 * Where verdict keeps runs, test results and judge answers: the store interface, the SQLite
 * store, an in-memory store for tests, and the secret redaction applied to configurations.
 * @packageDocumentation
 */

export { isSecretKey, REDACTED, redactSecrets } from "../config/redact-secrets.ts";
export { MemoryRunStore } from "./memory-run-store.ts";
export type {
  CachedJudgeAnswer,
  JudgeCache,
  RunStore,
  StoredRun,
  StoredTestResult,
} from "./run-store.ts";
export {
  type OpenSqliteRunStoreOptions,
  SCHEMA_VERSION,
  SqliteRunStore,
  type SqliteRunStoreOptions,
  STORE_FILE_NAME,
} from "./sqlite-run-store.ts";
