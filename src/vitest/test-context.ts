import { AsyncLocalStorage } from "node:async_hooks";
import {
  aroundEach,
  type RunnerTask,
  type RunnerTestCase,
  type RunnerTestFile,
  TestRunner,
} from "vitest";
import { ConfigError } from "../errors/config-error.ts";

// On globalThis: the setup file that fills it and the assertions that read it may be loaded as
// two copies of this module (one through Vite's module runner, one by Node), yet must share it.
const STORAGE_KEY = Symbol.for("verdict.vitest.test-context");

function storage(): AsyncLocalStorage<RunnerTestCase> {
  const holder = globalThis as { [STORAGE_KEY]?: AsyncLocalStorage<RunnerTestCase> };
  holder[STORAGE_KEY] ??= new AsyncLocalStorage();
  return holder[STORAGE_KEY];
}

/**
 * Makes every test of the current test file run with its own task in an async context, so that
 * `assertTest` and `toPass` file each result under the test that asked for it, however many
 * tests run at once. Called by verdict's setup file (`verdict/vitest/setup`), which
 * `verdict test run` adds to every run; users of plain `vitest` add that file to `setupFiles`.
 * It registers an `aroundEach` hook, so it must run where hooks may be registered (a setup
 * file, or the top of a test file).
 */
export function trackTestContext(): void {
  aroundEach(async (runTest, { task }) => {
    await storage().run(task, runTest);
  });
}

/** Options of {@link currentTest}. */
export interface CurrentTestOptions {
  /** The test given by the caller (`{ task }`): always wins. */
  task: RunnerTestCase | undefined;
  /** The test Vitest bound to the matcher's `expect` (`this.task` of `toPass`), if any. */
  boundTask?: RunnerTestCase | undefined;
  /** What is asking, for the error message: `"assertTest"` or `"toPass"`. */
  caller: string;
}

/** The tests of a file that are running now (started and not finished). */
function runningTestsOf(file: RunnerTestFile): RunnerTestCase[] {
  const running: RunnerTestCase[] = [];
  const visit = (tasks: readonly RunnerTask[]) => {
    for (const child of tasks) {
      if (child.type === "test" && child.result?.state === "run") running.push(child);
      if (child.type === "suite") visit(child.tasks);
    }
  };
  visit(file.tasks);
  return running;
}

/** The test file this worker runs now (Vitest's worker state), when Vitest says. */
function currentFile(): RunnerTestFile | undefined {
  const worker = (globalThis as { __vitest_worker__?: { current?: RunnerTestFile } })
    .__vitest_worker__;
  return worker?.current;
}

/**
 * The test an assertion runs in, told by the test's own async context, never by a guess: the
 * caller's `task`, else the context set up by {@link trackTestContext}, else the test bound to
 * the context's `expect`, else the only test of the file running now.
 * `undefined` outside a test.
 * @throws {ConfigError} when several tests run at once and nothing tells which one asks.
 */
export function currentTest(options: CurrentTestOptions): RunnerTestCase | undefined {
  if (options.task) return options.task;
  const tracked = storage().getStore();
  if (tracked) return tracked;
  // Vitest's "current test" is the last one started (or none once it ended): with concurrent
  // tests, a guess. A matcher's task differs from it only when the context's `expect` bound it.
  const latest = TestRunner.getCurrentTest() as RunnerTestCase | undefined;
  if (options.boundTask && options.boundTask !== latest) return options.boundTask;
  const file = latest?.file ?? currentFile();
  const running = file ? runningTestsOf(file) : [];
  if (running.length === 0) return latest;
  if (running.length === 1) return running[0];
  throw new ConfigError(
    `${options.caller} cannot tell which test it runs in: ${running.length} tests of ` +
      `${file?.name} run at once. Add "verdict/vitest/setup" to Vitest's setupFiles ` +
      `(verdict test run does it for you), or pass the test's task: ` +
      `test("…", async ({ task }) => { await assertTest(testCase, metrics, { task }); }).`,
  );
}
