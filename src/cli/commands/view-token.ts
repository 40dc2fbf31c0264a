import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { ConfigError } from "../../errors/config-error.ts";
import { tokenProblem } from "../../view/server/view-access.ts";

/** The environment variable `verdict view` reads its token from when no option gives one. */
export const VIEW_TOKEN_VARIABLE = "VERDICT_VIEW_TOKEN";

/** A token file longer than this is not a token file. */
const MAX_TOKEN_FILE_BYTES = 4096;

/** The dashboard's token, where it came from, and what to warn about it. */
export interface ViewToken {
  token: string;
  /** `--token`, `--token-file <path>` or `VERDICT_VIEW_TOKEN`: said in messages, never the token. */
  source: string;
  warnings: string[];
}

async function readTokenFile(file: string, cwd: string): Promise<ViewToken> {
  const resolved = path.resolve(cwd, file);
  const source = `--token-file ${file}`;
  let text: string;
  const warnings: string[] = [];
  try {
    const info = await stat(resolved);
    if (!info.isFile() || info.size > MAX_TOKEN_FILE_BYTES) {
      throw new ConfigError(
        `${source}: ${resolved} is not a file of at most ${MAX_TOKEN_FILE_BYTES} bytes: give the path of a file that holds only the token.`,
      );
    }
    // Group or others may read it: the token is then no more private than on the command line.
    if (process.platform !== "win32" && (info.mode & 0o077) !== 0) {
      warnings.push(
        `Warning: ${resolved} can be read by other users (mode ${(info.mode & 0o777).toString(8)}): chmod 600 it, so that only you can read the dashboard's token.`,
      );
    }
    text = await readFile(resolved, "utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      `${source}: cannot read ${resolved} (${code}): give the path of a file that holds the token, e.g. one written by \`openssl rand -hex 16 > ${file}\`.`,
      { cause: error },
    );
  }
  // An editor or `echo` ends the file with a line break; the token is what comes before.
  const token = text.replace(/^\uFEFF/, "").trim();
  if (token === "") {
    throw new ConfigError(
      `${source}: ${resolved} is empty: write the token into it, e.g. \`openssl rand -hex 16 > ${file}\`.`,
    );
  }
  return { token, source, warnings };
}

/**
 * The token `verdict view` requires, from `--token`, `--token-file <path>` (relative to
 * `cwd`; its text, trimmed) or the `VERDICT_VIEW_TOKEN` variable, in that order; `null` when
 * none gives one. An argument can be read by every user of the machine in the process list, so
 * it comes with a warning; a file others may read does too.
 * @throws ConfigError for both options at once, a file that cannot be read or is empty, and a
 * token too short or unsafe in a URL (naming where it came from, never showing it).
 */
export async function resolveViewToken(options: {
  token: string | undefined;
  tokenFile: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
}): Promise<ViewToken | null> {
  const { token, tokenFile, env } = options;
  if (token !== undefined && tokenFile !== undefined) {
    throw new ConfigError(
      "verdict view takes --token or --token-file, not both: keep --token-file (a command-line argument can be read by other users).",
    );
  }
  const fromVariable = env[VIEW_TOKEN_VARIABLE];
  const found: ViewToken | null =
    tokenFile !== undefined
      ? await readTokenFile(tokenFile, options.cwd)
      : token !== undefined
        ? {
            token,
            source: "--token",
            warnings: [
              `Warning: --token can be read by every user of this machine in the process list: set ${VIEW_TOKEN_VARIABLE} or use --token-file <path> instead.`,
            ],
          }
        : fromVariable !== undefined && fromVariable !== ""
          ? { token: fromVariable.trim(), source: VIEW_TOKEN_VARIABLE, warnings: [] }
          : null;
  if (found === null) return null;
  const problem = tokenProblem(found.token);
  if (problem !== null) throw new ConfigError(`The token of ${found.source}: ${problem}.`);
  return found;
}
