/**
 * `verdict/testing/metric-contract`: the Vitest suites metrics keep, for a metric of your own:
 * `describeCustomMetricContract` for any metric (defineMetric, GEval, a BaseMetric subclass),
 * `describeMetricContract` for extract → verdict → reason metrics. Needs Vitest.
 * @packageDocumentation
 */
export {
  type CustomMetricContractOptions,
  describeCustomMetricContract,
} from "./metric-contract/custom-metric-contract.ts";
export { describeMetricContract } from "./metric-contract/metric-contract.ts";
export { opinionMetricContract } from "./metric-contract/opinion-metric-contract.ts";
export type { MetricContractOptions } from "./metric-contract/scripted-metric-contract.ts";
