#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { loadEnvFiles } from "../config/load-env-files.ts";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { StoreError } from "../errors/store-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { EXIT_CODES } from "./exit-codes.ts";
import { type OutputRequest, parseOutputRequest } from "./output-targets.ts";

// Commands are imported when they run, so that `--help` or `config` never load Vitest or the
// AI SDK.

const DISPLAY_MODES = ["all", "failing", "passing", "none"] as const;

type DisplayMode = (typeof DISPLAY_MODES)[number];

interface TestRunFlags {
  cache: boolean;
  useCache?: true;
  ignoreErrors?: true;
  skipOnMissingParams?: true;
  verbose?: true;
  maxConcurrent?: number;
  repeat?: number;
  exitOnFirstFailure?: true;
  concurrent: boolean;
  display: DisplayMode;
  identifier?: string;
  output?: OutputRequest[];
  outputFile?: string;
  shard?: string;
  judge?: string;
}

interface CalibrateFlags {
  metric: "toxicity" | "bias" | "relevancy";
  data?: string;
  inputField?: string;
  outputField?: string;
  labelField?: string;
  idField?: string;
  positiveLabel?: string;
  negativeLabel?: string;
  limit?: number;
  threshold?: number;
  maxExamples?: number;
  output?: OutputRequest[];
  outputFile?: string;
  maxConcurrent?: number;
  judge?: string;
  cache: boolean;
  ignoreErrors?: true;
  identifier?: string;
  resume?: true;
}

interface FinetuneWatchFlags {
  goldens: string;
  metrics: string;
  metricForBest?: string;
  pollInterval: number;
  judge?: string;
  identifier?: string;
  system?: string;
  maxConcurrent?: number;
  ignoreErrors?: true;
  cache: boolean;
  maxDrop: number;
  alpha: number;
}

interface MergeFlags {
  run?: string;
  display: DisplayMode;
  output?: OutputRequest[];
  outputFile?: string;
  allowMissingShards?: true;
}

function wholeNumber(flag: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
      throw new InvalidArgumentError(`${flag} takes a whole number of 1 or more, e.g. ${flag} 4.`);
    }
    return number;
  };
}

function shard(value: string): string {
  const match = /^\s*(\d+)\/(\d+)\s*$/.exec(value);
  const [index, count] = [Number(match?.[1]), Number(match?.[2])];
  if (match === null || index < 1 || index > count) {
    throw new InvalidArgumentError("--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3.");
  }
  return `${index}/${count}`;
}

function maxDrop(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number < 0) {
    throw new InvalidArgumentError("--max-drop takes a number of 0 or more, e.g. --max-drop 0.05.");
  }
  return number;
}

function threshold(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !(number >= 0 && number <= 1)) {
    throw new InvalidArgumentError("--threshold takes a number from 0 to 1, e.g. --threshold 0.5.");
  }
  return number;
}

function alpha(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !(number > 0 && number < 1)) {
    throw new InvalidArgumentError("--alpha takes a number between 0 and 1, e.g. --alpha 0.05.");
  }
  return number;
}

function countOrZero(flag: string) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(number)) {
      throw new InvalidArgumentError(`${flag} takes a whole number of 0 or more, e.g. ${flag} 20.`);
    }
    return number;
  };
}

function positiveSeconds(value: string): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number) || number <= 0) {
    throw new InvalidArgumentError(
      "--poll-interval takes a number of seconds above 0, e.g. --poll-interval 60.",
    );
  }
  return number;
}

function nonEmpty(flag: string) {
  return (value: string): string => {
    if (value.trim() === "") throw new InvalidArgumentError(`${flag} must not be empty.`);
    return value;
  };
}

function outputRequest(value: string, previous: OutputRequest[] | undefined): OutputRequest[] {
  const request = parseOutputRequest(value);
  if (typeof request === "string") throw new InvalidArgumentError(request);
  return [...(previous ?? []), request];
}

const displayOption = () =>
  new Option("-d, --display <mode>", 'which test cases the report lists ("none": no report)')
    .choices(DISPLAY_MODES)
    .default("all");
const outputOption = () =>
  new Option(
    "--output <format[=path]>",
    "also write a report: json, junit or html, optionally =path; repeat for several",
  ).argParser(outputRequest);
const outputFileOption = () =>
  new Option(
    "--output-file <path>",
    "the file of a single --output (default: verdict-report.<json|xml|html>)",
  ).argParser(nonEmpty("--output-file"));

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
        "3 judge errors left test cases unscored.",
      ].join("\n"),
    )
    .hook("preAction", () => {
      envFiles = loadEnvFiles({ cwd, env });
    });

  const test = program
    .command("test")
    .description("run evaluation tests: verdict test run [paths...]");
  test
    .command("run")
    .description("run *.eval.ts / *.test.ts files through Vitest with verdict's reporter")
    .argument("[paths...]", "test files or folders (default: every evaluation test file)")
    .addOption(
      new Option(
        "-c, --use-cache",
        "reuse judge answers from earlier runs (the default)",
      ).conflicts("cache"),
    )
    .option("--no-cache", "do not reuse judge answers from earlier runs")
    .option("-i, --ignore-errors", "record a failed metric as an error instead of stopping")
    .option("-s, --skip-on-missing-params", "leave out a metric whose test case lacks a field")
    .option("-v, --verbose", "print each metric's intermediate steps")
    .option(
      "-n, --max-concurrent <count>",
      "judge requests in flight per model",
      wholeNumber("--max-concurrent"),
    )
    .option("-r, --repeat <count>", "run each test case this many times", wholeNumber("--repeat"))
    .option("-x, --exit-on-first-failure", "stop at the first failing test")
    .option("--no-concurrent", "run each file's tests one at a time (default: at the same time)")
    .addOption(displayOption())
    .option("--identifier <name>", "name the run, for verdict compare", nonEmpty("--identifier"))
    .addOption(outputOption())
    .addOption(outputFileOption())
    .option(
      "--shard <i/n>",
      "run only shard i of n (CI); the shards of one build (VERDICT_RUN_GROUP, or the CI build's id) write one stored run",
      shard,
    )
    .option(
      "--judge <model>",
      'judge model for this run (sets VERDICT_MODEL); "fake": the built-in fake judge, no key, scores not real',
      nonEmpty("--judge"),
    )
    .action(async (paths: string[], flags: TestRunFlags) => {
      const { runTestRun } = await import("./commands/test-run.ts");
      setExitCode(
        await runTestRun({
          paths,
          cache: flags.cache,
          ignoreErrors: flags.ignoreErrors === true,
          skipOnMissingParams: flags.skipOnMissingParams === true,
          verbose: flags.verbose === true,
          ...(flags.maxConcurrent === undefined ? {} : { maxConcurrent: flags.maxConcurrent }),
          ...(flags.repeat === undefined ? {} : { repeat: flags.repeat }),
          exitOnFirstFailure: flags.exitOnFirstFailure === true,
          concurrent: flags.concurrent,
          display: flags.display,
          ...(flags.identifier === undefined ? {} : { identifier: flags.identifier }),
          outputs: flags.output ?? [],
          ...(flags.outputFile === undefined ? {} : { outputFile: flags.outputFile }),
          ...(flags.shard === undefined ? {} : { shard: flags.shard }),
          ...(flags.judge === undefined ? {} : { judge: flags.judge }),
          cwd,
          env,
        }),
      );
    });

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
    .action(async (files: string[], flags: MergeFlags) => {
      const { runMerge } = await import("./commands/merge.ts");
      setExitCode(
        await runMerge({
          files,
          ...(flags.run === undefined ? {} : { run: flags.run }),
          env,
          display: flags.display,
          outputs: flags.output ?? [],
          ...(flags.outputFile === undefined ? {} : { outputFile: flags.outputFile }),
          allowMissingShards: flags.allowMissingShards === true,
          cwd,
        }),
      );
    });

  program
    .command("compare")
    .description("compare two runs; exit 1 when a metric got significantly worse")
    .argument("<baseline>", "run id or identifier (its latest run) to compare against")
    .argument("<candidate>", "run id or identifier (its latest run) to check")
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
    .action(
      async (
        baseline: string,
        candidate: string,
        flags: { maxDrop: number; alpha: number; stats: boolean },
      ) => {
        const { runCompare } = await import("./commands/compare.ts");
        setExitCode(
          await runCompare({
            baseline,
            candidate,
            maxDrop: flags.maxDrop,
            alpha: flags.stats ? flags.alpha : null,
            cwd,
            env,
          }),
        );
      },
    );

  const finetune = program
    .command("finetune")
    .description("score a fine-tuning job's checkpoints: verdict finetune watch <job-id>");
  finetune
    .command("watch")
    .description(
      "score every checkpoint of a fine-tuning job as it appears, name the best; exit 1 when the final model is significantly worse",
    )
    .argument(
      "<job-id>",
      "the OpenAI fine-tuning job, e.g. ftjob-abc123 (OPENAI_API_KEY, OPENAI_BASE_URL)",
    )
    .requiredOption(
      "--goldens <file>",
      "the goldens each checkpoint answers (.json, .jsonl or .csv)",
      nonEmpty("--goldens"),
    )
    .option(
      "--metrics <names>",
      "comma-separated metrics: toxicity, bias, relevancy",
      nonEmpty("--metrics"),
      "toxicity,bias,relevancy",
    )
    .option(
      "--metric-for-best <name>",
      "the metric that names the best checkpoint (default: the first of --metrics)",
      nonEmpty("--metric-for-best"),
    )
    .option(
      "--poll-interval <seconds>",
      "seconds between polls of the job; grows while nothing new appears (to 10 times as long)",
      positiveSeconds,
      30,
    )
    .option(
      "--judge <model>",
      'judge model of the metrics; "fake": the built-in fake judge, no key, scores not real',
      nonEmpty("--judge"),
    )
    .option(
      "--identifier <name>",
      "identifier of the checkpoints' runs (default: finetune:<job-id>)",
      nonEmpty("--identifier"),
    )
    .option("--system <text>", "a system message sent to the checkpoints before each golden")
    .option(
      "-n, --max-concurrent <count>",
      "requests in flight per model (checkpoint or judge)",
      wholeNumber("--max-concurrent"),
    )
    .option("-i, --ignore-errors", "record a failed metric as an error instead of stopping")
    .option("--no-cache", "do not reuse cached answers of the checkpoints and the judge")
    .option(
      "--max-drop <amount>",
      "how much worse than the best the final model may be: 0.05 = mean score by 0.05",
      maxDrop,
      0,
    )
    .option(
      "--alpha <level>",
      "significance level of the paired tests of the final model against the best",
      alpha,
      0.05,
    )
    .action(async (jobId: string, flags: FinetuneWatchFlags) => {
      const { runFinetuneWatch } = await import("./commands/finetune-watch.ts");
      setExitCode(
        await runFinetuneWatch({
          jobId,
          goldens: flags.goldens,
          metrics: flags.metrics,
          metricForBest: flags.metricForBest,
          pollIntervalSeconds: flags.pollInterval,
          judge: flags.judge,
          identifier: flags.identifier,
          system: flags.system,
          maxConcurrent: flags.maxConcurrent,
          ignoreErrors: flags.ignoreErrors === true,
          cache: flags.cache,
          maxDrop: flags.maxDrop,
          alpha: flags.alpha,
          cwd,
          env,
        }),
      );
    });

  program
    .command("calibrate")
    .description(
      "agreement of a metric with human labels: accuracy, κ, F1, ROC AUC, best threshold",
    )
    .argument("[file]", "the labelled rows (.jsonl, .json or .csv); or --data FILE")
    .addOption(
      new Option("--metric <name>", "the metric to calibrate")
        .choices(["toxicity", "bias", "relevancy"])
        .makeOptionMandatory(),
    )
    .option("--data <file>", "the labelled rows (.jsonl, .json or .csv)", nonEmpty("--data"))
    .option(
      "--input-field <name>",
      'field of the input (default "input")',
      nonEmpty("--input-field"),
    )
    .option(
      "--output-field <name>",
      'field of the output judged (default "actual_output")',
      nonEmpty("--output-field"),
    )
    .option(
      "--label-field <name>",
      'field of the human label (default "label")',
      nonEmpty("--label-field"),
    )
    .option("--id-field <name>", 'field naming each row (default "id")', nonEmpty("--id-field"))
    .option(
      "--positive-label <value>",
      'label of a toxic / biased / relevant row (default "1")',
      nonEmpty("--positive-label"),
    )
    .option(
      "--negative-label <value>",
      "label of the other rows; any third label is then an error naming its row",
      nonEmpty("--negative-label"),
    )
    .option("--limit <count>", "calibrate on the first N rows only", wholeNumber("--limit"))
    .option("--threshold <number>", "the metric's threshold (default 0.5)", threshold)
    .option(
      "--max-examples <count>",
      "how many wrong rows the report lists (default 20)",
      countOrZero("--max-examples"),
    )
    .addOption(
      new Option(
        "--output <format[=path]>",
        "also write the report: json or html, optionally =path; repeat for both",
      ).argParser(outputRequest),
    )
    .addOption(
      new Option(
        "--output-file <path>",
        "the file of a single --output (default: verdict-calibration.<json|html>)",
      ).argParser(nonEmpty("--output-file")),
    )
    .option(
      "-n, --max-concurrent <count>",
      "judge requests in flight",
      wholeNumber("--max-concurrent"),
    )
    .option(
      "--judge <model>",
      'judge model (default VERDICT_MODEL); "fake": the built-in fake judge, scores not real',
      nonEmpty("--judge"),
    )
    .option("--no-cache", "do not reuse judge answers from earlier runs")
    .option("-i, --ignore-errors", "leave a row the judge fails on unscored instead of stopping")
    .option("--identifier <name>", "name the run, to resume it", nonEmpty("--identifier"))
    .option("--resume", "continue the latest run of --identifier, paying nothing twice")
    .action(async (file: string | undefined, flags: CalibrateFlags) => {
      const data = flags.data ?? file;
      if (
        data === undefined ||
        (flags.data !== undefined && file !== undefined && file !== flags.data)
      ) {
        throw new ConfigError(
          data === undefined
            ? 'verdict calibrate needs the labelled rows: verdict calibrate --metric toxicity --data labels.jsonl. Run "verdict calibrate --help" to see the usage.'
            : `verdict calibrate got two data files, "${file}" and --data "${flags.data}": give one.`,
        );
      }
      const { runCalibrate } = await import("./commands/calibrate.ts");
      setExitCode(
        await runCalibrate({
          metric: flags.metric,
          data,
          inputField: flags.inputField,
          outputField: flags.outputField,
          labelField: flags.labelField,
          idField: flags.idField,
          positiveLabel: flags.positiveLabel,
          negativeLabel: flags.negativeLabel,
          limit: flags.limit,
          threshold: flags.threshold,
          maxExamples: flags.maxExamples,
          outputs: flags.output ?? [],
          outputFile: flags.outputFile,
          maxConcurrent: flags.maxConcurrent,
          judge: flags.judge,
          cache: flags.cache,
          ignoreErrors: flags.ignoreErrors === true,
          identifier: flags.identifier,
          resume: flags.resume === true,
          cwd,
          env,
        }),
      );
    });

  program
    .command("set-model")
    .description("persist the default judge model")
    .argument("<model>", 'e.g. "gpt-4.1", "anthropic:claude-sonnet-4-5", "ollama:llama3.1"')
    .option("--force", "save a model name verdict does not know (e.g. a newer model)")
    .action(async (model: string, flags: { force?: true }) => {
      const { runSetModel } = await import("./commands/set-model.ts");
      setExitCode(await runSetModel({ model, cwd, env, force: flags.force === true }));
    });

  program
    .command("view")
    .description("serve the stored runs as a local dashboard (127.0.0.1 unless --host and --token)")
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
      "interface to listen on; anything but 127.0.0.1 needs --token (0.0.0.0: every interface)",
      nonEmpty("--host"),
      "127.0.0.1",
    )
    .option(
      "--token <token>",
      "require this token on every request (Bearer header or ?token=): at least 16 characters",
      nonEmpty("--token"),
    )
    .option("--open", "open the dashboard in your browser")
    .action(async (flags: { port: number; host: string; token?: string; open?: true }) => {
      const { runView } = await import("./commands/view.ts");
      setExitCode(
        await runView({
          cwd,
          env,
          port: flags.port,
          host: flags.host,
          ...(flags.token === undefined ? {} : { token: flags.token }),
          open: flags.open === true,
        }),
      );
    });

  program
    .command("init")
    .description("scaffold evals/example.eval.ts and .verdict/.gitignore (never overwrites)")
    .action(async () => {
      const { runInit } = await import("./commands/init.ts");
      setExitCode(await runInit({ cwd, env }));
    });

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
      const { runStoreMigrate } = await import("./commands/store.ts");
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
      const { runStoreCopy } = await import("./commands/store.ts");
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
      const { runStoreCopy } = await import("./commands/store.ts");
      setExitCode(await runStoreCopy({ direction: "import", other: flags.from, cwd, env }));
    });

  program
    .command("config")
    .description("print the resolved configuration, secrets masked")
    .action(async () => {
      const { runConfig } = await import("./commands/config.ts");
      setExitCode(await runConfig({ cwd, env, envFiles, version }));
    });

  reportUsageErrors(program, "verdict");
  return program;
}

function oneLine(text: string, env: NodeJS.ProcessEnv): string {
  return redactSecretText(text, { env })
    .trim()
    .replace(/\s*\n\s*/g, " ");
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
    process.stderr.write(`${redactSecretText(text, { env })}\n`);
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
