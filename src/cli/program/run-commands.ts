import { type Command, InvalidArgumentError, Option } from "commander";
import type { OutputRequest } from "../output-targets.ts";
import type { CommandContext } from "./command-context.ts";
import { alpha, maxDrop, nonEmpty, outputRequest } from "./flag-parsers.ts";
import {
  type DisplayMode,
  displayOption,
  noGitHubOption,
  outputFileOption,
  outputOption,
} from "./report-options.ts";

// The commands that read runs: merge the shards of one, compare two, serve them all.

interface MergeFlags {
  run?: string;
  github: boolean;
  display: DisplayMode;
  output?: OutputRequest[];
  outputFile?: string;
  allowMissingShards?: true;
}

/** `verdict merge [files...]`: the shards of a run into one report. */
export function defineMergeCommand(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  program
    .command("merge")
    .description(
      "merge the shards of a run into one report: their JSON reports, or the run they stored together (--run)",
    )
    .argument("[files...]", "JSON reports written with --output json")
    .option(
      "--run <name>",
      "instead of files: the run (id or identifier) that the shards wrote into the store (VERDICT_STORE)",
      nonEmpty("--run"),
    )
    .addOption(outputOption())
    .addOption(outputFileOption())
    .addOption(displayOption())
    .option(
      "--allow-missing-shards",
      "merge even when some shards of a sharded run have no report (exit 2 otherwise)",
    )
    .addOption(
      noGitHubOption(
        "append the merged run's Markdown report to the job summary ($GITHUB_STEP_SUMMARY)",
      ),
    )
    .action(async (files: string[], flags: MergeFlags) => {
      const { runMerge } = await import("../commands/merge.ts");
      setExitCode(
        await runMerge({
          files,
          ...(flags.run === undefined ? {} : { run: flags.run }),
          env,
          display: flags.display,
          outputs: flags.output ?? [],
          ...(flags.outputFile === undefined ? {} : { outputFile: flags.outputFile }),
          allowMissingShards: flags.allowMissingShards === true,
          github: flags.github,
          cwd,
        }),
      );
    });
}

/** `verdict compare <baseline> <candidate>`: exit 1 when a metric got significantly worse. */
export function defineCompareCommand(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  program
    .command("compare")
    .description(
      "compare two runs, stored or JSON reports; exit 1 when a metric got significantly worse",
    )
    .argument(
      "<baseline>",
      "run to compare against: a run id or identifier (its latest run), or a JSON report (path ending in .json, from --output json)",
    )
    .argument("<candidate>", "run to check: a run id or identifier, or a JSON report")
    .option(
      "--max-drop <amount>",
      "how much worse a metric may get: 0.05 = mean score by 0.05, pass rate by 5 points",
      maxDrop,
      0,
    )
    .option(
      "--alpha <level>",
      "significance level of the paired tests: a drop fails only when p < alpha",
      alpha,
      0.05,
    )
    .option("--no-stats", "fail on any drop beyond --max-drop, without the paired tests")
    .addOption(
      new Option(
        "--output <markdown[=path]>",
        "also write the comparison as Markdown for a pull-request comment: what got worse, the paired tests, the changed cases with both outputs (default file verdict-compare.md)",
      ).argParser(outputRequest),
    )
    .addOption(outputFileOption("verdict-compare.md"))
    .addOption(
      noGitHubOption("append the Markdown comparison to the job summary ($GITHUB_STEP_SUMMARY)"),
    )
    .action(
      async (
        baseline: string,
        candidate: string,
        flags: {
          maxDrop: number;
          alpha: number;
          stats: boolean;
          output?: OutputRequest[];
          outputFile?: string;
          github: boolean;
        },
      ) => {
        const { runCompare } = await import("../commands/compare.ts");
        setExitCode(
          await runCompare({
            baseline,
            candidate,
            maxDrop: flags.maxDrop,
            alpha: flags.stats ? flags.alpha : null,
            outputs: flags.output ?? [],
            outputFile: flags.outputFile,
            github: flags.github,
            cwd,
            env,
          }),
        );
      },
    );
}

/** `verdict view`: the stored runs as a local dashboard. */
export function defineViewCommand(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  program
    .command("view")
    .description("serve the stored runs as a local dashboard (127.0.0.1 unless --host and a token)")
    .option(
      "--port <number>",
      "port to listen on (0 picks a free one)",
      (value: string) => {
        const number = Number(value);
        if (!/^\s*\d+\s*$/.test(value) || number > 65535) {
          throw new InvalidArgumentError(
            "--port takes a port number from 0 to 65535, e.g. --port 4242.",
          );
        }
        return number;
      },
      4242,
    )
    .option(
      "--host <address>",
      "interface to listen on; anything but 127.0.0.1 needs a token (0.0.0.0: every interface)",
      nonEmpty("--host"),
      "127.0.0.1",
    )
    .option(
      "--token <token>",
      "require this token on every request (Bearer header, ?token= or the cookie set then): at least 16 characters; other users can read an argument in the process list, so prefer --token-file or VERDICT_VIEW_TOKEN",
      nonEmpty("--token"),
    )
    .option(
      "--token-file <path>",
      "read the token from this file (its text, trimmed; keep it chmod 600)",
      nonEmpty("--token-file"),
    )
    .option("--open", "open the dashboard in your browser")
    .addHelpText(
      "after",
      "\nEnvironment:\n  VERDICT_VIEW_TOKEN  the token, when neither --token nor --token-file gives one\n",
    )
    .action(
      async (flags: {
        port: number;
        host: string;
        token?: string;
        tokenFile?: string;
        open?: true;
      }) => {
        const { runView } = await import("../commands/view.ts");
        setExitCode(
          await runView({
            cwd,
            env,
            port: flags.port,
            host: flags.host,
            ...(flags.token === undefined ? {} : { token: flags.token }),
            ...(flags.tokenFile === undefined ? {} : { tokenFile: flags.tokenFile }),
            open: flags.open === true,
          }),
        );
      },
    );
}
