import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ConfigError } from "../errors/config-error.ts";
import { createVerdictHome } from "./create-verdict-home.ts";
import { findProjectRoot } from "./find-project-root.ts";

/** The file name of the persisted configuration inside the verdict home folder. */
export const PROJECT_CONFIG_FILE_NAME = "config.json";

/** What `verdict set-model` and friends persist in `config.json`. */
export interface ProjectConfig {
  /** The default judge model, e.g. `"anthropic:claude-sonnet-4-5"`. */
  model?: string;
}

/** Where the verdict home folder is looked up. */
export interface VerdictHomeOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv | undefined;
  /**
   * The working directory: a relative `VERDICT_HOME` is resolved from it, the default
   * `.verdict` is in its project's root (the nearest folder up with a `package.json`).
   * @default process.cwd()
   */
  cwd?: string | undefined;
}

/** Options of {@link writeProjectConfig}. */
export interface WriteProjectConfigOptions extends VerdictHomeOptions {
  /** The whole configuration: it replaces the file. */
  config: ProjectConfig;
}

/**
 * The verdict home folder, where the store and `config.json` live: `VERDICT_HOME` when set
 * (relative to `cwd`), else `.verdict` in the project's root — the nearest folder from `cwd`
 * up with a `package.json` (`cwd` when there is none), so that a subfolder shares the
 * project's store.
 */
export function resolveVerdictHome(options: VerdictHomeOptions = {}): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = env.VERDICT_HOME?.trim();
  return home ? path.resolve(cwd, home) : path.join(findProjectRoot(cwd), ".verdict");
}

/** The path of `config.json` in the verdict home folder (which may not exist yet). */
export function projectConfigPath(options: VerdictHomeOptions = {}): string {
  return path.join(resolveVerdictHome(options), PROJECT_CONFIG_FILE_NAME);
}

/**
 * Reads `config.json` from the verdict home folder; `{}` when there is none. A file that is
 * not valid JSON or holds wrong types is a `ConfigError` that names the file.
 * @example
 * const { model } = readProjectConfig({ env: process.env, cwd: process.cwd() });
 */
export function readProjectConfig(options: VerdictHomeOptions = {}): ProjectConfig {
  const file = projectConfigPath(options);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return {};
    throw new ConfigError(
      `Could not read the verdict configuration ${file} (${(error as Error).message}): make it ` +
        "readable, or set VERDICT_HOME to another folder.",
      { cause: error },
    );
  }
  const fix = `fix it, or delete it and run "verdict set-model MODEL"`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      `The verdict configuration ${file} is not valid JSON (${(error as Error).message}): ${fix}.`,
      { cause: error },
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`The verdict configuration ${file} must hold a JSON object: ${fix}.`);
  }
  const model = (parsed as { model?: unknown }).model;
  if (model !== undefined && (typeof model !== "string" || model.trim() === "")) {
    throw new ConfigError(
      `The verdict configuration ${file} has a "model" that is not a model name: ${fix}.`,
    );
  }
  return model === undefined ? {} : { model: model.trim() };
}

/**
 * Writes `config.json` in the verdict home folder, creating the folder (with its
 * `.gitignore`, see {@link createVerdictHome}). The file is replaced
 * in one step, so a reader never sees half of it. Returns the file's path.
 * @example
 * writeProjectConfig({ env: process.env, cwd: process.cwd(), config: { model: "gpt-4.1" } });
 */
export function writeProjectConfig(options: WriteProjectConfigOptions): string {
  const file = projectConfigPath(options);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    createVerdictHome({ home: path.dirname(file) });
    writeFileSync(temporary, `${JSON.stringify(options.config, null, 2)}\n`);
    renameSync(temporary, file);
  } catch (error) {
    // Report why the write failed, not a failure to clean up after it.
    try {
      rmSync(temporary, { force: true });
    } catch {}
    throw new ConfigError(
      `Could not write the verdict configuration ${file} (${(error as Error).message}): make ` +
        "its folder writable, or set VERDICT_HOME to another folder.",
      { cause: error },
    );
  }
  return file;
}
