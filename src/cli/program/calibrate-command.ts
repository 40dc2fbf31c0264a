import { type Command, Option } from "commander";
import { ConfigError } from "../../errors/config-error.ts";
import type { OutputRequest } from "../output-targets.ts";
import type { CommandContext } from "./command-context.ts";
import { countOrZero, nonEmpty, outputRequest, threshold, wholeNumber } from "./flag-parsers.ts";

interface CalibrateFlags {
  metric: string;
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

/** `verdict calibrate`: a metric's agreement with human labels. */
export function defineCalibrateCommand(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
  program
    .command("calibrate")
    .description(
      "agreement of a metric with human labels: accuracy, κ, F1, ROC AUC, best threshold",
    )
    .argument("[file]", "the labelled rows (.jsonl, .json or .csv); or --data FILE")
    .addOption(
      new Option(
        "--metric <name|module>",
        "the metric to calibrate: toxicity, bias, relevancy, faithfulness, summarization, pii-leakage, contextual-relevancy, contextual-precision, contextual-recall, hallucination, or a module exporting one (./metrics.ts#politeness)",
      )
        .argParser(nonEmpty("--metric"))
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
      'label of a positive row: toxic, biased, relevant, hallucinated… (default "1")',
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
      const { runCalibrate } = await import("../commands/calibrate.ts");
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
}
