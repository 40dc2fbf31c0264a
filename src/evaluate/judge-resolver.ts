import { loadProcessEnvFiles } from "../config/load-env-files.ts";
import type { JudgeModel } from "../judge/judge-model.ts";
import { resolveJudge } from "../judge/resolve-model.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";

/**
 * The judges of one run: each metric's judge is resolved once, and metrics naming the same
 * model (the same string or object, or none: `VERDICT_MODEL`, else the saved default) share one.
 */
export class JudgeResolver {
  private readonly env: NodeJS.ProcessEnv;
  private readonly bySpec = new Map<unknown, Promise<JudgeModel>>();
  private readonly byMetric = new Map<BaseMetric<object>, JudgeModel>();

  /** `process.env` is first completed from the working directory's `.env` files (once). */
  constructor(env: NodeJS.ProcessEnv) {
    // Before anything reads VERDICT_MODEL, VERDICT_HOME or a key: a script's .env counts as
    // much as the CLI's.
    loadProcessEnvFiles(env);
    this.env = env;
  }

  /** Resolves the judges of these metrics (a missing key or unknown model fails here, at once). */
  async resolve(metrics: Iterable<BaseMetric<object>>): Promise<void> {
    for (const metric of metrics) {
      if (this.byMetric.has(metric)) continue;
      const spec = metric.model ?? this.env.VERDICT_MODEL ?? null;
      let judge = this.bySpec.get(spec);
      if (!judge) {
        judge = resolveJudge({ model: metric.model, env: this.env });
        this.bySpec.set(spec, judge);
      }
      this.byMetric.set(metric, await judge);
    }
  }

  /** The judge of a metric already passed to {@link resolve}. */
  judgeOf(metric: BaseMetric<object>): JudgeModel {
    const judge = this.byMetric.get(metric);
    if (!judge) throw new Error(`The judge of metric "${metric.name}" was not resolved first.`);
    return judge;
  }

  /** The judge's name, or `null` before it is resolved: what a run's configuration records. */
  nameOf(metric: BaseMetric<object>): string | null {
    return this.byMetric.get(metric)?.name ?? null;
  }

  /** Each metric's configuration and judge, as a stored run keeps it. */
  describe(metrics: ReadonlyArray<BaseMetric<object>>): Array<Record<string, unknown>> {
    return metrics.map((metric) => ({ ...metric.config(), judge: this.nameOf(metric) }));
  }
}
