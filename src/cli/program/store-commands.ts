import type { Command } from "commander";
import type { CommandContext } from "./command-context.ts";
import { nonEmpty } from "./flag-parsers.ts";

/** `verdict store migrate|export|import`: manage the store. */
export function defineStoreCommands(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  const store = program
    .command("store")
    .description(
      "manage the store (VERDICT_STORE's PostgreSQL database, else .verdict/verdict.db): migrate, export, import",
    );
  store
    .command("migrate")
    .description(
      "bring the store's schema up to this verdict's version (run as the database's owner)",
    )
    .action(async () => {
      const { runStoreMigrate } = await import("../commands/store.ts");
      setExitCode(await runStoreMigrate({ cwd, env }));
    });
  store
    .command("export")
    .description("copy every run, result and judge answer of the store into another")
    .requiredOption(
      "--to <file|url>",
      "a SQLite file (created when missing) or a postgres:// URL",
      nonEmpty("--to"),
    )
    .action(async (flags: { to: string }) => {
      const { runStoreCopy } = await import("../commands/store.ts");
      setExitCode(await runStoreCopy({ direction: "export", other: flags.to, cwd, env }));
    });
  store
    .command("import")
    .description("copy every run, result and judge answer of another store into the store")
    .requiredOption(
      "--from <file|url>",
      "a SQLite file (e.g. a laptop's .verdict/verdict.db) or a postgres:// URL",
      nonEmpty("--from"),
    )
    .action(async (flags: { from: string }) => {
      const { runStoreCopy } = await import("../commands/store.ts");
      setExitCode(await runStoreCopy({ direction: "import", other: flags.from, cwd, env }));
    });
}
