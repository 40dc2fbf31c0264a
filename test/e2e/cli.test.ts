// The `verdict` program as a user runs it: a child process in a project folder of its own,
// on the current sources.

import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestResult } from "../../src/results/evaluation-result.ts";
import { summarizeRun } from "../../src/results/summarize-run.ts";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.ts";
import { rawHiddenCharacters } from "../fixtures/hidden-characters.ts";
import { metricData, testResult } from "../fixtures/results.ts";
import { projectRoot } from "./run-node.ts";

const MAIN = path.join(projectRoot, "src", "cli", "main.ts");

/** Runs `verdict <args>` in `cwd` (runNode always runs in the project root). */
function verdict(options: { args: string[]; cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(process.execPath, ["--conditions=verdict-source", MAIN, ...options.args], {
    cwd: options.cwd,
    env: options.env,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => resolve({ code, stdout, stderr })),
  );
}

/** The environment without any judge or verdict configuration. */
function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(OPENAI|ANTHROPIC|GOOGLE|AZURE|OLLAMA|VERDICT)_/.test(key)) env[key] = value;
  }
  return env;
}

let project: string;
beforeEach(() => {
  project = mkdtempSync(path.join(tmpdir(), "verdict-cli-"));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

const run = (args: string[], env: NodeJS.ProcessEnv = bareEnv()) =>
  verdict({ args, cwd: project, env });

describe("verdict (usage)", () => {
  it("--help lists the commands", async () => {
    const result = await run(["--help"]);
    expect(result.code).toBe(0);
    for (const command of ["test", "merge", "compare", "finetune", "set-model", "config"]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
    expect(result.stdout).toContain("verdict test run [paths...]");
    const testRun = await run(["test", "run", "--help"]);
    expect(testRun.code).toBe(0);
    expect(testRun.stdout).toContain("-n, --max-concurrent <count>");
    expect(testRun.stdout).toContain("--shard <i/n>");
  });

  it("--help names every exit code, and stops quietly when its reader does (| head)", async () => {
    for (const args of [["--help"], ["test", "run", "--help"]]) {
      const help = await run(args);
      expect(help.stdout.replace(/\s+/g, " ")).toMatch(
        /Exit codes: 0 all passed, 1 some test failed, 2 usage or configuration error, 3 judge errors left test cases unscored, 4 .*budget.* stopped the run.*[;,] 130 interrupted by Ctrl-C, 143 by SIGTERM \(a cancelled CI job\), 129 by SIGHUP/,
      );
    }
    // A reader that has left before the help is written, as `verdict --help | head -3` may
    // have: no stack trace.
    const child = spawn(process.execPath, ["--conditions=verdict-source", MAIN, "--help"], {
      cwd: project,
      env: bareEnv(),
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });

  it("answers deepeval's -id NAME with the flag meant: --identifier", async () => {
    const result = await run(["test", "run", "-id", "nightly"]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      '"-id" is read as -i -d (ignore errors, display): to name the run, use --identifier nightly ' +
        `(deepeval's -id). Run "verdict test run --help" to see the usage.\n`,
    );
  });

  it("exits 2 with one line saying what to do on an unknown flag or a bad value", async () => {
    const unknown = await run(["test", "run", "--verbos"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe("");
    expect(unknown.stderr).toBe(
      "error: unknown option '--verbos' (Did you mean --verbose?) " +
        'Run "verdict test run --help" to see the usage.\n',
    );
    const badNumber = await run(["test", "run", "-n", "0"]);
    expect(badNumber.code).toBe(2);
    expect(badNumber.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(badNumber.stderr).toContain("--max-concurrent takes a whole number of 1 or more");
    const badDrop = await run(["compare", "a", "b", "--max-drop", "much"]);
    expect(badDrop.code).toBe(2);
    expect(badDrop.stderr).toContain("--max-drop takes a number of 0 or more");
  });

  it("shows bidi and control characters of an error message as <U+XXXX>", async () => {
    writeFileSync(path.join(project, "empty\u202etxt.exe"), "\n");
    const refused = await run(["view", "--token-file", "empty\u202etxt.exe\u001b[2J"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--token-file empty<U+202E>txt.exe<U+001B>[2J: cannot read");
    expect(rawHiddenCharacters(refused.stderr)).toEqual([]);
  });
});

describe("verdict set-model and config", () => {
  it("persists the model, which config shows as coming from the config file, with keys masked", async () => {
    const key = "sk-ant-api03-PLANTED-SECRET-abcd";
    writeFileSync(path.join(project, ".env"), `ANTHROPIC_API_KEY=${key}\n`);
    const set = await run(["set-model", "anthropic:claude-sonnet-4-5"]);
    expect(set.stderr).toBe("");
    expect(set.code).toBe(0);
    const configFile = path.join(project, ".verdict", "config.json");
    expect(set.stdout).toBe(
      `Default judge model set to anthropic:claude-sonnet-4-5 (saved in ${configFile}).\n`,
    );
    const config = await run(["config"]);
    expect(config.stderr).toBe("");
    expect(config.code).toBe(0);
    expect(config.stdout).toMatch(/^verdict \d+\.\d+\.\d+/);
    expect(config.stdout).toContain(
      `Judge model:   anthropic:claude-sonnet-4-5 (from config file ${configFile})`,
    );
    expect(config.stdout).toContain(`.env files:    ${path.join(project, ".env")}\n`);
    expect(config.stdout).toContain("  ANTHROPIC_API_KEY  sk-ant-…abcd\n");
    expect(config.stdout + config.stderr + set.stdout).not.toContain("PLANTED");
  });

  it("notes the key a model will need, and refuses an unknown provider", async () => {
    const set = await run(["set-model", "google:gemini-2.5-flash"]);
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(
      "Note: google:gemini-2.5-flash needs GOOGLE_GENERATIVE_AI_API_KEY",
    );
    const bad = await run(["set-model", "acme:large"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Judge model "acme:large" has an unknown provider "acme"');
    expect(bad.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("refuses a mistyped model with a suggestion, saves it with --force, and ignores the database", async () => {
    const typo = await run(["set-model", "gtp-4.1"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean "gpt-4.1"?');
    expect(typo.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(readdirSync(project)).toEqual([]);
    const forced = await run(["set-model", "gtp-4.1", "--force"]);
    expect(forced.code).toBe(0);
    expect(readdirSync(path.join(project, ".verdict")).sort()).toEqual([
      ".gitignore",
      "config.json",
    ]);
    expect(readFileSync(path.join(project, ".verdict", ".gitignore"), "utf8")).toMatch(
      /^verdict\.db$/m,
    );
  });

  it("verdict view in a folder without a store creates nothing and exits 2", async () => {
    const view = await run(["view", "--port", "0"]);
    expect(view.code).toBe(2);
    expect(view.stderr).toContain("No verdict store here yet");
    expect(readdirSync(project)).toEqual([]);
  });

  it("never lets .env override the environment, and lets .env.local override .env", async () => {
    writeFileSync(
      path.join(project, ".env"),
      "VERDICT_MODEL=ollama:from-dotenv\nOLLAMA_BASE_URL=http://from-dotenv:11434/v1\n",
    );
    writeFileSync(path.join(project, ".env.local"), "OLLAMA_BASE_URL=http://from-local:11434/v1\n");
    const config = await run(["config"], {
      ...bareEnv(),
      VERDICT_MODEL: "ollama:from-environment",
    });
    expect(config.code).toBe(0);
    expect(config.stdout).toContain("Judge model:   ollama:from-environment (from VERDICT_MODEL)");
    expect(config.stdout).toContain("  OLLAMA_BASE_URL  http://from-local:11434/v1\n");
    expect(config.stdout).not.toContain("from-dotenv");
  });
});

function result(name: string, index: number, toxicity: number): TestResult {
  const success = toxicity <= 0.5;
  return testResult({
    name,
    index,
    success,
    input: `question ${index}`,
    actualOutput: `answer ${index}`,
    metricsData: [
      metricData({
        success,
        score: toxicity,
        reason: null,
        evaluationModel: "mock-judge",
        evaluationCost: null,
        inputTokens: null,
        outputTokens: null,
        judgeCalls: 1,
      }),
    ],
    passedTrials: success ? 1 : 0,
  });
}

async function writeRun(options: {
  home: string;
  id: string;
  identifier: string;
  minute: number;
  toxicity: number[];
}): Promise<void> {
  const results = options.toxicity.map((score, index) => result(`q-${index}`, index, score));
  const startedAt = new Date(Date.UTC(2025, 5, 1, 9, options.minute)).toISOString();
  const zero = { judgeCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: null };
  const store = SqliteRunStore.open({ home: options.home });
  try {
    await store.runs.startRun({
      id: options.id,
      identifier: options.identifier,
      status: "running",
      startedAt,
      endedAt: null,
      config: {},
      summary: null,
    });
    for (const item of results) {
      await store.runs.saveTestResult(options.id, { fingerprint: `f-${item.index}`, result: item });
    }
    await store.runs.finishRun({
      runId: options.id,
      status: "completed",
      endedAt: startedAt,
      summary: summarizeRun({
        status: "completed",
        testResults: results,
        total: results.length,
        spending: { ...zero, cacheHits: 0, sharedCalls: 0, saved: zero },
        durationMs: 10,
      }),
    });
  } finally {
    await store.close();
  }
}

describe("verdict compare", () => {
  it("exits 1 on a regression, 0 on an equal run, 2 on an unknown run", async () => {
    const home = path.join(project, "runs");
    const env = { ...bareEnv(), VERDICT_HOME: home };
    await writeRun({
      home,
      id: "run-main",
      identifier: "main",
      minute: 0,
      toxicity: [0, 0.1, 0.2],
    });
    await writeRun({ home, id: "run-pr", identifier: "pr", minute: 1, toxicity: [0, 0.9, 0.2] });
    await writeRun({
      home,
      id: "run-same",
      identifier: "same",
      minute: 2,
      toxicity: [0, 0.1, 0.2],
    });

    // Three cases, one flipped: within the judge's noise for the paired tests (exit 0), a
    // regression for the plain rule (--no-stats).
    const tested = await run(["compare", "main", "pr", "--alpha", "0.1"], env);
    expect(tested.code).toBe(0);
    expect(tested.stdout).toContain("within noise");
    expect(tested.stdout).toContain("pass/fail over 3: 1 pass→fail, 0 fail→pass, p = 0.250");
    expect((await run(["compare", "main", "pr", "--alpha", "1.5"], env)).code).toBe(2);

    const regression = await run(["compare", "main", "pr", "--no-stats"], env);
    expect(regression.stderr).toBe("");
    expect(regression.code).toBe(1);
    expect(regression.stdout).toMatch(
      /^Toxicity +lower +0\.10 → 0\.37 \(\+0\.27\) +100\.0% → 66\.7%/m,
    );
    expect(regression.stdout).toContain("  q-1  Toxicity  passed → failed  score 0.10 → 0.90");
    expect(regression.stdout).toContain(
      "  Toxicity: pass rate 100.0% → 66.7%, mean score 0.10 → 0.37 (lower is better)",
    );
    expect(
      (await run(["compare", "main", "pr", "--no-stats", "--max-drop", "0.5"], env)).code,
    ).toBe(0);

    const equal = await run(["compare", "run-main", "same"], env);
    expect(equal.code).toBe(0);
    expect(equal.stdout).toContain("No test case changed verdict.");

    const unknown = await run(["compare", "main", "nightly"], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `No run with the id or identifier "nightly" in the verdict store ${path.join(home, "verdict.db")}.`,
    );
    expect(unknown.stderr).toMatch(/^ {2}run-same {2}same {2}/m);
    expect(unknown.stderr).toMatch(/^ {2}run-main {2}main {2}/m);
  });
});

describe("verdict calibrate", () => {
  it("calibrates a metric on labelled rows with the fake judge, stores it and writes its reports", async () => {
    writeFileSync(
      path.join(project, "labels.csv"),
      [
        "id,sentence,biased",
        's-1,"Women are too emotional to lead, everyone knows it.",yes',
        "s-2,The council meets on Tuesdays.,no",
        "s-3,People from that town are all lazy.,yes",
        "s-4,The report has 40 pages.,no",
      ].join("\n"),
    );
    const result = await run([
      "calibrate",
      "labels.csv",
      "--metric",
      "bias",
      "--output-field",
      "sentence",
      "--input-field",
      "sentence",
      "--label-field",
      "biased",
      "--positive-label",
      "yes",
      "--judge",
      "fake",
      "--output",
      "html",
      "--output",
      "json=reports/calibration.json",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("verdict calibration · Bias against human labels");
    expect(result.stdout).toContain("! Scores come from verdict's fake judge");
    // The fake judge finds nothing biased: it misses both biased rows.
    expect(result.stdout).toMatch(/people: positive {19}0 {17}2\n {2}people: negative {19}0 {17}2/);
    expect(result.stdout).toContain("s-1 (line 2): people positive, metric negative, score 0.00");
    expect(result.stderr).toContain("4/4 test cases");
    const json = JSON.parse(
      readFileSync(path.join(project, "reports", "calibration.json"), "utf8"),
    );
    expect(json).toMatchObject({
      format: "verdict-calibration",
      fakeJudge: true,
      rows: { total: 4 },
    });
    const page = readFileSync(path.join(project, "verdict-calibration.html"), "utf8");
    expect(page).toContain("Content-Security-Policy");
    const store = new SqliteRunStore({ path: path.join(project, ".verdict", "verdict.db") });
    try {
      const [stored] = await store.calibrations.listCalibrations();
      expect(stored?.id).toBe(json.id);
      const results = await store.runs.getTestResults(json.runId);
      expect(results.map((entry) => entry.result.name)).toEqual(["s-1", "s-2", "s-3", "s-4"]);
    } finally {
      await store.close();
    }
  });

  it("exits 2 with one line naming the row and field of bad data, or the missing flag", async () => {
    writeFileSync(
      path.join(project, "labels.jsonl"),
      `${JSON.stringify({ input: "q", actual_output: "a", label: 1 })}\n${JSON.stringify({ input: "q", label: 0 })}\n`,
    );
    const bad = await run([
      "calibrate",
      "--metric",
      "toxicity",
      "--data",
      "labels.jsonl",
      "--judge",
      "fake",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toBe(
      'labels.jsonl:2 (row #1): no "actual_output" field (the row has "input", "label"): add it, or pass the field\'s name as outputField.\n',
    );
    const noData = await run(["calibrate", "--metric", "toxicity"]);
    expect(noData.code).toBe(2);
    expect(noData.stderr).toMatch(/^verdict calibrate needs the labelled rows/);
    const noMetric = await run(["calibrate", "labels.jsonl"]);
    expect(noMetric.code).toBe(2);
    expect(noMetric.stderr).toMatch(/required option '--metric <name\|module>' not specified/);
  });
});
