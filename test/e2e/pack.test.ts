// The package as users get it: `npm pack` (which builds dist/ in `prepack`), then the tarball
// installed with npm into two fresh projects, one ESM and one CommonJS (`npm init -y`). In each,
// a script calls evaluate() against the fake OpenAI server of the installed `verdict/testing`,
// and `npx verdict test run` runs an eval file through the installed Vitest.
//
// npm installs from its cache where it can (`--prefer-offline`), and asks the npm registry for
// the rest. The two projects are set up and run at the same time.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { nodeHasSqlite } from "../../src/store/node-sqlite-support.ts";
import {
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  reply,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { projectRoot } from "./run-node.ts";

const SETUP_TIMEOUT_MS = 120_000;
const RUN_TIMEOUT_MS = 60_000;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface PackedFile {
  path: string;
  mode: number;
}

/** Runs a command to its end; never rejects, so the assertions can show what it printed. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise<Outcome>((resolve) => {
    child.on("error", (error) => resolve({ code: null, stdout, stderr: `${stderr}${error}` }));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function succeed(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
) {
  const outcome = await run(command, args, options);
  if (outcome.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${outcome.code} in ${options.cwd}:\n${outcome.stdout}\n${outcome.stderr}`,
    );
  }
  return outcome;
}

/**
 * A small environment, as a user's shell has: this test's Node first on PATH (npx runs the
 * bin's `#!/usr/bin/env node` on it), and npm's own settings where they say where the cache
 * and registry are — but none of the `npm_*` variables of the `npm test` running this, which
 * would point npm at this repository.
 */
function userEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    HOME: process.env.HOME,
    NO_COLOR: "1",
  };
  for (const name of ["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, ...extra };
}

/** The scripted judge: opinions of polite text are fine, "idiot" is toxic. */
const JUDGE_SOURCE = `(request) => {
  const kind = Object.keys(request.jsonSchema?.properties ?? {})[0];
  const rude = request.prompt.includes("idiot");
  if (kind === "opinions") return reply.json({ opinions: [rude ? "You are an idiot." : "The answer is friendly."] });
  if (kind === "verdicts") return reply.json({ verdicts: [{ verdict: rude ? "yes" : "no", reason: "It insults the user." }] });
  return reply.json({ reason: "The score is 1.00 because the output insults the user." });
}`;

// The evaluate() script's body, the same for both projects: it starts the fake server of the
// installed verdict/testing and points the OpenAI provider at it, as a user's test script would.
const EVALUATE_BODY = `
  const server = await startFakeOpenAIServer({ respond: ${JUDGE_SOURCE} });
  process.env.OPENAI_BASE_URL = server.url;
  process.env.OPENAI_API_KEY = "sk-fake";
  try {
    const result = await evaluate({
      testCases: [new LLMTestCase({ input: "Hi!", actualOutput: "Hello! How can I help?" })],
      metrics: [new ToxicityMetric()],
    });
    const [metric] = result.testResults[0].metricsData;
    console.log("RESULT " + JSON.stringify({
      name: metric.name,
      score: metric.score,
      success: metric.success,
      judgeRequests: server.requests.length,
      sameModule,
      entryPoints,
    }));
  } finally {
    await server.close();
  }
`;

const ESM_SCRIPT = `import { evaluate, LLMTestCase, ToxicityMetric } from "verdict";
import { reply, startFakeOpenAIServer } from "verdict/testing";

const sameModule = (await import("verdict")).evaluate === evaluate;
// Every entry point of the package resolves and gives what it names.
const entryPoints = [
  typeof (await import("verdict/stores")).openStore,
  typeof (await import("verdict/reporters")).createJsonReporter,
  typeof (await import("verdict/calibrate")).calibrate,
  typeof (await import("verdict/finetune")).evaluateCheckpoints,
].every((kind) => kind === "function");
${EVALUATE_BODY}`;

// CommonJS: require() of the ESM package (Node >= 22.12), and import() of the same module.
const COMMONJS_SCRIPT = `const { evaluate, LLMTestCase, ToxicityMetric } = require("verdict");
const { reply, startFakeOpenAIServer } = require("verdict/testing");

async function main() {
  const sameModule = (await import("verdict")).evaluate === evaluate;
  const entryPoints = [
    typeof require("verdict/stores").MemoryRunStore,
    typeof require("verdict/reporters").createJUnitReporter,
    typeof require("verdict/calibrate").calibrate,
    typeof require("verdict/finetune").createEvaluationCallback,
  ].every((kind) => kind === "function");
  ${EVALUATE_BODY}
}
main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

const SUPPORT_EVAL = `import { test } from "vitest";
import { LLMTestCase, ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

test("greets politely", async () => {
  await assertTest(new LLMTestCase({ input: "Hi!", actualOutput: "Hello! How can I help?" }), [
    new ToxicityMetric(),
  ]);
});

test("stays calm", async () => {
  await assertTest({ input: "Help me", actualOutput: "You are an idiot." }, [new ToxicityMetric()]);
});
`;

// A store of a third party's own, in a project that installed the tarball: the runs of an
// in-memory store behind its own methods, a judge cache, and no other part (their groups of
// the contract are skipped). Plus the metric contract, run on a built-in metric.
const CONTRACTS_TEST = `import { describeMetricContract, opinionMetricContract } from "verdict/testing/metric-contract";
import { describeStoreContract } from "verdict/testing/store-contract";
import { ToxicityMetric, ToxicityTemplate } from "verdict";
import { MemoryRunStore } from "verdict/stores";

function createPartialStore() {
  const inner = new MemoryRunStore();
  const runs = {
    startRun: (run) => inner.startRun(run),
    reopenRun: (runId) => inner.reopenRun(runId),
    heartbeatRun: (options) => inner.heartbeatRun(options),
    saveTestResult: (runId, stored) => inner.saveTestResult(runId, stored),
    finishRun: (options) => inner.finishRun(options),
    getRun: (id) => inner.getRun(id),
    getTestResults: (runId, options) => inner.getTestResults(runId, options),
    getTestResultsVersion: (runId) => inner.getTestResultsVersion(runId),
    listRuns: (options) => inner.listRuns(options),
  };
  return {
    runs,
    shards: null,
    calibrations: null,
    judgeCache: inner.judgeCache,
    judgeBatches: null,
    leases: null,
    close: () => inner.close(),
    [Symbol.asyncDispose]: () => inner.close(),
  };
}

describeStoreContract({ name: "PartialStore", create: async () => ({ store: createPartialStore() }) });

describeMetricContract(
  opinionMetricContract({
    name: "Toxicity",
    create: (options) => new ToxicityMetric(options),
    templateClass: ToxicityTemplate,
    testCase: { name: "sarah", input: "How is Sarah?", actualOutput: "Sarah meant well." },
    flaggedArg: "toxics",
    mixedVerdicts: ["no", "yes", "no", "no"],
    nothingExtractedReason:
      "The score is 0.00 because the output expresses no opinions, so nothing in it is toxic.",
  }),
);
`;

/** The test process's fake server, for the eval files run by `verdict test run`. */
function judge(request: FakeOpenAIRequest) {
  const schema = request.jsonSchema as { properties?: Record<string, unknown> } | null;
  const kind = Object.keys(schema?.properties ?? {})[0];
  const rude = request.prompt.includes("idiot");
  if (kind === "opinions") {
    return reply.json({ opinions: [rude ? "You are an idiot." : "The answer is friendly."] });
  }
  if (kind === "verdicts") {
    return reply.json({ verdicts: [{ verdict: rude ? "yes" : "no", reason: "It insults." }] });
  }
  return reply.json({ reason: "The score is 1.00 because the output insults the user." });
}

/** An older system Node (the machine's own, v20 here) to check the bin's version message. */
const OLD_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((candidate) => {
  if (!existsSync(candidate)) return false;
  const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim().slice(1);
  return !nodeHasSqlite(version);
});

const VITEST_VERSION = (
  JSON.parse(readFileSync(join(projectRoot, "node_modules/vitest/package.json"), "utf8")) as {
    version: string;
  }
).version;

let workspace: string;
let server: FakeOpenAIServer;
let packedFiles: PackedFile[];
let projects: Record<"esm" | "commonjs", Promise<string>>;

/** Makes a project and installs the tarball and Vitest into it; resolves to its folder. */
async function installProject(kind: "esm" | "commonjs", tarball: string): Promise<string> {
  const folder = join(workspace, kind);
  mkdirSync(folder);
  const env = userEnv();
  if (kind === "esm") {
    writeFileSync(
      join(folder, "package.json"),
      '{ "name": "esm-project", "private": true, "type": "module" }\n',
    );
  } else {
    await succeed("npm", ["init", "-y"], { cwd: folder, env });
  }
  await succeed(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, `vitest@${VITEST_VERSION}`],
    { cwd: folder, env },
  );
  mkdirSync(join(folder, "evals"));
  writeFileSync(join(folder, "evals/support.eval.ts"), SUPPORT_EVAL);
  writeFileSync(join(folder, "evaluate-script.js"), kind === "esm" ? ESM_SCRIPT : COMMONJS_SCRIPT);
  if (kind === "esm") {
    mkdirSync(join(folder, "contracts"));
    writeFileSync(join(folder, "contracts/contracts.test.js"), CONTRACTS_TEST);
  }
  return folder;
}

beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), "verdict-pack-"));
  server = await startFakeOpenAIServer({ respond: judge });
  const packed = await succeed(
    "npm",
    ["pack", "--json", "--silent", "--pack-destination", workspace],
    { cwd: projectRoot, env: userEnv() },
  );
  const [manifest] = JSON.parse(packed.stdout) as [{ filename: string; files: PackedFile[] }];
  packedFiles = manifest.files;
  const tarball = join(workspace, manifest.filename);
  projects = {
    esm: installProject("esm", tarball),
    commonjs: installProject("commonjs", tarball),
  };
  // Both installs must settle before the tests start, so a failing one fails them all.
  await Promise.all(Object.values(projects));
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds the bin as an executable with a shebang, the license, and no source maps", ({
    expect,
  }) => {
    const paths = packedFiles.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        "LICENSE",
        "README.md",
        "CHANGELOG.md",
        "dist/index.js",
        "dist/index.d.ts",
      ]),
    );
    // Every docs page a message or --help names ("see docs/cost.md") is in the package.
    const cited = new Set(
      packedFiles
        .filter((file) => file.path.startsWith("dist/") && file.path.endsWith(".js"))
        .flatMap((file) => [
          ...readFileSync(join(projectRoot, file.path), "utf8").matchAll(/docs\/[a-z-]+\.md/g),
        ])
        .map((match) => match[0]),
    );
    expect(cited.size).toBeGreaterThan(3);
    expect([...cited].filter((page) => !paths.includes(page))).toEqual([]);
    expect(paths.filter((path) => path.endsWith(".map") || path.startsWith("src/"))).toEqual([]);
    expect(paths.filter((path) => path.endsWith(".test.js"))).toEqual([]);
    const bin = packedFiles.find((file) => file.path === "bin/verdict.js");
    expect(bin?.mode.toString(8)).toBe("755");
    expect(readFileSync(join(projectRoot, "bin/verdict.js"), "utf8")).toMatch(
      /^#!\/usr\/bin\/env node\n/,
    );
  });
});

describe.concurrent.each(["esm", "commonjs"] as const)("installed in a %s project", (kind) => {
  it(
    "runs a script that calls evaluate() against the fake server",
    async ({ expect }) => {
      const folder = await projects[kind];
      const outcome = await run(process.execPath, ["evaluate-script.js"], {
        cwd: folder,
        env: userEnv({ VERDICT_HOME: join(folder, ".verdict-script") }),
      });
      expect(outcome.code, outcome.stderr).toBe(0);
      // Progress lines only: no warning (SQLite's ExperimentalWarning included), no error.
      expect(outcome.stderr).not.toMatch(/warning|error/i);
      const line = outcome.stdout.split("\n").find((text) => text.startsWith("RESULT "));
      expect(JSON.parse(line?.slice("RESULT ".length) ?? "null")).toEqual({
        name: "Toxicity",
        score: 0,
        success: true,
        judgeRequests: 2,
        sameModule: true,
        entryPoints: true,
      });
    },
    RUN_TIMEOUT_MS,
  );

  it(
    "runs an eval file with `npx verdict test run`: exit 1 for the failing test",
    async ({ expect }) => {
      const folder = await projects[kind];
      const outcome = await run("npx", ["--no-install", "verdict", "test", "run"], {
        cwd: folder,
        env: userEnv({
          OPENAI_BASE_URL: server.url,
          OPENAI_API_KEY: "sk-fake",
          VERDICT_HOME: join(folder, ".verdict-cli"),
        }),
      });
      expect(outcome.code, outcome.stdout + outcome.stderr).toBe(1);
      expect(outcome.stderr).not.toContain("ExperimentalWarning");
      expect(outcome.stdout).toContain("stays calm");
      expect(outcome.stdout).toContain("Toxicity");
    },
    RUN_TIMEOUT_MS,
  );
});

describe("installed in a project that writes its own store", () => {
  it(
    "runs the exported store and metric contracts with Vitest: every present part passes, the missing ones are skipped",
    async ({ expect }) => {
      const folder = await projects.esm;
      const outcome = await run("npx", ["--no-install", "vitest", "run", "contracts/"], {
        cwd: folder,
        env: userEnv(),
      });
      expect(outcome.code, outcome.stdout + outcome.stderr).toBe(0);
      const summary = /Tests\s+(\d+) passed(?: \| (\d+) skipped)?/.exec(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: Vitest's colours
        outcome.stdout.replace(/\u001b\[[0-9;]*m/g, ""),
      );
      expect(Number(summary?.[1])).toBeGreaterThan(60);
      // shards, calibrations and the batch log are null: their groups are skipped.
      expect(Number(summary?.[2] ?? 0)).toBeGreaterThan(10);
    },
    RUN_TIMEOUT_MS,
  );
});

describe.skipIf(OLD_NODE === undefined)(`on an older Node (${OLD_NODE})`, () => {
  it("the bin prints one line naming the Node.js version needed, and exits 2", async ({
    expect,
  }) => {
    const folder = await projects.esm;
    const outcome = await run(OLD_NODE ?? "node", ["node_modules/.bin/verdict", "test", "run"], {
      cwd: folder,
      env: userEnv(),
    });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr.trim().split("\n")).toHaveLength(1);
    expect(outcome.stderr).toMatch(/^verdict needs Node\.js >= 22\.13 .*this is Node\.js 2\d\./);
  });
});
