import { existsSync } from "node:fs";
import path from "node:path";
import { projectConfigPath, resolveVerdictHome } from "../../config/project-config.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { PROVIDERS } from "../../judge/providers.ts";
import { type JudgeModelSource, resolveModelSpec } from "../../judge/resolve-model.ts";
import { isSecretKey, REDACTED, redactSecretText } from "../../secrets/redact-secrets.ts";
import { storeUrlOf } from "../../store/open-store.ts";
import { resolvePostgresConnection } from "../../store/postgres-connection.ts";
import { STORE_FILE_NAME } from "../../store/sqlite-run-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { checkJudgeModel } from "./set-model.ts";

/** Options of {@link runConfig}. */
export interface ConfigCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The `.env` files that were loaded into `env`. */
  envFiles: string[];
  /** verdict's version. */
  version: string;
  /** @default process.stdout */
  stdout?: CommandOutput | undefined;
  /** @default process.stderr */
  stderr?: CommandOutput | undefined;
}

/** Provider variables shown by `verdict config`, besides every `AZURE_*` one. */
export const PROVIDER_VARIABLES: readonly string[] = Object.entries(PROVIDERS).flatMap(
  ([name, info]) =>
    name === "azure"
      ? []
      : [info.apiKeyVariable, info.baseUrlVariable].filter((variable) => variable !== null),
);

// Shown in full; every other provider variable is treated as a secret.
const PLAIN_VARIABLES = new Set(["AZURE_RESOURCE_NAME", "AZURE_API_VERSION"]);

/**
 * Hides a secret but for a recognisable prefix and its last 4 characters: `sk-…abcd`.
 * Values too short to hide most of them show nothing at all.
 */
export function maskSecret(value: string): string {
  const prefix = /^sk-(?:ant-|proj-)?/.exec(value)?.[0] ?? "";
  if (value.length - prefix.length < 12) return REDACTED;
  return `${prefix}…${value.slice(-4)}`;
}

/** A URL shown in full, except credentials in its user info or in secret-named query parameters. */
export function maskUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.username) url.username = REDACTED;
  if (url.password) url.password = REDACTED;
  for (const name of [...url.searchParams.keys()]) {
    if (isSecretKey(name)) url.searchParams.set(name, REDACTED);
  }
  return url.href;
}

function showVariable(name: string, value: string): string {
  if (value.trim() === "") return "(empty)";
  if (name.endsWith("_URL")) return maskUrl(value);
  return PLAIN_VARIABLES.has(name) ? value : maskSecret(value);
}

function describeSource(source: JudgeModelSource, configFile: string): string {
  switch (source) {
    case "option":
      return "from the model option";
    case "env":
      return "from VERDICT_MODEL";
    case "config file":
      return `from config file ${configFile}`;
    case "default":
      return 'default: set one with "verdict set-model MODEL" or VERDICT_MODEL';
  }
}

function table(rows: ReadonlyArray<readonly [string, string]>, indent: string): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`);
}

/**
 * `verdict config`: prints the resolved configuration (judge model and where it came from,
 * the verdict home and store, the `.env` files read, the provider variables that are set, with
 * secrets masked) and verdict's version. Exits 2 when the judge model cannot be used as
 * configured, after printing everything else.
 * @example
 * process.exitCode = await runConfig({ cwd, env: process.env, envFiles, version: "0.1.0" });
 */
export async function runConfig(options: ConfigCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const { env, cwd } = options;
  const configFile = projectConfigPath({ env, cwd });
  const home = resolveVerdictHome({ env, cwd });
  const store = path.join(home, STORE_FILE_NAME);
  const problems: string[] = [];
  const teamStore = describeTeamStore(env, problems);

  let judge: string;
  try {
    const { model, source } = resolveModelSpec({ env, cwd });
    const check = await checkJudgeModel({ model: String(model), env });
    judge = `${check.name} (${describeSource(source, configFile)})`;
    if (check.missingVariables.length > 0) {
      problems.push(
        `The judge model ${check.name} needs ${check.missingVariables.join(" and ")}: set it in the environment or a .env file.`,
      );
    }
    if (check.missingPackage !== null) problems.push(check.missingPackage);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    judge = "(not usable, see below)";
    problems.push(error.message);
  }

  const variables = [
    ...PROVIDER_VARIABLES,
    ...Object.keys(env)
      .filter((name) => name.startsWith("AZURE_"))
      .sort(),
  ].flatMap((name) => {
    const value = env[name];
    return value === undefined ? [] : [[name, showVariable(name, value)] as const];
  });

  const lines = [
    `verdict ${options.version}`,
    ...table(
      [
        ["Judge model:", judge],
        [
          "Verdict home:",
          `${home} (${env.VERDICT_HOME?.trim() ? "from VERDICT_HOME" : "default: <cwd>/.verdict"})`,
        ],
        [
          "Store:",
          teamStore === null
            ? `${store}${existsSync(store) ? "" : " (not created yet)"}`
            : `${teamStore} (from VERDICT_STORE)`,
        ],
        [
          ".env files:",
          options.envFiles.length > 0 ? options.envFiles.join(", ") : `none found in ${cwd}`,
        ],
      ],
      "",
    ),
    variables.length > 0 ? "Provider variables:" : "Provider variables: none set",
    ...(variables.length > 0 ? table(variables, "  ") : []),
  ];
  stdout.write(`${lines.join("\n")}\n`);
  for (const problem of problems) stderr.write(`${problem}\n`);
  return problems.length > 0 ? EXIT_CODES.usage : EXIT_CODES.passed;
}

/**
 * Where `VERDICT_STORE` points, without its password; `null` when it is unset. A malformed
 * setting is added to `problems` (and shown as such).
 */
function describeTeamStore(env: NodeJS.ProcessEnv, problems: string[]): string | null {
  const setting = env.VERDICT_STORE?.trim();
  if (!setting) return null;
  try {
    const url = storeUrlOf(undefined, env);
    if (url === null) return null;
    return resolvePostgresConnection({ url, env }).target;
  } catch (error) {
    problems.push((error as Error).message);
    return `${redactSecretText(setting)} (not usable: see below)`;
  }
}
