import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readProjectConfig } from "../../config/project-config.ts";
import { ConfigError } from "../../errors/config-error.ts";
import { resolveModelSpec } from "../../judge/resolve-model.ts";
import { checkKnownModel } from "./known-models.ts";
import { checkJudgeModel, runSetModel } from "./set-model.ts";

describe("verdict set-model", () => {
  let cwd: string;
  let printed: string;
  const stdout = { write: (text: string) => (printed += text) };
  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), "verdict-set-model-"));
    printed = "";
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("persists the model as the default judge and notes the key it will need", async () => {
    const env: NodeJS.ProcessEnv = {};
    const code = await runSetModel({ model: "anthropic:claude-sonnet-4-5", cwd, env, stdout });
    expect(code).toBe(0);
    const file = path.join(cwd, ".verdict", "config.json");
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({
      model: "anthropic:claude-sonnet-4-5",
    });
    expect(resolveModelSpec({ env, cwd })).toEqual({
      model: "anthropic:claude-sonnet-4-5",
      source: "config file",
    });
    expect(printed).toBe(
      `Default judge model set to anthropic:claude-sonnet-4-5 (saved in ${file}).\n` +
        "Note: anthropic:claude-sonnet-4-5 needs ANTHROPIC_API_KEY, not set yet: set it in the " +
        "environment or a .env file before running evaluations.\n",
    );
  });

  it("saves the canonical name and prints no note when the key is set", async () => {
    const env = { VERDICT_HOME: "home", OPENAI_API_KEY: "sk-secret-value-1234" };
    await runSetModel({ model: " gpt-4.1-mini ", cwd, env, stdout });
    expect(readProjectConfig({ env, cwd })).toEqual({ model: "openai:gpt-4.1-mini" });
    expect(printed).not.toContain("Note");
    expect(printed).not.toContain("sk-secret");
  });

  it("says that VERDICT_MODEL takes precedence over the saved default", async () => {
    const env = { VERDICT_MODEL: "gpt-4.1", OLLAMA_BASE_URL: "http://127.0.0.1:1/v1" };
    await runSetModel({ model: "ollama:llama3.1", cwd, env, stdout });
    expect(printed).toContain("Note: VERDICT_MODEL=gpt-4.1 is set and takes precedence over");
    expect(printed).toContain("unset it to use ollama:llama3.1.");
  });

  it("refuses a mistyped model name, suggesting the nearest, and saves nothing", async () => {
    let errors = "";
    const stderr = { write: (text: string) => (errors += text) };
    const env = { OPENAI_API_KEY: "sk-x" };
    expect(await runSetModel({ model: "gtp-4.1", cwd, env, stdout, stderr })).toBe(2);
    expect(errors).toBe(
      '"gtp-4.1" is not an OpenAI model verdict knows, so nothing was saved. Did you mean "gpt-4.1"? ' +
        "If the name is right (a model newer than this verdict), run: verdict set-model gtp-4.1 --force\n",
    );
    expect(existsSync(path.join(cwd, ".verdict"))).toBe(false);
    expect(printed).toBe("");
  });

  it("saves an unknown name with force, saying so", async () => {
    const env = { OPENAI_API_KEY: "sk-x" };
    expect(await runSetModel({ model: "gpt-7-turbo", cwd, env, stdout, force: true })).toBe(0);
    expect(readProjectConfig({ env, cwd })).toEqual({ model: "openai:gpt-7-turbo" });
    expect(printed).toContain(
      "Note: verdict does not know openai:gpt-7-turbo; saved because of --force.",
    );
  });

  it("writes .verdict/.gitignore when it creates the folder, ignoring the database only", async () => {
    await runSetModel({ model: "gpt-4.1", cwd, env: {}, stdout });
    const ignore = readFileSync(path.join(cwd, ".verdict", ".gitignore"), "utf8");
    const patterns = ignore.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    expect(patterns).toEqual(["verdict.db", "verdict.db-*", "*.tmp"]);
  });

  it("refuses an unknown provider or an empty name and saves nothing", async () => {
    await expect(runSetModel({ model: "foo:bar", cwd, env: {}, stdout })).rejects.toThrow(
      'Judge model "foo:bar" has an unknown provider "foo"',
    );
    await expect(runSetModel({ model: "  ", cwd, env: {}, stdout })).rejects.toBeInstanceOf(
      ConfigError,
    );
    await expect(runSetModel({ model: "anthropic:", cwd, env: {}, stdout })).rejects.toThrow(
      "has no model name",
    );
    expect(existsSync(path.join(cwd, ".verdict"))).toBe(false);
  });
});

describe("checkJudgeModel", () => {
  it("lists every variable the provider needs, and only those that are missing", async () => {
    expect(await checkJudgeModel({ model: "azure:my-deployment", env: {} })).toEqual({
      name: "azure:my-deployment",
      missingVariables: ["AZURE_API_KEY", "AZURE_RESOURCE_NAME"],
      missingPackage: null,
    });
    const withBaseUrl = await checkJudgeModel({
      model: "azure:my-deployment",
      env: { AZURE_BASE_URL: "https://example.invalid/openai" },
    });
    expect(withBaseUrl.missingVariables).toEqual(["AZURE_API_KEY"]);
    expect(
      (await checkJudgeModel({ model: "openai-compatible:qwen", env: {} })).missingVariables,
    ).toEqual(["VERDICT_BASE_URL"]);
    expect((await checkJudgeModel({ model: "ollama:llama3.1", env: {} })).missingVariables).toEqual(
      [],
    );
  });
});

describe("checkKnownModel", () => {
  it("knows current ids and their dated snapshots; checks only hosted providers", () => {
    expect(checkKnownModel({ name: "openai:gpt-4.1-mini-2025-04-14" }).status).toBe("known");
    expect(checkKnownModel({ name: "anthropic:claude-sonnet-4-5-20250929" }).status).toBe("known");
    expect(checkKnownModel({ name: "google:gemini-2.5-flash" }).status).toBe("known");
    expect(checkKnownModel({ name: "ollama:llama3.1" }).status).toBe("unchecked");
    expect(checkKnownModel({ name: "azure:my-deployment" }).status).toBe("unchecked");
  });

  it("suggests the nearest id for a typo, and none for a name far from every id", () => {
    expect(checkKnownModel({ name: "anthropic:claude-sonet-4-5" })).toMatchObject({
      status: "unknown",
      suggestion: "claude-sonnet-4-5",
    });
    expect(checkKnownModel({ name: "openai:gpt4o-mini" })).toMatchObject({
      suggestion: "gpt-4o-mini",
    });
    expect(checkKnownModel({ name: "openai:my-fine-tune" })).toMatchObject({
      status: "unknown",
      suggestion: null,
    });
  });
});
