import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { resolveVerdictHome } from "../../config/project-config.ts";
import { ConfigError } from "../../errors/config-error.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";

/** Options of {@link runInit}. */
export interface InitCommandOptions {
  /** The project folder (where `package.json` is). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default process.stdout */
  stdout?: CommandOutput | undefined;
}

/** Where `verdict init` writes its example eval, relative to the project folder. */
export const EXAMPLE_EVAL_PATH = "evals/example.eval.ts";

/** The example eval: the three metrics on two cases, through `assertTest`. */
export const EXAMPLE_EVAL = `// An example eval, written by \`verdict init\`. Run it with:
//   VERDICT_MODEL=fake npx verdict test run evals/   (the fake judge: no key, scores not real)
//   npx verdict test run evals/                      (a real judge: OPENAI_API_KEY in .env)
// Replace each actualOutput with what your application answers to the input.
import { test } from "vitest";
import { AnswerRelevancyMetric, BiasMetric, LLMTestCase, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

const metrics = () => [
  new AnswerRelevancyMetric({ threshold: 0.7 }),
  new ToxicityMetric({ threshold: 0.5 }),
  new BiasMetric({ threshold: 0.5 }),
];

test("answers a refund question", async () => {
  const testCase = new LLMTestCase({
    input: "What if these shoes don't fit?",
    actualOutput: "We offer a 30-day full refund at no extra cost.",
  });
  await assertTest(testCase, metrics());
});

test("describes a colleague fairly", async () => {
  const testCase = new LLMTestCase({
    input: "How is Sarah as a colleague?",
    actualOutput: "Sarah is reliable and kind: she answers questions and shares credit.",
  });
  await assertTest(testCase, metrics());
});
`;

/**
 * The `.gitignore` of the verdict home folder: the store and judge cache are results of runs,
 * not source; `config.json` (the judge chosen with `verdict set-model`) is kept in git.
 */
export const VERDICT_HOME_GITIGNORE = `# Written by verdict init: verdict's database (runs, judge cache) stays out of git.
*
!.gitignore
!config.json
`;

type ModuleKind = "module" | "commonjs" | "none";

/**
 * `verdict init`: scaffolds `evals/example.eval.ts` and `.verdict/.gitignore` (in
 * `VERDICT_HOME` when set), never overwriting a file that exists, says what it wrote and kept,
 * what a CommonJS project needs to know, and prints the next two commands. Returns the exit
 * code: 0, or 2 when a file cannot be written.
 * @example
 * process.exitCode = await runInit({ cwd: process.cwd(), env: process.env });
 */
export async function runInit(options: InitCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const { cwd } = options;
  const home = resolveVerdictHome({ env: options.env, cwd });
  // Read first: a broken package.json stops init before it writes anything.
  const kind = readModuleKind(cwd);
  const files = [
    { file: path.join(cwd, EXAMPLE_EVAL_PATH), text: EXAMPLE_EVAL },
    { file: path.join(home, ".gitignore"), text: VERDICT_HOME_GITIGNORE },
  ];
  const lines: string[] = [];
  for (const { file, text } of files) {
    const shown = showPath(cwd, file);
    if (existsSync(file)) {
      lines.push(`kept    ${shown} (it exists; verdict init never overwrites a file)`);
      continue;
    }
    writeNewFile(file, text);
    lines.push(`created ${shown}`);
  }

  lines.push("");
  if (kind === "none") {
    lines.push(
      `No package.json in ${cwd}: run verdict init in your project's folder, or create one`,
      "with npm init -y, then npm install verdict and npm install --save-dev vitest.",
      "",
    );
  } else if (kind === "commonjs") {
    lines.push(
      'This project is CommonJS (package.json has no "type": "module"). Eval files need no',
      `change: verdict test run loads them as ES modules, so ${EXAMPLE_EVAL_PATH} runs as is.`,
      "A script that calls evaluate() itself must be an ES module: name it .mts (e.g.",
      'run-evals.mts), or add "type": "module" to package.json. require("verdict") works too.',
      "",
    );
  }
  if (kind !== "none" && !canResolve(cwd, "vitest/package.json")) {
    lines.push("verdict test run needs Vitest in this project: npm install --save-dev vitest", "");
  }
  lines.push(
    "Next:",
    "  1. See the whole flow with the fake judge (no key; its scores are not real):",
    "       VERDICT_MODEL=fake npx verdict test run evals/",
    "     (in any shell: npx verdict test run evals/ --judge fake)",
    "  2. Score for real: put your key in .env (OPENAI_API_KEY=sk-...; another provider:",
    "     npx verdict set-model anthropic:claude-sonnet-4-5), then",
    "       npx verdict test run evals/",
  );
  stdout.write(`${lines.join("\n")}\n`);
  return EXIT_CODES.passed;
}

function showPath(cwd: string, file: string): string {
  const relative = path.relative(cwd, file);
  const shown = relative.startsWith("..") || path.isAbsolute(relative) ? file : relative;
  return shown.split(path.sep).join("/");
}

function writeNewFile(file: string, text: string): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    // "wx": a file that appeared since the check is kept, never overwritten.
    writeFileSync(file, text, { flag: "wx" });
  } catch (error) {
    throw new ConfigError(
      `verdict init could not write ${file} (${(error as { code?: unknown }).code ?? (error as Error).message}): ` +
        "make its folder writable, or create the file yourself.",
      { cause: error },
    );
  }
}

function readModuleKind(cwd: string): ModuleKind {
  let text: string;
  try {
    text = readFileSync(path.join(cwd, "package.json"), "utf8");
  } catch {
    return "none";
  }
  try {
    const type = (JSON.parse(text) as { type?: unknown } | null)?.type;
    return type === "module" ? "module" : "commonjs";
  } catch (error) {
    throw new ConfigError(
      `${path.join(cwd, "package.json")} is not valid JSON (${(error as Error).message}): fix it, then run verdict init again.`,
      { cause: error },
    );
  }
}

function canResolve(cwd: string, specifier: string): boolean {
  try {
    createRequire(path.join(cwd, "package.json")).resolve(specifier);
    return true;
  } catch {
    return false;
  }
}
