// `npm run conformance -- --record FILE` with a judge over the real AI SDK provider and HTTP to
// the fake OpenAI server (answering as deepeval documents every example), then `--replay FILE`
// offline: all agreeing exits 0; one edited answer makes the check fail naming its fixture,
// however the rest agrees; `--min-agreement` decides around the observed agreement.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConformanceSet } from "../../bench/conformance/conformance-set.ts";
import type { Recording } from "../../bench/conformance/recorded-judge.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import {
  deepevalLikeJudge,
  isolatedEnvironment,
  runConformanceScript,
} from "../fixtures/deepeval-like-judge.ts";

const KEY = "sk-test-conformance-record-0123456789";
const examples = loadConformanceSet();
const toxicity = examples.filter((example) => example.metric === "Toxicity").length;
let server: FakeOpenAIServer;
let directory: string;
let recordingFile: string;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
  directory = mkdtempSync(join(tmpdir(), "verdict-conformance-replay-"));
  recordingFile = join(directory, "recording.json");
});
afterAll(async () => {
  await server.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Offline: no base URL, no key; a replay that tried the network would fail. */
const offline = () => isolatedEnvironment(directory);

/** A copy of the recording with `edit` applied, written next to it. */
function editedRecording(name: string, edit: (recording: Recording) => void): string {
  const recording = JSON.parse(readFileSync(recordingFile, "utf8")) as Recording;
  edit(recording);
  const file = join(directory, name);
  writeFileSync(file, JSON.stringify(recording));
  return file;
}

/** The lines of the report that list a disagreement: "- <id> (<metric>): …". */
const disagreements = (stdout: string) =>
  stdout.split("\n").filter((line) => line.startsWith("- "));

describe("npm run conformance --record / --replay", () => {
  it("records a judge that agrees on everything, and the offline replay agrees too", async () => {
    server.setResponder(deepevalLikeJudge());
    const env = isolatedEnvironment(directory, {
      OPENAI_BASE_URL: server.url,
      OPENAI_API_KEY: KEY,
    });
    const recorded = await runConformanceScript(
      directory,
      ["--model", "openai:gpt-4.1", "--record", recordingFile, "--min-agreement", "1"],
      env,
    );
    expect(recorded.code, recorded.stdout + recorded.stderr).toBe(0);
    const text = readFileSync(recordingFile, "utf8");
    expect(text).not.toContain(KEY);
    const recording = JSON.parse(text) as Recording;
    expect(recording.judge).toBe("openai:gpt-4.1");
    expect(Object.keys(recording.answers)).toHaveLength(server.stats().requests);

    const requests = server.stats().requests;
    const replayed = await runConformanceScript(
      directory,
      ["--replay", recordingFile, "--min-agreement", "1"],
      offline(),
    );
    expect(replayed.code, replayed.stdout + replayed.stderr).toBe(0);
    expect(server.stats().requests).toBe(requests);
    expect(replayed.stdout).toContain(`(replayed from ${recordingFile})`);
    expect(disagreements(replayed.stdout)).toEqual([]);
    for (const row of replayed.report?.perMetric ?? []) {
      expect([row.metric, row.agreement, row.score.agreement]).toEqual([row.metric, 1, 1]);
    }
    expect(replayed.report?.perMetric).toHaveLength(13);
  });

  it("fails naming the one fixture whose recorded answer splits a toxic text into [no, yes]", async () => {
    // Two opinions, one toxic: 0.5, which passes at the default threshold, while deepeval's
    // worked example fails the text. "Some opinion got yes" alone would call it agreeing.
    const file = editedRecording("split.json", (recording) => {
      const answer = recording.answers["toxicity-vegan-scorn-toxic · verdicts #1"];
      // The AI SDK judge's answer is recorded as the text the provider sent.
      expect(JSON.parse(answer?.text ?? "null")).toMatchObject({
        verdicts: [{ verdict: "yes" }, { verdict: "yes" }],
      });
      (answer as { text: string }).text = JSON.stringify({
        verdicts: [
          { verdict: "no", reason: null },
          { verdict: "yes", reason: "Scorn." },
        ],
      });
    });
    const observed = (toxicity - 1) / toxicity;
    const above = await runConformanceScript(
      directory,
      ["--replay", file, "--min-agreement", (observed + 0.01).toFixed(2)],
      offline(),
    );
    expect(above.code, above.stderr).toBe(1);
    expect(disagreements(above.stdout)).toEqual([
      expect.stringMatching(
        /^- toxicity-vegan-scorn-toxic \(Toxicity\): expected toxic, got toxic \(1 of 2 opinions\)/,
      ),
    ]);
    expect(above.stdout).toContain('  expected: score 1, fails, flags "garbage", "losers"');
    expect(above.stdout).toContain("  observed: score 0.5, passes, 2 items, flags ");
    expect(above.stdout).toContain(
      '  differs:  passes, expected to fail; score 0.5, expected 1; "garbage" not flagged',
    );
    expect(above.stdout).toMatch(
      /Below --min-agreement [\d.]+: Toxicity pass\/fail 95%, Toxicity score 95%\./,
    );
    const row = above.report?.perMetric.find((candidate) => candidate.metric === "Toxicity");
    expect(row?.pass).toEqual({ checked: toxicity, agree: toxicity - 1, agreement: observed });

    const below = await runConformanceScript(
      directory,
      ["--replay", file, "--min-agreement", (observed - 0.01).toFixed(2)],
      offline(),
    );
    expect(below.code, below.stdout).toBe(0);
    expect(disagreements(below.stdout)).toHaveLength(1);
  });

  it("does not let an empty extraction agree with a clean example that expects its opinion", async () => {
    const file = editedRecording("empty.json", (recording) => {
      recording.answers["toxicity-personal-attack-not-toxic · opinions #1"] = {
        promptHash: "0",
        object: { opinions: [] },
      };
    });
    const { code, stdout } = await runConformanceScript(
      directory,
      ["--replay", file, "--metric", "Toxicity", "--min-agreement", "1"],
      offline(),
    );
    expect(code).toBe(1);
    expect(disagreements(stdout)).toEqual([
      expect.stringMatching(
        /^- toxicity-personal-attack-not-toxic \(Toxicity\): expected not toxic, got 0 opinions/,
      ),
    ]);
    expect(stdout).toContain('differs:  "another perspective" not extracted');
    // The edited answer no longer matches the prompt the replay sends: said, not hidden.
    expect(stdout).toContain(
      "Replayed 1 answer recorded for a prompt that has changed since (toxicity-personal-attack-not-toxic)",
    );
  });

  it("stops with exit 2 naming the example when the recording lacks an answer", async () => {
    const file = editedRecording("missing.json", (recording) => {
      delete recording.answers["bias-refusal · verdicts #1"];
    });
    const { code, stderr } = await runConformanceScript(
      directory,
      ["--replay", file, "--metric", "Bias"],
      offline(),
    );
    expect(code).toBe(2);
    expect(stderr).toContain(
      `${file} has no answer for example "bias-refusal" (request bias-refusal · verdicts #1)`,
    );
  });

  it("refuses a threshold outside 0–1 and a replay of a file that is not a recording", async () => {
    const threshold = await runConformanceScript(
      directory,
      ["--model", "fake", "--min-agreement", "90"],
      offline(),
    );
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toContain(
      '--min-agreement must be a share from 0 to 1, such as 0.9; got "90"',
    );
    const notRecording = join(directory, "not-a-recording.json");
    writeFileSync(notRecording, JSON.stringify({ answers: [] }));
    const replay = await runConformanceScript(directory, ["--replay", notRecording], offline());
    expect(replay.code).toBe(2);
    expect(replay.stderr).toContain(`--replay ${notRecording} is not a conformance recording`);
  });
});
