import type * as NodeSqlite from "node:sqlite";
import { StoreError } from "../errors/store-error.ts";
import { nodeHasSqlite, unsupportedNodeMessage } from "./node-sqlite-support.ts";

/** What {@link loadNodeSqlite} needs of `process` (a parameter, so tests can pass their own). */
export interface SqliteHost {
  versions: { node: string };
  emitWarning: typeof process.emitWarning;
  getBuiltinModule: (id: "node:sqlite") => typeof NodeSqlite;
}

/**
 * Whether a warning is the ExperimentalWarning Node 22 prints when `node:sqlite` loads
 * ("SQLite is an experimental feature and might change at any time").
 */
export function isSqliteExperimentalWarning(
  warning: string | Error,
  typeOrOptions: unknown,
): boolean {
  const type =
    warning instanceof Error
      ? warning.name
      : typeof typeOrOptions === "string"
        ? typeOrOptions
        : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const message = warning instanceof Error ? warning.message : warning;
  return type === "ExperimentalWarning" && /^SQLite is an experimental feature/.test(message);
}

/**
 * Loads Node's built-in `node:sqlite` when a store first opens, rather than by a static import:
 * an older Node then gets a `StoreError` naming the version needed instead of "No such
 * built-in module", and the ExperimentalWarning Node 22 emits while loading it is dropped —
 * that one warning only, every other warning still reaches `process.emitWarning`.
 */
export function loadNodeSqlite(host: SqliteHost = process): typeof NodeSqlite {
  if (!nodeHasSqlite(host.versions.node)) {
    throw new StoreError(unsupportedNodeMessage(host.versions.node));
  }
  // Node emits the warning synchronously, through process.emitWarning, while the module
  // loads; a 'warning' listener cannot stop Node's own listener from printing it.
  const emitWarning = host.emitWarning;
  host.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (isSqliteExperimentalWarning(warning, rest[0])) return;
    (emitWarning as (...args: unknown[]) => void).call(host, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return host.getBuiltinModule("node:sqlite");
  } finally {
    host.emitWarning = emitWarning;
  }
}
