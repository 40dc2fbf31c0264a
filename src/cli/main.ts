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
import { DISPLAY_MODES } from "./program/report-options.ts";
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
        "Configuration: the environment, then .env.local and .env in the current folder and the",
        "project's root (the nearest folder up with a package.json; never overriding the",
        "environment): VERDICT_MODEL, VERDICT_HOME, VERDICT_STORE (postgres://…: a",
        "team's shared store), VERDICT_RUN_GROUP (the CI build whose shards write one run), keys.",
        "Exit codes: 0 all passed, 1 some test failed, 2 usage or configuration error,",
        "3 judge errors left test cases unscored, 4 the budget (--max-cost, --max-tokens) stopped",
        "the run (see docs/cost.md); 130 interrupted by Ctrl-C, 143 by SIGTERM (a cancelled CI",
        "job), 129 by SIGHUP: the run is stored as interrupted, its reports written.",
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

/**
 * deepeval's `-id NAME` reads here as `-i -d NAME` (ignore errors, display NAME): say what
 * was meant. `-id` followed by a display mode is left alone (it is that).
 */
function deepevalIdentifierHint(args: readonly string[]): string | null {
  const position = args.findIndex((arg) => arg === "-id" || arg.startsWith("-id="));
  if (position === -1) return null;
  const given = args[position] ?? "";
  const value = given.includes("=") ? given.slice(given.indexOf("=") + 1) : args[position + 1];
  if (value !== undefined && DISPLAY_MODES.includes(value as never)) return null;
  const name = value === undefined || value.startsWith("-") ? "NAME" : value;
  return `"-id" is read as -i -d (ignore errors, display): to name the run, use --identifier ${name} (deepeval's -id).`;
}

async function main(): Promise<number> {
  const env = process.env;
  let exitCode: number = EXIT_CODES.passed;
  const hint = deepevalIdentifierHint(process.argv.slice(2));
  if (hint !== null) {
    process.stderr.write(`${oneLine(hint, env)} Run "verdict test run --help" to see the usage.\n`);
    return EXIT_CODES.usage;
  }
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

// `verdict --help | head -3`: the reader went away; what is left to print goes nowhere, without
// a stack trace. Other stream errors are still thrown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

process.exitCode = await main();
