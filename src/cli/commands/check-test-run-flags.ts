import { statSync } from "node:fs";
import path from "node:path";
import { parseShard } from "../../store/run-shards.ts";
import { type OutputTarget, resolveOutputTargets } from "../output-targets.ts";
import { posixPath } from "../posix-path.ts";
import type { TestRunCommandOptions } from "./test-run-command-options.ts";
import { refuseWithWatch } from "./watch-session.ts";

/**
 * Checks the flags of `verdict test run` before anything starts: the usage error to print
 * (the first one found), or what the flags resolve to: the Vitest `include` globs of the
 * paths and the `--output` reports.
 */
export function checkTestRunFlags(
  options: TestRunCommandOptions,
): { include: string[]; targets: OutputTarget[] } | string {
  const { cwd } = options;
  if (options.shard !== undefined) {
    // The rule evaluate() applies (parseShard): a count too large to be exact is refused here
    // too, rather than accepted and then run unsharded.
    if (parseShard(options.shard) === null) {
      return `--shard takes i/n with 1 <= i <= n, e.g. --shard 1/3; got "${options.shard}".`;
    }
  }
  for (const [flag, value] of [
    ["--max-concurrent", options.maxConcurrent],
    ["--repeat", options.repeat],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      return `${flag} takes a whole number of 1 or more; got ${value}.`;
    }
  }
  if (options.resume && options.identifier === undefined) {
    return "--resume needs --identifier NAME: the name of the run to continue (as given when it started).";
  }
  const watchConflict = options.watch ? refuseWithWatch(options) : null;
  if (watchConflict !== null) return watchConflict;
  if (options.resume && !options.cache) {
    return "--resume reuses the judge answers of the finished cases from the judge cache: leave out --no-cache.";
  }
  const include = includePatterns({ paths: options.paths, cwd });
  if (typeof include === "string") return include;
  if (options.dryRun && (options.outputs?.length ?? 0) > 0) {
    return "--dry-run writes no report, it prints the estimate: leave out --output.";
  }

  const targets = resolveOutputTargets({
    outputs: options.outputs ?? [],
    outputFile: options.outputFile,
    cwd,
  });
  if (typeof targets === "string") return targets;
  return { include, targets };
}

/** The Vitest `include` globs for the given paths, or an error message. */
function includePatterns(options: { paths: string[]; cwd: string }): string[] | string {
  if (options.paths.length === 0) return ["**/*.eval.ts"];
  const patterns: string[] = [];
  for (const given of options.paths) {
    const absolute = path.resolve(options.cwd, given);
    const stat = statSync(absolute, { throwIfNoEntry: false });
    if (stat === undefined) return `No such file or folder: "${given}" (looked in ${options.cwd}).`;
    const relative = posixPath(path.relative(options.cwd, absolute));
    const base =
      relative.startsWith("..") || path.isAbsolute(relative) ? posixPath(absolute) : relative;
    if (stat.isDirectory()) patterns.push(base === "" ? "**/*.eval.ts" : `${base}/**/*.eval.ts`);
    else patterns.push(base);
  }
  return patterns;
}
