import { ConfigError } from "../errors/config-error.ts";
import {
  formatPassRate,
  formatRateInterval,
  formatScore,
  formatScoreInterval,
} from "../report/format.ts";
import type { EvaluationSummary } from "../results/evaluation-result.ts";
import type { StoredRun } from "../store/run-store.ts";
import type { FineTuningCheckpoint } from "./fine-tuning-job.ts";

/** One checkpoint, scored: its stored run and the run's summary. */
export interface CheckpointEvaluation {
  checkpoint: FineTuningCheckpoint;
  /** Counted from 1 (see `CheckpointMetadata.epoch`). */
  epoch: number | null;
  /** The stored run of its scores (identifier `finetune:<job>` unless set otherwise). */
  run: StoredRun;
  summary: EvaluationSummary;
  /** Scored by an earlier watch of the job and read from the store, not scored again. */
  reused: boolean;
}

/** The checkpoint with the best mean score on the chosen metric. */
export interface BestCheckpoint {
  evaluation: CheckpointEvaluation;
  metric: string;
  lowerIsBetter: boolean;
  meanScore: number;
  /** 95% interval of the mean score. */
  meanScoreInterval: [number, number] | null;
  passRate: number | null;
  passRateInterval: [number, number] | null;
}

const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/**
 * The metric name `wanted` stands for among `names`: the same name whatever its case, spaces
 * and dashes (`"answer-relevancy"`), or the end of one name only (`"relevancy"`).
 * @throws ConfigError naming the metrics there are.
 */
export function resolveMetricName(options: {
  wanted: string;
  names: readonly string[];
  option: string;
}): string {
  const { wanted, names } = options;
  const target = normalise(wanted);
  const exact = names.find((name) => normalise(name) === target);
  if (exact !== undefined) return exact;
  const endings = names.filter((name) => target !== "" && normalise(name).endsWith(target));
  if (endings.length === 1) return endings[0] as string;
  throw new ConfigError(
    `${options.option} "${wanted}" names none of the metrics scored: use one of ${names.map((name) => `"${name}"`).join(", ")}.`,
  );
}

/**
 * The best checkpoint by `metric`'s mean score (lowest for metrics where lower is better);
 * the earliest step wins a tie. `null` when no checkpoint has a score on it.
 */
export function pickBestCheckpoint(options: {
  evaluations: readonly CheckpointEvaluation[];
  metric: string;
}): BestCheckpoint | null {
  let best: BestCheckpoint | null = null;
  const ordered = [...options.evaluations].sort(
    (left, right) => left.checkpoint.step - right.checkpoint.step,
  );
  for (const evaluation of ordered) {
    const summary = evaluation.summary.metrics.find((metric) => metric.name === options.metric);
    if (summary === undefined || summary.meanScore === null) continue;
    const better =
      best === null ||
      (summary.lowerIsBetter
        ? summary.meanScore < best.meanScore
        : summary.meanScore > best.meanScore);
    if (!better) continue;
    best = {
      evaluation,
      metric: summary.name,
      lowerIsBetter: summary.lowerIsBetter,
      meanScore: summary.meanScore,
      meanScoreInterval: summary.meanScoreInterval ?? null,
      passRate: summary.passRate,
      passRateInterval: summary.passRateInterval ?? null,
    };
  }
  return best;
}

/** `step 20, epoch 2 (ft:…:ckpt-step-20)`. */
export function describeCheckpoint(options: {
  checkpoint: FineTuningCheckpoint;
  epoch: number | null;
}): string {
  const epoch = options.epoch === null ? "" : `, epoch ${options.epoch}`;
  return `step ${options.checkpoint.step}${epoch} (${options.checkpoint.model})`;
}

/** The lines that name the best checkpoint, with its intervals and its run. */
export function describeBestCheckpoint(best: BestCheckpoint): string {
  const direction = best.lowerIsBetter ? "lower is better" : "higher is better";
  const meanInterval = formatScoreInterval(best.meanScoreInterval);
  const rateInterval = formatRateInterval(best.passRateInterval);
  const rate =
    best.passRate === null
      ? ""
      : `, pass rate ${formatPassRate(best.passRate)}${rateInterval ? ` (95% CI ${rateInterval})` : ""}`;
  return (
    `Best checkpoint by ${best.metric} (${direction}): ${describeCheckpoint(best.evaluation)}\n` +
    `  mean score ${formatScore(best.meanScore)}${meanInterval ? ` (95% CI ${meanInterval})` : ""}${rate}; run ${best.evaluation.run.id}\n`
  );
}
