/**
 * `verdict/calibrate`: how well a metric agrees with people — `calibrate()` runs it over
 * labelled rows and compares its calls with the labels.
 * @packageDocumentation
 */
export { type CalibrateOptions, type CalibrationMetricName, calibrate } from "./calibrate.ts";
