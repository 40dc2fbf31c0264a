import { Golden, type GoldenFields } from "../test-case/golden.ts";
import {
  type LLMTestCase,
  type LLMTestCaseFields,
  toTestCase,
} from "../test-case/llm-test-case.ts";
// Types only: the readers, writers and the application runner (and the CSV library) load
// when a dataset first reads, writes or runs, not with `import "verdict"`.
import type { BuildTestCasesOptions } from "./build-test-cases.ts";
import type { ReadGoldensOptions } from "./read-goldens.ts";
import type { WriteGoldensOptions } from "./write-goldens.ts";

/** Options of the {@link EvaluationDataset} constructor. */
export interface EvaluationDatasetOptions {
  /** Goldens to start with (plain objects are validated into {@link Golden}s). */
  goldens?: ReadonlyArray<Golden | GoldenFields>;
  /** Test cases to start with (plain objects are validated into test cases). */
  testCases?: ReadonlyArray<LLMTestCase | LLMTestCaseFields>;
}

/** Options of {@link EvaluationDataset.toTestCases}. */
export type ToTestCasesOptions = Omit<BuildTestCasesOptions, "goldens">;

/**
 * A set of goldens (inputs with what is known about them) and test cases. Goldens are read
 * from and saved to JSON (an array of objects), JSON Lines and CSV files, which round-trip
 * unchanged; an application turns them into test cases for {@link evaluate}.
 *
 * Errors: a bad record in a file is a `DatasetFileError` (code `INVALID_TEST_CASE`) whose
 * message starts with `file:line:`; a wrong call (unknown format or column mapping, a file
 * that does not exist, data a format cannot hold) is a `ConfigError`.
 * @example
 * const dataset = await EvaluationDataset.fromFile({ path: "goldens.csv" });
 * const testCases = await dataset.toTestCases({ application: (input) => chatbot.answer(input) });
 * await evaluate({ testCases, metrics: [new AnswerRelevancyMetric()] });
 */
export class EvaluationDataset {
  readonly #goldens: Golden[] = [];
  readonly #testCases: LLMTestCase[] = [];

  constructor(options: EvaluationDatasetOptions = {}) {
    for (const golden of options.goldens ?? []) this.addGolden(golden);
    for (const testCase of options.testCases ?? []) this.addTestCase(testCase);
  }

  /**
   * A dataset with the goldens of a JSON, JSONL or CSV file.
   * @example
   * const dataset = await EvaluationDataset.fromFile({
   *   path: "support.csv",
   *   columns: { input: "question", expectedOutput: "answer" },
   * });
   */
  static async fromFile(options: ReadGoldensOptions): Promise<EvaluationDataset> {
    const dataset = new EvaluationDataset();
    await dataset.addGoldensFromFile(options);
    return dataset;
  }

  /** The goldens, in the order they were added. */
  get goldens(): readonly Golden[] {
    return this.#goldens;
  }

  /** The test cases, in the order they were added. */
  get testCases(): readonly LLMTestCase[] {
    return this.#testCases;
  }

  /** Adds a golden (a plain object is validated first) and returns it. */
  addGolden(golden: Golden | GoldenFields): Golden {
    const added = golden instanceof Golden ? golden : new Golden(golden);
    this.#goldens.push(added);
    return added;
  }

  /** Adds a test case (a plain object is validated first) and returns it. */
  addTestCase(testCase: LLMTestCase | LLMTestCaseFields): LLMTestCase {
    const added = toTestCase(testCase);
    this.#testCases.push(added);
    return added;
  }

  /**
   * Adds the goldens of a JSON, JSONL or CSV file (all of them, or none when one record is
   * bad) and returns them.
   * @example
   * await dataset.addGoldensFromFile({ path: "extra.jsonl" });
   */
  async addGoldensFromFile(options: ReadGoldensOptions): Promise<Golden[]> {
    const { readGoldens } = await import("./read-goldens.ts");
    const goldens = await readGoldens(options);
    this.#goldens.push(...goldens);
    return goldens;
  }

  /**
   * Saves the goldens as a pretty-printed JSON array, JSON Lines or CSV (format from the
   * extension, or `format`), so that {@link EvaluationDataset.fromFile} reads them back
   * unchanged. Test cases are not saved.
   * @example
   * await dataset.save({ path: "goldens.jsonl" });
   */
  async save(options: WriteGoldensOptions): Promise<void> {
    const { writeGoldens } = await import("./write-goldens.ts");
    await writeGoldens({ ...options, goldens: this.#goldens });
  }

  /**
   * Builds one test case per golden by calling `application(golden.input, golden)` (at most
   * `concurrency` at once, default 8) and putting its answer in `actualOutput` — or, for an
   * object answer, `actualOutput` plus the `retrievalContext`, `context` and `toolsCalled` it
   * gives. Returns them in golden order; they are not added to `testCases`.
   * @throws TestCaseBuildError when the application failed on some goldens: it lists them,
   * and carries the test cases of the others on `testCases`.
   * @example
   * const testCases = await dataset.toTestCases({
   *   application: async (input) => {
   *     const { answer, sources } = await rag.ask(input);
   *     return { actualOutput: answer, retrievalContext: sources };
   *   },
   * });
   */
  async toTestCases(options: ToTestCasesOptions): Promise<LLMTestCase[]> {
    const { buildTestCases } = await import("./build-test-cases.ts");
    return buildTestCases({ ...options, goldens: this.#goldens });
  }
}
