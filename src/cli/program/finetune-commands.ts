import type { Command } from "commander";
import type { CommandContext } from "./command-context.ts";
import { alpha, maxDrop, nonEmpty, positiveSeconds, wholeNumber } from "./flag-parsers.ts";

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

/** `verdict finetune watch <job-id>`: score a fine-tuning job's checkpoints as they appear. */
export function defineFinetuneCommands(program: Command, context: CommandContext): void {
  const { cwd, env, setExitCode } = context;
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
      "comma-separated metrics: toxicity, bias, relevancy, faithfulness, summarization, pii-leakage, hallucination",
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
      const { runFinetuneWatch } = await import("../commands/finetune-watch.ts");
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
}
