import path from "node:path";

/** The report formats of `--output`. */
export const OUTPUT_FORMATS = ["json", "junit", "html", "markdown"] as const;

/** One of {@link OUTPUT_FORMATS}. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The file extension of each `--output` format. */
export const OUTPUT_EXTENSIONS = {
  json: "json",
  junit: "xml",
  html: "html",
  markdown: "md",
} as const;

/** One `--output` flag: a format, and the file given with it (`--output junit=path`). */
export interface OutputRequest {
  format: OutputFormat;
  file?: string;
}

/** A report to write: its format and absolute path. */
export interface OutputTarget {
  format: OutputFormat;
  file: string;
}

/**
 * Reads one `--output` value, `FORMAT` or `FORMAT=PATH`; returns an error message when it is
 * neither.
 */
export function parseOutputRequest(value: string): OutputRequest | string {
  const separator = value.indexOf("=");
  const format = (separator === -1 ? value : value.slice(0, separator)).trim();
  if (!(OUTPUT_FORMATS as readonly string[]).includes(format)) {
    return `--output takes json, junit, html or markdown, optionally with a file (--output junit=reports/junit.xml); got "${value}".`;
  }
  if (separator === -1) return { format: format as OutputFormat };
  const file = value.slice(separator + 1);
  if (file.trim() === "") {
    return `--output ${format}= needs a file after "=", e.g. --output ${format}=reports/verdict.${OUTPUT_EXTENSIONS[format as OutputFormat]}.`;
  }
  return { format: format as OutputFormat, file };
}

/**
 * The files that the `--output` flags write: each report at its own path, else
 * `--output-file` (only with a single `--output`), else `<defaultName>.<ext>` in `cwd`.
 * Returns an error message when `--output-file` is ambiguous or two reports share a file.
 */
export function resolveOutputTargets(options: {
  outputs: readonly OutputRequest[];
  outputFile: string | undefined;
  cwd: string;
  /** The file name (without extension) of a report given no file. @default "verdict-report" */
  defaultName?: string;
}): OutputTarget[] | string {
  const { outputs, outputFile, cwd } = options;
  const defaultName = options.defaultName ?? "verdict-report";
  if (outputFile !== undefined) {
    if (outputs.length === 0) {
      return "--output-file needs --output to say which report to write, e.g. --output junit --output-file junit.xml.";
    }
    if (outputs.length > 1) {
      return "--output-file names the file of a single --output; with several, give each report its file: --output junit=junit.xml --output html=report.html.";
    }
    if (outputs[0]?.file !== undefined) {
      return `--output ${outputs[0].format}=… already names the file: leave out --output-file.`;
    }
  }
  const targets: OutputTarget[] = [];
  for (const request of outputs) {
    const given =
      request.file ?? outputFile ?? `${defaultName}.${OUTPUT_EXTENSIONS[request.format]}`;
    const file = path.resolve(cwd, given);
    const clash = targets.find((target) => target.file === file);
    if (clash !== undefined) {
      return `--output ${clash.format} and --output ${request.format} would both write ${file}: give one its own file, e.g. --output ${request.format}=other.${OUTPUT_EXTENSIONS[request.format]}.`;
    }
    targets.push({ format: request.format, file });
  }
  return targets;
}
