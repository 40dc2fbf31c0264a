/** Where a command's GitHub Actions output goes, when it runs there (`GITHUB_ACTIONS=true`). */
export interface GitHubActionsTarget {
  /** `$GITHUB_STEP_SUMMARY`, the job summary's file; `null` when the runner gave none. */
  summaryFile: string | null;
  /** `$GITHUB_WORKSPACE`, the checkout, which annotation paths are relative to. */
  workspace: string | undefined;
}

/**
 * The GitHub Actions job this command runs in, or `null`: not on GitHub Actions, or turned
 * off (`--no-github`). There, `verdict test run` appends its Markdown report to the job
 * summary and annotates failing tests, `verdict merge` and `verdict compare` append theirs.
 * @example
 * githubActionsOf({ env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: "/tmp/s.md" }, enabled: true });
 */
export function githubActionsOf(options: {
  env: NodeJS.ProcessEnv;
  /** `false` with `--no-github`. */
  enabled: boolean;
}): GitHubActionsTarget | null {
  const { env } = options;
  if (!options.enabled || env.GITHUB_ACTIONS !== "true") return null;
  return {
    summaryFile: env.GITHUB_STEP_SUMMARY?.trim() || null,
    workspace: env.GITHUB_WORKSPACE?.trim() || undefined,
  };
}
