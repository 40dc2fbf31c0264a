import type { Command } from "commander";
import type { CommandContext } from "./command-context.ts";

// The commands that set verdict up in a project and show how it is set up.

/** `verdict set-model <model>`: persist the default judge model. */
export function defineSetModelCommand(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  program
    .command("set-model")
    .description("persist the default judge model")
    .argument("<model>", 'e.g. "gpt-4.1", "anthropic:claude-sonnet-4-5", "ollama:llama3.1"')
    .option("--force", "save a model name verdict does not know (e.g. a newer model)")
    .action(async (model: string, flags: { force?: true }) => {
      const { runSetModel } = await import("../commands/set-model.ts");
      setExitCode(await runSetModel({ model, cwd, env, force: flags.force === true }));
    });
}

/** `verdict init`: scaffold an example evaluation and `.verdict/.gitignore`. */
export function defineInitCommand(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  program
    .command("init")
    .description("scaffold evals/example.eval.ts and .verdict/.gitignore (never overwrites)")
    .action(async () => {
      const { runInit } = await import("../commands/init.ts");
      setExitCode(await runInit({ cwd, env }));
    });
}

/**
 * `verdict config`: the resolved configuration, secrets masked. `envFiles` tells which .env
 * files were loaded (known once the program's preAction hook has run).
 */
export function defineConfigCommand(
  program: Command,
  context: CommandContext & { version: string; envFiles: () => string[] },
): void {
  const { cwd, env, setExitCode, version } = context;
  program
    .command("config")
    .description("print the resolved configuration, secrets masked")
    .action(async () => {
      const { runConfig } = await import("../commands/config.ts");
      setExitCode(await runConfig({ cwd, env, envFiles: context.envFiles(), version }));
    });
}
