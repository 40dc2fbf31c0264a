import { EvalError } from "../errors/eval-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";

/** Options of {@link DatasetFileError}. */
export interface DatasetFileErrorOptions {
  /** The dataset file, as it was given. */
  path: string;
  /** 1-based line where the bad record starts, when known. */
  line: number | null;
  /** 0-based position of the bad record among the file's goldens, when known. */
  item: number | null;
  /** What the file's records are, in the message: `(golden #3)`, `(row #3)`. @default "golden" */
  itemNoun?: string | undefined;
  /** What is wrong and what to do, without the location. */
  problem: string;
  cause?: unknown;
}

/**
 * A dataset file holds a record that cannot become a golden: bad JSON, an empty input, a
 * list cell that is not a list… Its message starts with `file:line:` so editors and
 * terminals can jump to it; `path`, `line` and `item` carry the same for programs.
 * Code `INVALID_TEST_CASE`. (Problems with the call itself — an unknown format, an unknown
 * column mapping, a missing file — are `ConfigError`s.)
 */
export class DatasetFileError extends EvalError {
  readonly path: string;
  readonly line: number | null;
  readonly item: number | null;
  readonly problem: string;

  constructor(options: DatasetFileErrorOptions) {
    const where = options.line === null ? options.path : `${options.path}:${options.line}`;
    const item = options.item === null ? "" : ` (${options.itemNoun ?? "golden"} #${options.item})`;
    super("INVALID_TEST_CASE", `${where}${item}: ${options.problem}`, { cause: options.cause });
    this.path = options.path;
    this.line = options.line;
    this.item = options.item;
    this.problem = redactSecretText(options.problem);
  }
}
