import type { BaseMetric } from "../metrics/base-metric.ts";
import type { MetricRunResult } from "../metrics/metric-run-result.ts";

/**
 * Runs one job per metric and returns the outcomes in the jobs' order: metrics in async
 * mode all at once, then those with `asyncMode: false` one at a time, after the others.
 */
export async function runMetrics<Job extends { metric: BaseMetric<object> }>(options: {
  jobs: readonly Job[];
  run: (job: Job) => Promise<MetricRunResult>;
}): Promise<MetricRunResult[]> {
  const { jobs, run } = options;
  const outcomes: MetricRunResult[] = new Array(jobs.length);
  await Promise.all(
    jobs.map(async (job, position) => {
      if (job.metric.asyncMode) outcomes[position] = await run(job);
    }),
  );
  for (const [position, job] of jobs.entries()) {
    if (!job.metric.asyncMode) outcomes[position] = await run(job);
  }
  return outcomes;
}
