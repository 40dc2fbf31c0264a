import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSyntheticJudge, type SyntheticRow } from "../../../test/fixtures/synthetic-judge.ts";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import { MockJudge } from "../../testing/mock-judge.ts";
import { runCalibrate } from "./calibrate.ts";

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(path.join(tmpdir(), "verdict-calibrate-command-"));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

function collector() {
  let text = "";
  return { write: (chunk: string) => (text += chunk), text: () => text };
}

const rows: SyntheticRow[] = Array.from({ length: 10 }, (_, index) => ({
  input: `Question ${index}?`,
  actualOutput: `Answer number ${index}.`,
  positive: index % 2 === 0,
}));

function writeData(name: string, text?: string): string {
  writeFileSync(
    path.join(cwd, name),
    text ??
      [
        "question,answer,relevant",
        ...rows.map((row) => `${row.input},${row.actualOutput},${row.positive ? "yes" : "no"}`),
      ].join("\n"),
  );
  return name;
}

async function calibrateWith(options: Partial<Parameters<typeof runCalibrate>[0]> = {}) {
  const stdout = collector();
  const stderr = collector();
  const store = new MemoryRunStore();
  const code = await runCalibrate({
    metric: "relevancy",
    data: writeData("labels.csv"),
    inputField: "question",
    outputField: "answer",
    labelField: "relevant",
    positiveLabel: "yes",
    judge: createSyntheticJudge({ rows, flipProbability: 0.3, seed: 4 }),
    cwd,
    env: {},
    store,
    stdout,
    stderr,
    showProgress: false,
    ...options,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text(), store };
}

describe("verdict calibrate", () => {
  it("prints the report, stores it with its run and writes the JSON and HTML files", async () => {
    const result = await calibrateWith({
      outputs: [{ format: "json" }, { format: "html", file: "reports/calibration.html" }],
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("verdict calibration · Answer Relevancy against human labels");
    expect(result.stdout).toContain(
      'labels.csv · 10 rows · positive = label "yes", negative = "no"',
    );
    expect(result.stdout).toContain("Positive  passed by Answer Relevancy (score ≥ 0.50)");
    const [stored] = await result.store.calibrations.listCalibrations();
    expect(stored?.rows).toEqual({ total: 10, scored: 10, unscored: 0 });
    expect(result.stdout).toContain(
      `Stored as calibration ${stored?.id}\n  of run ${stored?.runId}.`,
    );
    const json = JSON.parse(readFileSync(path.join(cwd, "verdict-calibration.json"), "utf8"));
    expect(json).toMatchObject({
      format: "verdict-calibration",
      id: stored?.id,
      kappa: stored?.kappa,
    });
    expect(json.data.source).toBe("labels.csv");
    const page = readFileSync(path.join(cwd, "reports", "calibration.html"), "utf8");
    expect(page).toContain("<title>verdict calibration: Answer Relevancy</title>");
    expect(result.stdout).toContain(
      `Wrote the HTML calibration report to ${path.join(cwd, "reports", "calibration.html")}.`,
    );
  });

  it("exits 2 naming the file, line and field of bad data, before any judge call", async () => {
    const judge = new MockJudge({ answers: [] });
    const result = await calibrateWith({
      data: writeData("broken.jsonl", '{"question": "q", "answer": "a"}\n'),
      judge,
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      'broken.jsonl:1 (row #0): no label: "relevant" is missing (the row has "question", "answer"). Label the row, leave it out, or pass the label\'s field as labelField (--label-field).\n',
    );
    expect(judge.calls).toHaveLength(0);
    const missing = await calibrateWith({ data: "nowhere.jsonl" });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^Dataset file "nowhere\.jsonl" does not exist/);
    const junit = await calibrateWith({ outputs: [{ format: "junit" }] });
    expect(junit.code).toBe(2);
    expect(junit.stderr).toMatch(/writes --output json or html/);
    const resume = await calibrateWith({ resume: true });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/^--resume needs --identifier NAME/);
  });

  it("exits 3 when rows were left unscored, and lists them", async () => {
    const synthetic = createSyntheticJudge({ rows, flipProbability: 0, seed: 4 });
    const judge = new MockJudge({
      name: "breaks-on-answer-3",
      answers: (call) =>
        call.prompt.includes("Answer number 3.")
          ? new Error("The judge broke.")
          : synthetic.generate({
              prompt: call.prompt,
              schema: undefined as never,
              jsonSchema: call.jsonSchema,
            }),
    });
    const result = await calibrateWith({ judge, ignoreErrors: true });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain("! 1 of 10 rows were not scored");
    expect(result.stdout).toMatch(
      /Rows not scored: 1\n {2}row 4, line 5: Judge "breaks-on-answer-3" failed[\s\S]*The judge\s+broke\./,
    );
  });
});

describe("verdict calibrate --metric <module>", () => {
  const source = path.resolve("src/index.ts");
  const metricModule = `
import { defineMetric, z } from ${JSON.stringify(source)};
export const Politeness = defineMetric({
  name: "Politeness",
  requiredFields: ["actualOutput"],
  prompts: { rate: ({ reply }: { reply: string }) => "Rate this reply: " + reply },
  async score({ ask, text }) {
    const answer = await ask("rate", { reply: text("actualOutput") }, z.object({ reason: z.string(), score: z.number().min(0).max(10) }));
    return { score: answer.score / 10, reason: answer.reason };
  },
});
export default new Politeness({ threshold: 0.5, model: "fake" });
export const notAMetric = 42;
`;
  // Even rows polite (score 9), odd ones rude (score 1).
  const judge = () =>
    new MockJudge({
      answers: (call) => ({
        reason: "r",
        score:
          /number (\d+)/.exec(call.prompt)?.[1] &&
          Number(/number (\d+)/.exec(call.prompt)?.[1]) % 2 === 0
            ? 9
            : 1,
      }),
    });

  it("calibrates a metric class a module exports, with --threshold and --judge applied", async () => {
    writeFileSync(path.join(cwd, "metrics.ts"), metricModule);
    const { code, stdout, stderr } = await calibrateWith({
      metric: "./metrics.ts#Politeness",
      threshold: 0.5,
      judge: judge(),
    });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("Politeness");
    expect(stdout).toMatch(/accuracy\s+100/i);
  });

  it("says what a module exports when the name is wrong, and refuses flags for a metric object", async () => {
    writeFileSync(path.join(cwd, "metrics.ts"), metricModule);
    const missing = await calibrateWith({ metric: "./metrics.ts#Politness", judge: judge() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'has no export "Politness". Its metrics: ./metrics.ts#Politeness, ./metrics.ts',
    );
    const object = await calibrateWith({ metric: "./metrics.ts", threshold: 0.3, judge: judge() });
    expect(object.code).toBe(2);
    expect(object.stderr).toContain("is a metric object");
    const notMetric = await calibrateWith({ metric: "./metrics.ts#notAMetric", judge: judge() });
    expect(notMetric.stderr).toContain('the export "notAMetric" of ./metrics.ts is no metric');
    const noFile = await calibrateWith({ metric: "toxicty", judge: judge() });
    expect(noFile.stderr).toContain('"toxicty" is neither a built-in metric');
  });
});
