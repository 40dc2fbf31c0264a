import { projectConfigPath, writeProjectConfig } from "../../config/project-config.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { PROVIDERS } from "../../judge/providers.ts";
import { resolveJudge } from "../../judge/resolve-model.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { checkKnownModel } from "./known-models.ts";

/** Options of {@link runSetModel}. */
export interface SetModelCommandOptions {
  /** The model string, e.g. `"anthropic:claude-sonnet-4-5"`. */
  model: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * Save a model id that verdict does not know for its provider (a model newer than this
   * release); without it such a name is refused, with the nearest known id.
   * @default false
   */
  force?: boolean;
  /** @default process.stdout */
  stdout?: CommandOutput | undefined;
  /** @default process.stderr */
  stderr?: CommandOutput | undefined;
}

/** What {@link checkJudgeModel} found out about a model string. */
export interface JudgeModelCheck {
  /** The model's canonical name, e.g. `"openai:gpt-4.1"` for `"gpt-4.1"`. */
  name: string;
  /** Variables the model needs that `env` lacks, e.g. `["ANTHROPIC_API_KEY"]`. */
  missingVariables: string[];
  /** What to install when the provider's optional package is missing; else `null`. */
  missingPackage: string | null;
}

// Every variable resolveJudge may require. Only their presence matters here, never a value.
const REQUIRED_VARIABLE_CANDIDATES = Object.values(PROVIDERS).flatMap((info) =>
  [
    info.apiKeyRequired ? info.apiKeyVariable : null,
    info.resourceNameVariable,
    info.baseUrlRequired ? info.baseUrlVariable : null,
  ].filter((variable) => variable !== null),
);

const PLACEHOLDER = "http://placeholder.invalid";

function isMissingPackage(error: unknown): boolean {
  const code = ((error as { cause?: unknown }).cause as { code?: unknown } | undefined)?.code;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

async function tryResolve(model: string, env: NodeJS.ProcessEnv): Promise<ConfigError | string> {
  try {
    return (await resolveJudge({ model, env })).name;
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

/**
 * Checks a model string's format and provider without needing its keys: a wrong format or
 * an unknown provider is a `ConfigError`; missing variables and a missing provider package
 * are reported, not thrown.
 * @example
 * const { missingVariables } = await checkJudgeModel({ model: "anthropic:claude-sonnet-4-5", env });
 */
export async function checkJudgeModel(options: {
  model: string;
  env: NodeJS.ProcessEnv;
}): Promise<JudgeModelCheck> {
  // resolveJudge is the one place that knows what each provider requires: resolving with
  // placeholders for the absent variables checks the format, and taking one placeholder away
  // at a time shows which of them the model really needs.
  const absent = REQUIRED_VARIABLE_CANDIDATES.filter((name) => !options.env[name]?.trim());
  const filled: NodeJS.ProcessEnv = { ...options.env };
  for (const name of absent) filled[name] = PLACEHOLDER;
  const resolved = await tryResolve(options.model, filled);
  if (resolved instanceof ConfigError && !isMissingPackage(resolved)) throw resolved;
  const missingVariables: string[] = [];
  for (const name of absent) {
    const without = { ...filled };
    delete without[name];
    const outcome = await tryResolve(options.model, without);
    if (outcome instanceof ConfigError && !isMissingPackage(outcome)) missingVariables.push(name);
  }
  return {
    name: typeof resolved === "string" ? resolved : options.model.trim(),
    missingVariables,
    missingPackage: resolved instanceof ConfigError ? resolved.message : null,
  };
}

/**
 * `verdict set-model MODEL`: checks the model string and persists it in `config.json` of the
 * verdict home folder as the default judge. An OpenAI, Anthropic or Google model id that
 * verdict does not know is refused (exit 2) with "did you mean …?", unless `force`. A missing
 * key is not an error yet: a note says which variable the model will need. Returns the exit
 * code.
 * @example
 * process.exitCode = await runSetModel({ model: "ollama:llama3.1", cwd, env: process.env });
 */
export async function runSetModel(options: SetModelCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const check = await checkJudgeModel({ model: options.model, env: options.env });
  const known = checkKnownModel({ name: check.name });
  if (known.status === "unknown" && options.force !== true) {
    const [provider = "", modelId = ""] = check.name.split(/:(.*)/s);
    const displayName = PROVIDERS[provider as keyof typeof PROVIDERS]?.displayName ?? provider;
    const hint =
      known.suggestion === null
        ? `Known ${displayName} models: ${known.known.join(", ")}.`
        : `Did you mean "${known.suggestion}"?`;
    (options.stderr ?? process.stderr).write(
      `"${modelId}" is not ${/^[AEIOU]/i.test(displayName) ? "an" : "a"} ${displayName} model verdict knows, so nothing was saved. ${hint} ` +
        `If the name is right (a model newer than this verdict), run: verdict set-model ${options.model.trim()} --force\n`,
    );
    return EXIT_CODES.usage;
  }
  const file = writeProjectConfig({
    env: options.env,
    cwd: options.cwd,
    config: { model: check.name },
  });
  const lines = [`Default judge model set to ${check.name} (saved in ${file}).`];
  if (known.status === "unknown") {
    lines.push(
      `Note: verdict does not know ${check.name}; saved because of --force. A wrong name fails on the first judge call.`,
    );
  }
  if (check.missingVariables.length > 0) {
    const names = check.missingVariables.join(" and ");
    lines.push(
      `Note: ${check.name} needs ${names}, not set yet: set it in the environment or a .env file before running evaluations.`,
    );
  }
  if (check.missingPackage !== null) lines.push(`Note: ${check.missingPackage}`);
  const fromEnv = options.env.VERDICT_MODEL?.trim();
  if (fromEnv) {
    lines.push(
      `Note: VERDICT_MODEL=${fromEnv} is set and takes precedence over ${projectConfigPath(options)}: unset it to use ${check.name}.`,
    );
  }
  stdout.write(`${lines.join("\n")}\n`);
  return EXIT_CODES.passed;
}
