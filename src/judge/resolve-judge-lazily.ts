import { loadProcessEnvFiles } from "../config/load-env-files.ts";
import { isJudgeModel, type JudgeModel } from "./judge-model.ts";
import type { ResolveJudgeOptions } from "./resolve-model.ts";

/**
 * `resolveJudge` (resolve-model.ts), loading it only when there is a judge to make: a
 * {@link JudgeModel} is returned as it is, after the working directory's `.env` files are
 * read into `process.env` as `resolveJudge` reads them; a model string, an AI SDK model or
 * none loads the resolver (model names, providers, the AI SDK, the saved default) on first
 * use. What `metric.measure()` calls, so that a script with its own judge never loads them.
 * @example
 * const judge = await resolveJudgeLazily({ model: metric.model });
 */
export async function resolveJudgeLazily(options: ResolveJudgeOptions = {}): Promise<JudgeModel> {
  if (isJudgeModel(options.model)) {
    loadProcessEnvFiles(options.env ?? process.env);
    return options.model;
  }
  const { resolveJudge } = await import("./resolve-model.ts");
  return resolveJudge(options);
}
