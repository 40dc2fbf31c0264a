import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeProjectConfig } from "../../config/project-config.ts";
import { maskSecret, maskUrl, runConfig } from "./config.ts";

describe("verdict config", () => {
  let cwd: string;
  let stdout: string;
  let stderr: string;
  const run = (env: NodeJS.ProcessEnv, envFiles: string[] = []) =>
    runConfig({
      cwd,
      env,
      envFiles,
      version: "9.8.7",
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    });
  beforeEach(() => {
    cwd = mkdtempSync(path.join(tmpdir(), "verdict-config-command-"));
    stdout = "";
    stderr = "";
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it("prints the model and its source, the home, the store, the .env files and masked keys", async () => {
    const env = {
      OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwxyz0123",
      OPENAI_BASE_URL: "https://proxy.example.com/v1",
      AZURE_RESOURCE_NAME: "my-resource",
      AZURE_API_KEY: "azure-key-0123456789abcdef",
      PATH: "/usr/bin",
    };
    const code = await run(env, [path.join(cwd, ".env")]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    const home = path.join(cwd, ".verdict");
    expect(stdout.split("\n")).toEqual([
      "verdict 9.8.7",
      'Judge model:   openai:gpt-4.1 (default: set one with "verdict set-model MODEL" or VERDICT_MODEL)',
      `Verdict home:  ${home} (default: <cwd>/.verdict)`,
      `Store:         ${path.join(home, "verdict.db")} (not created yet)`,
      `.env files:    ${path.join(cwd, ".env")}`,
      "Provider variables:",
      "  OPENAI_API_KEY       sk-proj-…0123",
      "  OPENAI_BASE_URL      https://proxy.example.com/v1",
      "  AZURE_API_KEY        …cdef",
      "  AZURE_RESOURCE_NAME  my-resource",
      "",
    ]);
    expect(stdout).not.toContain("abcdefghijklmnop");
    expect(stdout).not.toContain("azure-key");
  });

  it("names the config file as the source of a persisted model, and VERDICT_MODEL above it", async () => {
    const env: NodeJS.ProcessEnv = { VERDICT_HOME: "home", ANTHROPIC_API_KEY: "short" };
    writeProjectConfig({ env, cwd, config: { model: "anthropic:claude-sonnet-4-5" } });
    expect(await run(env)).toBe(0);
    const configFile = path.join(cwd, "home", "config.json");
    expect(stdout).toContain(
      `Judge model:   anthropic:claude-sonnet-4-5 (from config file ${configFile})`,
    );
    expect(stdout).toContain("(from VERDICT_HOME)");
    expect(stdout).toContain(`.env files:    none found in ${cwd}`);
    expect(stdout).toContain("  ANTHROPIC_API_KEY  ***");
    stdout = "";
    expect(await run({ ...env, VERDICT_MODEL: "ollama:llama3.1" })).toBe(0);
    expect(stdout).toContain("Judge model:   ollama:llama3.1 (from VERDICT_MODEL)");
  });

  it("prints everything, then exits 2 saying what the judge model lacks", async () => {
    expect(await run({ VERDICT_MODEL: "google:gemini-2.5-flash" })).toBe(2);
    expect(stdout).toContain("Provider variables: none set");
    expect(stderr).toBe(
      "The judge model google:gemini-2.5-flash needs GOOGLE_GENERATIVE_AI_API_KEY: set it in the environment or a .env file.\n",
    );
    stdout = "";
    stderr = "";
    expect(await run({ VERDICT_MODEL: "foo:bar" })).toBe(2);
    expect(stdout).toContain("Judge model:   (not usable, see below)");
    expect(stderr).toContain('Judge model "foo:bar" has an unknown provider "foo"');
  });
});

describe("masking", () => {
  it("shows at most the last 4 characters of a key, and nothing of a short one", () => {
    expect(maskSecret("sk-ant-api03-0123456789abcdef")).toBe("sk-ant-…cdef");
    expect(maskSecret("sk-0123456789abcdef")).toBe("sk-…cdef");
    expect(maskSecret("0123456789ab")).toBe("…89ab");
    expect(maskSecret("sk-0123")).toBe("***");
    expect(maskSecret("0123456789a")).toBe("***");
  });

  it("shows URLs in full except credentials inside them", () => {
    expect(maskUrl("http://127.0.0.1:11434/v1")).toBe("http://127.0.0.1:11434/v1");
    expect(maskUrl("https://user:pass@example.com/v1?api-key=k&x=1")).toBe(
      "https://***:***@example.com/v1?api-key=***&x=1",
    );
    expect(maskUrl("not a url")).toBe("not a url");
  });
});
