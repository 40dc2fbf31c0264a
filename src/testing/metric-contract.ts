/**
 * `verdict/testing/metric-contract`: the Vitest suite every extract → verdict → reason metric
 * keeps (the built-in ones run it), for a metric of your own. Needs Vitest.
 * @packageDocumentation
 */
export { describeMetricContract } from "./metric-contract/metric-contract.ts";
export { opinionMetricContract } from "./metric-contract/opinion-metric-contract.ts";
export type { MetricContractOptions } from "./metric-contract/scripted-metric-contract.ts";
