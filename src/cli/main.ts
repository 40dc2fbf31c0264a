#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { loadEnvFiles } from "../config/load-env-files.ts";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { StoreError } from "../errors/store-error.ts";
import { showControlCharacters } from "../report/format.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { defineCalibrateCommand } from "./program/calibrate-command.ts";
import { defineFinetuneCommands } from "./program/finetune-commands.ts";
import {
  defineCompareCommand,
  defineMergeCommand,
  defineViewCommand,
} from "./program/run-commands.ts";
import {
  defineConfigCommand,
  defineInitCommand,
  defineSetModelCommand,
} from "./program/setup-commands.ts";
import { defineStoreCommands } from "./program/store-commands.ts";
import { defineTestCommands } from "./program/test-commands.ts";

// Commands are imported when they run, so that `--help` or `config` never load Vitest or the
// AI SDK. Each command's flags are defined in program/.

function readVersion(): string {
  // src/cli/main.ts and dist/cli/main.js both sit two folders below package.json.
  const manifest = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version?: unknown };
  return typeof manifest.version === "string" ? manifest.version : "unknown";
}

// One line per usage error, ending with where to look: commander's own errors included.
function reportUsageErrors(command: Command, path: string): void {
  command.exitOverride().configureOutput({
    outputError: (text, write) => {
      const line = text.trim().replace(/\s*\n\s*/g, " ");
      const sentence = /[.?!)]$/.test(line) ? line : `${line}.`;
      write(`${sentence} Run "${path} --help" to see the usage.\n`);
    },
  });
  for (const subcommand of command.commands) {
    reportUsageErrors(subcommand, `${path} ${subcommand.name()}`);
  }
}

function buildProgram(options: {
  cwd: string;
  env: NodeJS.ProcessEnv;
  setExitCode: (code: number) => void;
}): Command {
  const { cwd, env, setExitCode } = options;
  const version = readVersion();
  let envFiles: string[] = [];
  const program = new Command("verdict")
    .description("LLM-as-a-judge evaluation for TypeScript")
    .version(version, "-V, --version", "print verdict's version")
    .addHelpText(
      "after",
      [
        "",
        "Configuration: the environment, then .env.local and .env in the current folder (never",
        "overriding the environment): VERDICT_MODEL, VERDICT_HOME, VERDICT_STORE (postgres://…: a",
        "team's shared store), VERDICT_RUN_GROUP (the CI build whose shards write one run), keys.",
        "Exit codes: 0 all passed, 1 some test failed, 2 usage or configuration error,",
        "3 judge errors left test cases unscored, 4 the budget (--max-cost, --max-tokens) stopped",
        "the run (see docs/cost.md).",
      ].join("\n"),
    )
    .hook("preAction", () => {
      envFiles = loadEnvFiles({ cwd, env });
    });

  const context = { cwd, env, setExitCode };
  // In this order, which is the order of `verdict --help`.
  defineTestCommands(program, context);
  defineMergeCommand(program, context);
  defineCompareCommand(program, context);
  defineFinetuneCommands(program, context);
  defineCalibrateCommand(program, context);
  defineSetModelCommand(program, context);
  defineViewCommand(program, context);
  defineInitCommand(program, context);
  defineStoreCommands(program, context);
  defineConfigCommand(program, { ...context, version, envFiles: () => envFiles });

  reportUsageErrors(program, "verdict");
  return program;
}

// Messages quote names and paths, which may hold bidi or control characters: shown, not obeyed.
function oneLine(text: string, env: NodeJS.ProcessEnv): string {
  return showControlCharacters(
    redactSecretText(text, { env })
      .trim()
      .replace(/\s*\n\s*/g, " "),
  );
}

function exitCodeOf(error: unknown, env: NodeJS.ProcessEnv): number {
  if (error instanceof CommanderError) {
    // commander has already printed the help, the version or the usage error.
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
    if (error.code === "commander.help" && error.exitCode === 0) return 0;
    return EXIT_CODES.usage;
  }
  // A store that cannot be opened is an unreadable file: a configuration error (SPEC §6).
  if (error instanceof ConfigError || error instanceof StoreError) {
    process.stderr.write(`${oneLine(error.message, env)}\n`);
    return EXIT_CODES.usage;
  }
  if (error instanceof EvalError && env.VERDICT_DEBUG !== "1") {
    process.stderr.write(`${oneLine(error.message, env)}\n`);
    return EXIT_CODES.failed;
  }
  if (env.VERDICT_DEBUG === "1") {
    const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${showControlCharacters(redactSecretText(text, { env }))}\n`);
  } else {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    process.stderr.write(
      `verdict failed unexpectedly: ${oneLine(text, env)} (set VERDICT_DEBUG=1 to see the stack)\n`,
    );
  }
  return EXIT_CODES.failed;
}

async function main(): Promise<number> {
  const env = process.env;
  let exitCode: number = EXIT_CODES.passed;
  try {
    const program = buildProgram({
      cwd: process.cwd(),
      env,
      setExitCode: (code) => {
        exitCode = code;
      },
    });
    await program.parseAsync(process.argv.slice(2), { from: "user" });
    return exitCode;
  } catch (error) {
    return exitCodeOf(error, env);
  }
}

process.exitCode = await main();
