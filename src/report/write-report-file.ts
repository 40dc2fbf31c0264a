import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";

/** Options of {@link writeReportFile}. */
export interface WriteReportFileOptions {
  /** Where to write; missing folders are created. */
  file: string;
  text: string;
  /** Named in the error message, e.g. `"JUnit"`. */
  kind: string;
}

/**
 * Writes a report file, creating its folder, with secrets masked (configured key values, in
 * any escaping, and key patterns): the one way every report reaches the disk. The text goes to a temporary file that is then
 * renamed, so a CI step or a browser reading the file never sees half a report.
 * @throws {ConfigError} when the file cannot be written, naming it.
 */
export function writeReportFile(options: WriteReportFileOptions): void {
  const file = resolve(options.file);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temporary, redactSecretText(options.text), "utf8");
    renameSync(temporary, file);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The folder may not exist; the write error below is the one to report.
    }
    throw new ConfigError(
      `Could not write the ${options.kind} report to "${options.file}": ${(error as Error).message}. Check that the folder is writable, or choose another --output-file.`,
      { cause: error },
    );
  }
}
