import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../errors/config-error.ts";
import { EXAMPLE_EVAL, runInit, VERDICT_HOME_GITIGNORE } from "./init.ts";

describe("verdict init", () => {
  let project: string;
  beforeEach(() => {
    project = mkdtempSync(path.join(tmpdir(), "verdict-init-"));
  });
  afterEach(() => rmSync(project, { recursive: true, force: true }));

  async function init(env: NodeJS.ProcessEnv = {}) {
    let text = "";
    const code = await runInit({
      cwd: project,
      env,
      stdout: { write: (chunk) => (text += chunk) },
    });
    return { code, text };
  }

  it("writes the example and the home's .gitignore where VERDICT_HOME says, and says what to install", async () => {
    writeFileSync(path.join(project, "package.json"), '{ "type": "module" }\n');
    const { code, text } = await init({ VERDICT_HOME: "store" });
    expect(code).toBe(0);
    expect(readFileSync(path.join(project, "evals/example.eval.ts"), "utf8")).toBe(EXAMPLE_EVAL);
    expect(readFileSync(path.join(project, "store/.gitignore"), "utf8")).toBe(
      VERDICT_HOME_GITIGNORE,
    );
    expect(text).toContain("created store/.gitignore");
    expect(text).not.toContain("CommonJS");
    // No vitest next to this temporary project.
    expect(text).toContain("npm install --save-dev vitest");
    expect(EXAMPLE_EVAL.match(/await assertTest\(/g)).toHaveLength(2);
    for (const metric of ["AnswerRelevancyMetric", "ToxicityMetric", "BiasMetric"]) {
      expect(EXAMPLE_EVAL).toContain(`new ${metric}(`);
    }
  });

  it("stops before writing anything when package.json is not JSON", async () => {
    writeFileSync(path.join(project, "package.json"), "{ nope");
    await expect(init()).rejects.toThrow(ConfigError);
    await expect(init()).rejects.toThrow(/package\.json is not valid JSON .*fix it/);
    expect(existsSync(path.join(project, "evals"))).toBe(false);
  });

  it("keeps a file that exists and says so; without package.json it says where to run", async () => {
    mkdirSync(path.join(project, ".verdict"));
    writeFileSync(path.join(project, ".verdict/.gitignore"), "mine\n");
    const { text } = await init();
    expect(text).toContain("kept    .verdict/.gitignore");
    expect(text).toContain("created evals/example.eval.ts");
    expect(readFileSync(path.join(project, ".verdict/.gitignore"), "utf8")).toBe("mine\n");
    expect(text).toContain(`No package.json in ${project}`);
  });
});
