import type { JudgeModel } from "../judge/judge-model.ts";
import { resolveJudge } from "../judge/resolve-model.ts";
import type { BaseMetric } from "../metrics/base-metric.ts";

/**
 * Resolves each metric's judge once per distinct model (same string or object → the same
 * judge), before any test case runs, so a missing key fails the run at once.
 */
export async function resolveJudges(options: {
  metrics: ReadonlyArray<BaseMetric<object>>;
  env: NodeJS.ProcessEnv;
}): Promise<Map<BaseMetric<object>, JudgeModel>> {
  const bySpec = new Map<unknown, Promise<JudgeModel>>();
  const judges = new Map<BaseMetric<object>, JudgeModel>();
  for (const metric of options.metrics) {
    const spec = metric.model ?? options.env.VERDICT_MODEL ?? null;
    let judge = bySpec.get(spec);
    if (!judge) {
      judge = resolveJudge({ model: metric.model, env: options.env });
      bySpec.set(spec, judge);
    }
    judges.set(metric, await judge);
  }
  return judges;
}
