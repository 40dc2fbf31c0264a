import { existsSync, statSync } from "node:fs";
import type { OutputTarget } from "../output-targets.ts";

/**
 * Says which reports were written; returns those that were not (no file written since the run
 * started: a file left by an earlier run does not count).
 */
export function printWrittenReports(
  targets: readonly OutputTarget[],
  startedAt = 0,
): OutputTarget[] {
  const unwritten: OutputTarget[] = [];
  for (const target of targets) {
    if (existsSync(target.file) && statSync(target.file).mtimeMs >= startedAt) {
      process.stdout.write(`Report written to ${target.file}\n`);
    } else unwritten.push(target);
  }
  return unwritten;
}
