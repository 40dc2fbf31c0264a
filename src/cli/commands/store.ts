import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../../errors/config-error.ts";
import { StoreError } from "../../errors/store-error.ts";
import { formatCount, formatPlural } from "../../report/format.ts";
import { redactSecretText } from "../../secrets/redact-secrets.ts";
import { type CopyStoreCounts, copyStore } from "../../store/copy-store.ts";
import { openStore, storeUrlOf } from "../../store/open-store.ts";
import { isPostgresUrl } from "../../store/postgres-connection.ts";
import { PostgresRunStore } from "../../store/postgres-run-store.ts";
import type { Store } from "../../store/run-store.ts";
import { SCHEMA_VERSION, SqliteRunStore, STORE_FILE_NAME } from "../../store/sqlite-run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";

/** Options of the `verdict store` commands. */
export interface StoreCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout?: CommandOutput;
  stderr?: CommandOutput;
}

/**
 * `verdict store migrate`: brings the store's schema up to this verdict's version — the
 * PostgreSQL store of `VERDICT_STORE` (a team's database, which a user without the right to
 * create tables can then use), or the SQLite file of `VERDICT_HOME`. Exit 0, or 2 with what
 * to do.
 * @example
 * VERDICT_STORE=postgres://admin@db/evals verdict store migrate
 */
export async function runStoreMigrate(options: StoreCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  return reportStoreErrors(options, async () => {
    const url = storeUrlOf(undefined, options.env);
    if (url !== null) {
      const { target, before, after } = await PostgresRunStore.migrate({ url, env: options.env });
      const applied = after.filter((version) => !before.includes(version));
      stdout.write(
        applied.length === 0
          ? `The verdict store ${target} is at schema version ${Math.max(0, ...after)}: nothing to do.\n`
          : `Migrated the verdict store ${target} to schema version ${Math.max(0, ...after)} (applied ${applied.join(", ")}).\n`,
      );
      return EXIT_CODES.passed;
    }
    const store = SqliteRunStore.open({ env: options.env, cwd: options.cwd });
    await store.close();
    stdout.write(`The verdict store ${store.path} is at schema version ${SCHEMA_VERSION}.\n`);
    return EXIT_CODES.passed;
  });
}

/** Options of {@link runStoreCopy}. */
export interface StoreCopyOptions extends StoreCommandOptions {
  /** `export`: from this project's store to `other`; `import`: from `other` into it. */
  direction: "export" | "import";
  /** A SQLite file, or a `postgres://` URL. */
  other: string;
}

/**
 * `verdict store export --to FILE|URL` and `verdict store import --from FILE|URL`: copy every
 * run, result and judge answer between this project's store (`VERDICT_STORE`, else the SQLite
 * file of `VERDICT_HOME`) and another — a SQLite file or a PostgreSQL URL — field for field
 * (see `copyStore`). Moves a laptop's history into a team's store, or a team's store into a
 * file. Runs the target has are kept; copying again completes an interrupted copy.
 * @example
 * VERDICT_STORE=postgres://ci@db/evals verdict store import --from .verdict/verdict.db
 */
export async function runStoreCopy(options: StoreCopyOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  return reportStoreErrors(options, async () => {
    const opened: Store[] = [];
    try {
      const here = await openStore({
        env: options.env,
        cwd: options.cwd,
        // Exporting reads this project's store, which is never created; importing creates it.
        purpose: options.direction === "export" ? "read" : "run",
      });
      if (here.store === null) {
        if (here.failure !== null) throw new StoreError(here.failure);
        stderr.write(
          `No verdict store at ${here.missingFile ?? here.where} to export: set VERDICT_HOME to the folder that holds ${STORE_FILE_NAME}, or VERDICT_STORE to a PostgreSQL store.\n`,
        );
        return EXIT_CODES.usage;
      }
      const hereStore = here.store;
      opened.push(hereStore);
      const other = await openOther({ ...options, mustExist: options.direction === "import" });
      opened.push(other.store);
      if (other.where === here.where) {
        throw new ConfigError(
          `The store to ${options.direction} ${options.direction === "export" ? "to" : "from"} is this project's store (${here.where}): name another.`,
        );
      }
      const mine = { store: hereStore, where: here.where };
      const [from, to] = options.direction === "export" ? [mine, other] : [other, mine];
      stdout.write(`Copying ${from.where} → ${to.where}\n`);
      let shown = 0;
      const counts = await copyStore({
        from: from.store,
        to: to.store,
        onProgress: (progress) => {
          const done = progress.runsCopied + progress.runsKept;
          if (done - shown < 100) return;
          shown = done;
          stdout.write(`  ${formatPlural(done, "run")} so far\n`);
        },
      });
      stdout.write(`${describeCounts(counts)}\n`);
      return EXIT_CODES.passed;
    } finally {
      for (const store of opened) await store.close();
    }
  });
}

function describeCounts(counts: CopyStoreCounts): string {
  const kept =
    counts.runsKept === 0
      ? ""
      : `; ${formatPlural(counts.runsKept, "run")} already there kept (missing results added)`;
  const parts = [
    formatPlural(counts.runsCopied, "run"),
    formatPlural(counts.testResults, "test result"),
    ...(counts.calibrations === 0 ? [] : [formatPlural(counts.calibrations, "calibration")]),
    ...(counts.judgeBatches === 0
      ? []
      : [
          `${formatCount(counts.judgeBatches)} judge ${counts.judgeBatches === 1 ? "batch" : "batches"}`,
        ]),
    formatPlural(counts.judgeAnswers, "judge answer"),
  ];
  const replaced =
    counts.namesReplaced === 0
      ? ""
      : ` ${formatPlural(counts.namesReplaced, "name")} (run ids and identifiers, calibration ids, metric names) held NUL, which stores no longer keep: each NUL was written as U+FFFD (\uFFFD).`;
  return `Copied ${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}${kept}.${replaced}`;
}

/** The other store: a `postgres://` URL, or a SQLite file (a folder means its verdict.db). */
async function openOther(options: StoreCopyOptions & { mustExist: boolean }): Promise<{
  store: Store;
  where: string;
}> {
  const { other } = options;
  if (isPostgresUrl(other)) {
    const store = await PostgresRunStore.open({ url: other, env: options.env });
    return { store, where: store.target };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(other)) {
    throw new ConfigError(
      `"${redactSecretText(other)}" is neither a postgres:// URL nor a file: give a SQLite file (e.g. backup.db) or a PostgreSQL URL.`,
    );
  }
  let file = path.resolve(options.cwd, other);
  if (existsSync(file) && statSync(file).isDirectory()) file = path.join(file, STORE_FILE_NAME);
  if (options.mustExist && !existsSync(file)) {
    throw new ConfigError(`There is no verdict store at ${file} to import: check the path.`);
  }
  const store = new SqliteRunStore({ path: file });
  return { store, where: store.path };
}

/** Runs a command, turning a store or configuration error into its message and exit 2. */
async function reportStoreErrors(
  options: StoreCommandOptions,
  command: () => Promise<number>,
): Promise<number> {
  try {
    return await command();
  } catch (error) {
    if (!(error instanceof StoreError) && !(error instanceof ConfigError)) throw error;
    (options.stderr ?? process.stderr).write(`${redactSecretText(error.message)}\n`);
    return EXIT_CODES.usage;
  }
}
