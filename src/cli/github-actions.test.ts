import { describe, expect, it } from "vitest";
import { githubActionsOf } from "./github-actions.ts";

describe("githubActionsOf", () => {
  const env = {
    GITHUB_ACTIONS: "true",
    GITHUB_STEP_SUMMARY: "/runner/_temp/step_summary_1",
    GITHUB_WORKSPACE: "/home/runner/work/app/app",
  };

  it("finds the job summary and the checkout on GitHub Actions", () => {
    expect(githubActionsOf({ env, enabled: true })).toEqual({
      summaryFile: "/runner/_temp/step_summary_1",
      workspace: "/home/runner/work/app/app",
    });
  });

  it("is off elsewhere, with --no-github, and without a summary file keeps annotations only", () => {
    expect(
      githubActionsOf({ env: { ...env, GITHUB_ACTIONS: undefined }, enabled: true }),
    ).toBeNull();
    expect(
      githubActionsOf({ env: { ...env, GITLAB_CI: "true", GITHUB_ACTIONS: "" }, enabled: true }),
    ).toBeNull();
    expect(githubActionsOf({ env, enabled: false })).toBeNull();
    expect(githubActionsOf({ env: { GITHUB_ACTIONS: "true" }, enabled: true })).toEqual({
      summaryFile: null,
      workspace: undefined,
    });
  });
});
