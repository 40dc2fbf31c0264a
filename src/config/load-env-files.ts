import { readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { ConfigError } from "../errors/config-error.ts";
import { isSecretVariable, refreshEnvironmentSecrets } from "../secrets/redact-secrets.ts";
import { registerSecretValues } from "../secrets/secret-registry.ts";
import { findProjectRoot } from "./find-project-root.ts";

/** The files {@link loadEnvFiles} reads, in order: a later file wins over an earlier one. */
export const ENV_FILE_NAMES = [".env", ".env.local"] as const;

/** Options of {@link loadEnvFiles}. */
export interface LoadEnvFilesOptions {
  /**
   * The working directory: the files are read there and, when it is a subfolder of a
   * project, in the project's root (the nearest folder up with a `package.json`).
   */
  cwd: string;
  /** The environment to fill in; modified in place. */
  env: NodeJS.ProcessEnv;
  /**
   * Whether the values of the secret variables in the files (`…_API_KEY`, `…_TOKEN`, …) are
   * registered with the redactor, so they are masked in everything verdict writes even when
   * `env` is not `process.env` or the environment already had another value.
   * @default true
   */
  registerSecrets?: boolean | undefined;
}

/**
 * Loads `.env`, then `.env.local`, from `cwd` into `env`, and from the project's root when
 * `cwd` is a subfolder of it (the working directory's files win over the root's). A variable
 * already in `env` is never overridden, even by an empty value; between the two files of a
 * folder, `.env.local` wins.
 * Missing files are skipped. The values of secret variables are registered with the redactor. Returns the absolute paths of the files read.
 * @example
 * const files = loadEnvFiles({ cwd: process.cwd(), env: process.env });
 */
export function loadEnvFiles(options: LoadEnvFilesOptions): string[] {
  const { env } = options;
  const filesRead: string[] = [];
  const fromFiles: Record<string, string> = {};
  const here = path.resolve(options.cwd);
  const root = findProjectRoot(here);
  // The root's first, so that the working directory's files win over them.
  for (const folder of root === here ? [here] : [root, here]) {
    for (const name of ENV_FILE_NAMES) {
      const file = path.join(folder, name);
      const text = readEnvFile(file);
      if (text === null) continue;
      filesRead.push(file);
      Object.assign(fromFiles, parseEnv(text));
    }
  }
  for (const [variable, value] of Object.entries(fromFiles)) {
    if (env[variable] === undefined) env[variable] = value;
  }
  refreshEnvironmentSecrets();
  if (options.registerSecrets ?? true) {
    registerSecretValues(
      Object.entries(fromFiles)
        .filter(([variable]) => isSecretVariable(variable))
        .map(([, value]) => value),
    );
  }
  return filesRead;
}

function readEnvFile(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return null;
    // Only the file name and the system's reason: the contents may hold keys.
    throw new ConfigError(
      `Could not read ${file} (${(error as { code?: unknown }).code ?? "unknown error"}): ` +
        "make it a readable file, or remove it.",
      { cause: error },
    );
  }
}

/** Options of {@link createEnvFilesLoader}. */
export interface EnvFilesLoaderOptions {
  /** The environment that is filled in when asked about. @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /** The working directory whose files are read. @default process.cwd */
  cwd?: (() => string) | undefined;
}

/**
 * A loader of the working directory's `.env` and `.env.local` (as {@link loadEnvFiles}) into
 * one environment, at most once per folder: what lets `evaluate()` and `metric.measure()`
 * read a key from `.env` as the CLI does, without reading the files on every call. Asked
 * about another environment object (an `env` option), it does nothing: that object is
 * exactly what the caller chose to pass.
 * @example
 * const loadOnce = createEnvFilesLoader();
 * loadOnce(process.env); // reads ./.env and ./.env.local the first time only
 */
export function createEnvFilesLoader(
  options: EnvFilesLoaderOptions = {},
): (env: NodeJS.ProcessEnv) => void {
  const target = options.env ?? process.env;
  const currentFolder = options.cwd ?? (() => process.cwd());
  const loadedFolders = new Set<string>();
  return (env) => {
    if (env !== target) return;
    const cwd = currentFolder();
    if (loadedFolders.has(cwd)) return;
    loadedFolders.add(cwd);
    loadEnvFiles({ cwd, env: target });
  };
}

/**
 * Reads `.env` and `.env.local` of the working directory into `process.env` (never
 * overriding it) the first time a judge is resolved against `process.env` there. Library
 * entry points (`evaluate()`, `metric.measure()`, `assertTest`) call it, so a key in `.env`
 * works in a script as it does under the CLI.
 */
export const loadProcessEnvFiles: (env: NodeJS.ProcessEnv) => void = createEnvFilesLoader();
