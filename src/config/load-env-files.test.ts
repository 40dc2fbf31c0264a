import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { redactSecretText } from "../secrets/redact-secrets.ts";
import { createEnvFilesLoader, loadEnvFiles } from "./load-env-files.ts";

describe("loadEnvFiles", () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), "verdict-env-"));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  const write = (name: string, text: string) => writeFileSync(path.join(folder, name), text);

  it("reads .env then .env.local, and .env.local wins", () => {
    write(".env", "VERDICT_MODEL=gpt-4.1\nOPENAI_API_KEY=from-env-file\n# a comment\n");
    write(".env.local", 'OPENAI_API_KEY="from local"\nOLLAMA_BASE_URL=http://127.0.0.1:11434/v1\n');
    const env: NodeJS.ProcessEnv = {};
    const files = loadEnvFiles({ cwd: folder, env, registerSecrets: false });
    expect(files).toEqual([path.join(folder, ".env"), path.join(folder, ".env.local")]);
    expect(env).toEqual({
      VERDICT_MODEL: "gpt-4.1",
      OPENAI_API_KEY: "from local",
      OLLAMA_BASE_URL: "http://127.0.0.1:11434/v1",
    });
  });

  it("reads the project root's files from a subfolder, the subfolder's winning", () => {
    write("package.json", "{}");
    write(".env", "OPENAI_API_KEY=from-root\nVERDICT_MODEL=root-model\n");
    const subfolder = path.join(folder, "evals");
    mkdirSync(subfolder);
    writeFileSync(path.join(subfolder, ".env"), "VERDICT_MODEL=subfolder-model\n");
    const env: NodeJS.ProcessEnv = {};
    const files = loadEnvFiles({ cwd: subfolder, env, registerSecrets: false });
    expect(files).toEqual([path.join(folder, ".env"), path.join(subfolder, ".env")]);
    expect(env).toEqual({ OPENAI_API_KEY: "from-root", VERDICT_MODEL: "subfolder-model" });
  });

  it("never overrides a variable already in the environment, even an empty one", () => {
    write(".env", "VERDICT_MODEL=from-file\nOPENAI_API_KEY=from-file\n");
    write(".env.local", "VERDICT_MODEL=from-local\n");
    const env: NodeJS.ProcessEnv = { VERDICT_MODEL: "from-process", OPENAI_API_KEY: "" };
    loadEnvFiles({ cwd: folder, env, registerSecrets: false });
    expect(env).toEqual({ VERDICT_MODEL: "from-process", OPENAI_API_KEY: "" });
  });

  it("skips missing files and returns only the files read", () => {
    const env: NodeJS.ProcessEnv = {};
    expect(loadEnvFiles({ cwd: folder, env, registerSecrets: false })).toEqual([]);
    write(".env.local", "A=1\n");
    expect(loadEnvFiles({ cwd: folder, env, registerSecrets: false })).toEqual([
      path.join(folder, ".env.local"),
    ]);
    expect(env.A).toBe("1");
  });

  it("fails with a ConfigError naming the file, never its contents, when it cannot be read", () => {
    mkdirSync(path.join(folder, ".env"));
    const attempt = () => loadEnvFiles({ cwd: folder, env: {}, registerSecrets: false });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(`Could not read ${path.join(folder, ".env")} (EISDIR)`);
  });

  it("registers the secrets of the files with the redactor, even ones the environment overrides", () => {
    // Random values: the registry lives as long as the process, and no other test can hold these.
    const fromFile = randomBytes(20).toString("hex").slice(0, 30);
    const model = `model-${randomBytes(8).toString("hex")}`;
    write(".env", `MY_PROVIDER_KEY=${fromFile}\nVERDICT_MODEL=${model}\n`);
    const env: NodeJS.ProcessEnv = { MY_PROVIDER_KEY: "the-environment-wins" };
    loadEnvFiles({ cwd: folder, env });
    expect(env.MY_PROVIDER_KEY).toBe("the-environment-wins");
    expect(redactSecretText(`echoed ${fromFile} for ${model}`, { env: {} })).toBe(
      `echoed *** for ${model}`,
    );
  });
});

describe("createEnvFilesLoader", () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), "verdict-env-once-"));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it("fills its environment from the working folder's files once, never overriding it", () => {
    const env: NodeJS.ProcessEnv = { VERDICT_MODEL: "from-the-environment" };
    let cwd = folder;
    const loadOnce = createEnvFilesLoader({ env, cwd: () => cwd });
    writeFileSync(path.join(folder, ".env"), "VERDICT_MODEL=fake\nVERDICT_HOME=from-file\n");
    writeFileSync(path.join(folder, ".env.local"), "VERDICT_HOME=from-local\n");
    loadOnce(env);
    expect(env).toEqual({ VERDICT_MODEL: "from-the-environment", VERDICT_HOME: "from-local" });

    // Once per folder: a second call reads nothing, even after the file changed.
    writeFileSync(path.join(folder, ".env"), "LATER=1\n");
    loadOnce(env);
    expect(env.LATER).toBeUndefined();

    // Another working folder is read in its turn.
    cwd = path.join(folder, "sub");
    mkdirSync(cwd);
    writeFileSync(path.join(cwd, ".env"), "SUB=1\n");
    loadOnce(env);
    expect(env.SUB).toBe("1");
  });

  it("leaves an environment the caller passed in untouched", () => {
    writeFileSync(path.join(folder, ".env"), "VERDICT_MODEL=fake\n");
    const loadOnce = createEnvFilesLoader({ env: {}, cwd: () => folder });
    const passed: NodeJS.ProcessEnv = {};
    loadOnce(passed);
    expect(passed).toEqual({});
  });
});
