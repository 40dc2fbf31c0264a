import { createHtmlReporter } from "../../report/html-report.ts";
import { createJsonReporter } from "../../report/json-report.ts";
import { createJUnitReporter } from "../../report/junit-report.ts";
import { createMarkdownReporter } from "../../report/markdown-report.ts";
import type { RunReporter } from "../../results/runner-events.ts";
import type { OutputFormat } from "../output-targets.ts";

/** Options of {@link createOutputReporter}. */
export interface CreateOutputReporterOptions {
  output: OutputFormat;
  /** Absolute path of the report file. */
  file: string;
  /** The CI shard the run covers, `"i/n"`: recorded in the JSON report for `verdict merge`. */
  shard?: string | undefined;
}

/**
 * The reporter that writes an `--output` report when the run ends.
 * @example
 * createOutputReporter({ output: "junit", file: "/ci/verdict-report.xml" });
 */
export function createOutputReporter(options: CreateOutputReporterOptions): RunReporter {
  if (options.output === "json") {
    return createJsonReporter({
      file: options.file,
      ...(options.shard === undefined ? {} : { shard: options.shard }),
    });
  }
  if (options.output === "junit") return createJUnitReporter({ file: options.file });
  if (options.output === "markdown") return createMarkdownReporter({ file: options.file });
  return createHtmlReporter({ file: options.file });
}
