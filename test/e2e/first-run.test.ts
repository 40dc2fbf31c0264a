// A new user's first run, as whole programs in temporary projects (verdict and vitest
// installed as links, the "verdict-source" condition loading the current sources):
// `verdict init` then `verdict test run` with the fake judge, in an ESM and a CommonJS
// project, and a script whose key and judge come from .env only.

import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { FAKE_JUDGE_NOTICE } from "../../src/results/fake-judge-notice.ts";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import { projectRoot, runNode } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");
const folders: string[] = [];
let server: FakeOpenAIServer;

beforeAll(async () => {
  server = await startFakeOpenAIServer();
});
afterAll(async () => {
  await server?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** A fresh project as `npm init -y` makes it (CommonJS) or with `"type": "module"`. */
function makeProject(kind: "module" | "commonjs"): string {
  const project = makeLinkedProject({
    prefix: `verdict-first-run-${kind}-`,
    packageJson: {
      name: "my-app",
      version: "1.0.0",
      ...(kind === "module" ? { type: "module" } : {}),
    },
  });
  folders.push(project);
  return project;
}

/** No key, no judge, no store of the developer's: only what a fresh shell has. */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1", ...extra };
}

function run(options: { project: string; args: string[]; env: NodeJS.ProcessEnv }) {
  return runNode({ args: options.args, env: options.env, cwd: options.project }).finished;
}

const verdict = (project: string, args: string[], env = cleanEnv()) =>
  run({ project, args: [MAIN, ...args], env });

describe.concurrent("first run", () => {
  it.for(["module", "commonjs"] as const)(
    "verdict init in a %s project, then verdict test run with the fake judge, passes",
    async (kind, { expect }) => {
      const project = makeProject(kind);
      const init = await verdict(project, ["init"]);
      expect(init.stderr).toBe("");
      expect(init.code).toBe(0);
      expect(init.stdout).toContain("created evals/example.eval.ts");
      expect(init.stdout).toContain("created .verdict/.gitignore");
      expect(init.stdout).toContain("VERDICT_MODEL=fake npx verdict test run evals/");
      expect(init.stdout).toContain("OPENAI_API_KEY");
      expect(init.stdout.includes("This project is CommonJS")).toBe(kind === "commonjs");
      expect(init.stdout).not.toContain("npm install --save-dev vitest");
      const gitignore = readFileSync(join(project, ".verdict/.gitignore"), "utf8");
      expect(gitignore).toMatch(/^\*$/m);
      expect(gitignore).toMatch(/^!config\.json$/m);

      const viaEnv = await verdict(
        project,
        ["test", "run", "evals/"],
        cleanEnv({ VERDICT_MODEL: "fake" }),
      );
      expect(viaEnv.stderr).not.toMatch(/Error|failed/);
      expect(viaEnv.code).toBe(0);
      expect(viaEnv.stdout).toContain("Test cases: 2 passed, 0 failed, 0 unscored (2 total)");
      expect(viaEnv.stdout.trimEnd().endsWith(`! ${FAKE_JUDGE_NOTICE}`)).toBe(true);
      expect(existsSync(join(project, ".verdict/verdict.db"))).toBe(true);

      const viaFlag = await verdict(project, [
        "test",
        "run",
        "--judge",
        "fake",
        "--output",
        "json",
        "--output-file",
        "report.json",
      ]);
      expect(viaFlag.code).toBe(0);
      const report = JSON.parse(readFileSync(join(project, "report.json"), "utf8"));
      expect(report.notice).toBe(FAKE_JUDGE_NOTICE);
      expect(report.summary.fakeJudge).toBe(true);
      expect(report.testResults).toHaveLength(2);
      for (const result of report.testResults) {
        expect(result.metricsData.map((metric: { name: string }) => metric.name)).toEqual([
          "Answer Relevancy",
          "Toxicity",
          "Bias",
        ]);
        for (const metric of result.metricsData) expect(metric.evaluationModel).toBe("fake");
      }

      // A second init keeps what is there, even an edited file.
      writeFileSync(join(project, "evals/example.eval.ts"), "// mine\n");
      const again = await verdict(project, ["init"]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain("kept    evals/example.eval.ts");
      expect(again.stdout).toContain("kept    .verdict/.gitignore");
      expect(readFileSync(join(project, "evals/example.eval.ts"), "utf8")).toBe("// mine\n");
    },
  );

  it("without a key or judge, a script's error says where keys are read and how to try the fake judge", async ({
    expect,
  }) => {
    const project = makeProject("commonjs");
    writeFileSync(
      join(project, "score.mts"),
      `import { ToxicityMetric } from "verdict";
await new ToxicityMetric().measure({ input: "Hi", actualOutput: "Hello" });
`,
    );
    const result = await run({ project, args: ["score.mts"], env: cleanEnv() });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      "needs OPENAI_API_KEY: set it in the environment or in .env / .env.local in the working directory",
    );
    expect(result.stderr).toContain("VERDICT_MODEL=fake");
  });

  it("evaluate() and metric.measure() in a script read the key and judge from .env, as the CLI does", async ({
    expect,
  }) => {
    const project = makeProject("module");
    writeFileSync(
      join(project, ".env"),
      `OPENAI_API_KEY=sk-only-in-dotenv\nVERDICT_MODEL=gpt-4.1-mini\nOPENAI_BASE_URL=http://127.0.0.1:9/v1\n`,
    );
    writeFileSync(join(project, ".env.local"), `VERDICT_HOME=.verdict-from-dotenv\n`);
    writeFileSync(
      join(project, "score.ts"),
      `import { AnswerRelevancyMetric, evaluate, ToxicityMetric } from "verdict";
const result = await evaluate({
  testCases: [{ input: "Hi", actualOutput: "Hello, how can I help?" }],
  metrics: [new ToxicityMetric()],
  display: "none",
});
const metric = new AnswerRelevancyMetric();
await metric.measure({ input: "Hi", actualOutput: "Hello, how can I help?" });
console.log(JSON.stringify({
  evaluated: result.testResults[0].metricsData[0],
  measured: { model: metric.evaluationModel, error: metric.error },
}));
`,
    );
    // The environment wins over .env: the base URL is the fake server's, not the file's.
    const result = await run({
      project,
      args: ["score.ts"],
      env: cleanEnv({ OPENAI_BASE_URL: server.url }),
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const { evaluated, measured } = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(evaluated).toMatchObject({ error: null, evaluationModel: "openai:gpt-4.1-mini" });
    expect(measured).toEqual({ model: "openai:gpt-4.1-mini", error: null });
    expect(existsSync(join(project, ".verdict-from-dotenv/verdict.db"))).toBe(true);
    expect(existsSync(join(project, ".verdict"))).toBe(false);
    expect(server.requests.some((request) => request.model === "gpt-4.1-mini")).toBe(true);
  });

  it("metric.measure() with a judge of the script's own reads .env too, before the judge is asked", async ({
    expect,
  }) => {
    const project = makeProject("module");
    writeFileSync(join(project, ".env"), "MY_JUDGE_TOKEN=only-in-dotenv\n");
    writeFileSync(
      join(project, "score.ts"),
      `import { ToxicityMetric } from "verdict";
const answers = [{ opinions: ["You are great."] }, { verdicts: [{ verdict: "no" }] }];
let calls = 0;
let token;
const myJudge = {
  name: "my-judge",
  generate: async () => {
    token ??= process.env.MY_JUDGE_TOKEN;
    return JSON.stringify(answers[calls++ % answers.length]);
  },
};
const score = await new ToxicityMetric({ model: myJudge, includeReason: false }).measure({
  input: "How am I doing?",
  actualOutput: "You are great.",
});
console.log(JSON.stringify({ score, token }));
`,
    );
    const result = await run({ project, args: ["score.ts"], env: cleanEnv() });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}")).toEqual({
      score: 0,
      token: "only-in-dotenv",
    });
  });
});
