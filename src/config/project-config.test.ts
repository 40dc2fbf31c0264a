import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import {
  projectConfigPath,
  readProjectConfig,
  resolveVerdictHome,
  writeProjectConfig,
} from "./project-config.ts";

describe("project configuration", () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(path.join(tmpdir(), "verdict-config-"));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it("lives in VERDICT_HOME, resolved from cwd, else in <cwd>/.verdict", () => {
    expect(resolveVerdictHome({ env: {}, cwd: folder })).toBe(path.join(folder, ".verdict"));
    expect(resolveVerdictHome({ env: { VERDICT_HOME: "evals" }, cwd: folder })).toBe(
      path.join(folder, "evals"),
    );
    expect(projectConfigPath({ env: { VERDICT_HOME: "/srv/verdict" }, cwd: folder })).toBe(
      path.resolve("/srv/verdict", "config.json"),
    );
  });

  it("keeps the default .verdict in the project's root when run from a subfolder", () => {
    writeFileSync(path.join(folder, "package.json"), "{}");
    const subfolder = path.join(folder, "evals", "support");
    mkdirSync(subfolder, { recursive: true });
    expect(resolveVerdictHome({ env: {}, cwd: subfolder })).toBe(path.join(folder, ".verdict"));
    // An explicit relative VERDICT_HOME is where the command was typed.
    expect(resolveVerdictHome({ env: { VERDICT_HOME: "runs" }, cwd: subfolder })).toBe(
      path.join(subfolder, "runs"),
    );
    // A nested package (a workspace of a monorepo) is a project of its own.
    writeFileSync(path.join(folder, "evals", "package.json"), "{}");
    expect(resolveVerdictHome({ env: {}, cwd: subfolder })).toBe(
      path.join(folder, "evals", ".verdict"),
    );
  });

  it("is empty when no file exists, and reads back what was written", () => {
    const env = { VERDICT_HOME: path.join(folder, "nested", "home") };
    expect(readProjectConfig({ env, cwd: folder })).toEqual({});
    const file = writeProjectConfig({ env, cwd: folder, config: { model: "ollama:llama3.1" } });
    expect(file).toBe(path.join(folder, "nested", "home", "config.json"));
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ model: "ollama:llama3.1" });
    expect(readProjectConfig({ env, cwd: folder })).toEqual({ model: "ollama:llama3.1" });
    // No temporary file is left; the new folder gets its .gitignore (the database only).
    expect(readdirSync(path.dirname(file)).sort()).toEqual([".gitignore", "config.json"]);
  });

  it("names the file and what to do when it is broken", () => {
    const home = path.join(folder, ".verdict");
    mkdirSync(home);
    const file = path.join(home, "config.json");
    const read = () => readProjectConfig({ env: {}, cwd: folder });
    writeFileSync(file, "{ model: ");
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(`The verdict configuration ${file} is not valid JSON`);
    writeFileSync(file, '["gpt-4.1"]');
    expect(read).toThrow("must hold a JSON object");
    writeFileSync(file, '{ "model": 4 }');
    expect(read).toThrow('has a "model" that is not a model name: fix it, or delete it');
  });

  it("says what to do when the folder cannot be written", () => {
    const blocker = path.join(folder, "a-file");
    writeFileSync(blocker, "");
    expect(() =>
      writeProjectConfig({ env: { VERDICT_HOME: blocker }, cwd: folder, config: { model: "x" } }),
    ).toThrow(/Could not write the verdict configuration .*set VERDICT_HOME to another folder/);
  });
});
