export {
  type RoleViolationDetectArgs,
  type RoleViolationReasonArgs,
  RoleViolationTemplate,
  type RoleViolationVerdictsArgs,
} from "./prompts.ts";
export {
  RoleViolationMetric,
  type RoleViolationMetricOptions,
  type RoleViolationTemplateFunctions,
} from "./role-violation-metric.ts";
