import { EvalError } from "../errors/eval-error.ts";
import { toJsonValue } from "../results/to-json-value.ts";
import { checkImage, isImagePart } from "../test-case/image.ts";
import { describeValue, type LLMTestCaseFields, nameOf } from "../test-case/llm-test-case.ts";

/** What an invalid case's result shows: its name and its fields as text, read safely. */
export type ShownCase = Pick<
  LLMTestCaseFields,
  "name" | "input" | "actualOutput" | "expectedOutput"
>;

/** One case after its check: made and usable, or why not (with what its result shows). */
export type CheckedCase<Case> =
  | { testCase: Case; error: null }
  | { testCase: null; error: EvalError; shown: ShownCase };

const CONTENT_FIELDS = ["input", "actualOutput", "expectedOutput"] as const;
// Cases whose image files are opened at once: enough to overlap reads, few open files.
const CONCURRENT_CHECKS = 16;

/** `Test case #3 "q-12" (testCases[3])`: index and name, as messages name a case. */
export function nameCase(options: { kind: string; list: string; index: number; value: unknown }) {
  const name = nameOf(options.value);
  return `${options.kind} #${options.index}${name === null ? "" : ` ${JSON.stringify(name)}`} (${options.list}[${options.index}])`;
}

function readField(value: unknown, field: string): unknown {
  try {
    return (value as Record<string, unknown> | null | undefined)?.[field];
  } catch {
    return undefined;
  }
}

/** Content as plain text for the result of an invalid case; never throws. */
function shownContent(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value
      .map((part) =>
        typeof part === "string" ? part : isImagePart(part) ? "[image]" : "[invalid part]",
      )
      .join("");
  }
  const json = toJsonValue(value, { maxTotalLength: 2_000 });
  return typeof json === "string" ? json : JSON.stringify(json);
}

function showCase(value: unknown): ShownCase {
  const shown: ShownCase = { input: shownContent(readField(value, "input")) ?? "" };
  const name = nameOf(value);
  if (name !== null) shown.name = name;
  for (const field of ["actualOutput", "expectedOutput"] as const) {
    const text = shownContent(readField(value, field));
    if (text !== undefined) shown[field] = text;
  }
  return shown;
}

/** The problem of a case that could not be made, without the case's own name in front. */
function describeMakeError(error: unknown): string {
  const problem = (error as { problem?: unknown } | null)?.problem;
  if (typeof problem === "string") return problem;
  return error instanceof Error ? error.message : String(error);
}

async function checkImages(testCase: LLMTestCaseFields): Promise<string | null> {
  const checks: Array<Promise<string | null>> = [];
  for (const field of CONTENT_FIELDS) {
    const content = testCase[field];
    if (content === undefined || typeof content === "string") continue;
    for (const [position, part] of content.entries()) {
      if (!isImagePart(part)) continue;
      checks.push(
        checkImage(part).then(
          () => null,
          (error: unknown) =>
            `"${field}[${position}]": ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    }
  }
  const problems = (await Promise.all(checks)).filter((problem) => problem !== null);
  return problems.length === 0 ? null : problems.join("; ");
}

/**
 * Checks every case on its own, before a run: makes it (fields validated) and checks its
 * images (files opened and sniffed, without keeping their bytes). One bad case never hides
 * the others: each gets its own outcome, and an invalid one an error naming it by index and
 * name, with the field and what to do.
 */
export async function checkTestCases<Case extends LLMTestCaseFields>(options: {
  values: readonly unknown[];
  /** Makes a case from a value; throws when its fields are invalid. */
  make: (value: unknown) => Case;
  /** `"Test case"` or `"Golden"`. */
  kind: string;
  /** The option the values came from: `"testCases"` or `"goldens"`. */
  list: string;
  /** The index of the first value in the whole list (cases checked as they stream in). @default 0 */
  firstIndex?: number;
}): Promise<Array<CheckedCase<Case>>> {
  const { values, make } = options;
  const firstIndex = options.firstIndex ?? 0;
  const checked: Array<CheckedCase<Case>> = new Array(values.length);
  const checkOne = async (index: number) => {
    const value = values[index];
    const fail = (problem: string) => {
      const where = nameCase({ ...options, index: firstIndex + index, value });
      checked[index] = {
        testCase: null,
        error: new EvalError(
          "INVALID_TEST_CASE",
          `${where} is invalid: ${problem.replace(/[.\s]*$/, ".")}`,
        ),
        shown: showCase(value),
      };
    };
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      fail(
        `must be an object with at least an "input" (or an LLMTestCase); got ${describeValue(value)}`,
      );
      return;
    }
    let testCase: Case;
    try {
      testCase = make(value);
    } catch (error) {
      fail(describeMakeError(error));
      return;
    }
    const imageProblem = await checkImages(testCase);
    if (imageProblem !== null) fail(imageProblem);
    else checked[index] = { testCase, error: null };
  };
  let next = 0;
  const worker = async () => {
    while (next < values.length) await checkOne(next++);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CHECKS, values.length) }, worker));
  return checked;
}

/**
 * The error that stops a run without `ignoreErrors`: the first invalid case's, saying how
 * many others are invalid and how to score the rest anyway.
 */
export function firstInvalidCase<Case>(
  checked: ReadonlyArray<CheckedCase<Case>>,
  kind: string,
): EvalError | null {
  const invalid = checked.filter((entry) => entry.error !== null);
  const [first] = invalid;
  if (first === undefined || first.error === null) return null;
  const others =
    invalid.length > 1
      ? ` (${invalid.length - 1} more ${kind.toLowerCase()}s are invalid too.)`
      : "";
  const plural = `${kind.toLowerCase()}s`;
  return new EvalError(
    "INVALID_TEST_CASE",
    `${first.error.message} Fix it, or pass ignoreErrors: true to score the other ${plural} and report the invalid ones as errored.${others}`,
  );
}
