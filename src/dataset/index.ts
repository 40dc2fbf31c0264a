export {
  type ApplicationOutput,
  type BuildTestCasesOptions,
  buildTestCases,
  type GoldenApplication,
} from "./build-test-cases.ts";
export { DatasetFileError, type DatasetFileErrorOptions } from "./dataset-file-error.ts";
export type { DatasetFormat } from "./dataset-format.ts";
export {
  EvaluationDataset,
  type EvaluationDatasetOptions,
  type ToTestCasesOptions,
} from "./evaluation-dataset.ts";
export type { GoldenColumns, GoldenField } from "./golden-columns.ts";
export { type ReadGoldensOptions, readGoldens } from "./read-goldens.ts";
export {
  TestCaseBuildError,
  type TestCaseBuildErrorOptions,
  type TestCaseBuildFailure,
} from "./test-case-build-error.ts";
export { type WriteGoldensOptions, writeGoldens } from "./write-goldens.ts";
