import { resolveVerdictHome } from "../../config/project-config.ts";
import { REQUEST_SLOTS_ENV } from "../../vitest/request-slots.ts";
import { toTestRunEnvironment } from "../../vitest/test-run-settings.ts";
import type { TestRunCommandOptions } from "./test-run-command-options.ts";

/**
 * The environment of `verdict test run`'s Vitest workers: the caller's, with the flags as
 * `VERDICT_*` variables, an absolute `VERDICT_HOME`, and where the request slot broker listens.
 */
export function testRunEnvironment(
  options: TestRunCommandOptions,
  brokerAddress: string,
): NodeJS.ProcessEnv {
  const { cwd } = options;
  return {
    ...options.env,
    // Absolute, so the workers, whatever their working folder, share this store and cache.
    VERDICT_HOME: resolveVerdictHome({ env: options.env, cwd }),
    [REQUEST_SLOTS_ENV]: brokerAddress,
    ...(options.judge === undefined ? {} : { VERDICT_MODEL: options.judge }),
    ...(options.judgeText === undefined ? {} : { VERDICT_JUDGE_TEXT: options.judgeText }),
    ...toTestRunEnvironment({
      settings: {
        ...(options.cache ? {} : { cache: false }),
        ...(options.ignoreErrors ? { ignoreErrors: true } : {}),
        ...(options.skipOnMissingParams ? { skipOnMissingParams: true } : {}),
        ...(options.verbose ? { verbose: true } : {}),
        ...(options.maxConcurrent === undefined ? {} : { maxConcurrent: options.maxConcurrent }),
        ...(options.repeat === undefined ? {} : { repeat: options.repeat }),
        ...(options.dryRun ? { dryRun: true } : {}),
      },
    }),
  };
}
