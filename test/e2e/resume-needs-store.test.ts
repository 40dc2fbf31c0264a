// A resume whose default SQLite store cannot be opened stops before any judge call, for
// evaluate() in a script and for `verdict test run --resume`, whatever is wrong with the store.
// Under root, whom file permissions do not stop, the read-only cases run the program as an
// unprivileged user (`nobody`), so that they are real there too.

import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from "../../src/testing/fake-openai-server.ts";
import { makeLinkedProject } from "../fixtures/linked-project.ts";
import {
  failsByPermissions,
  makeUnopenableStore,
  removeUnopenableStore,
  runsAsRoot,
  UNOPENABLE_STORES,
  UNPRIVILEGED,
  type UnopenableStore,
} from "../fixtures/unopenable-stores.ts";
import { projectRoot, runNode } from "./run-node.ts";

const MAIN = join(projectRoot, "src/cli/main.ts");
const EVALUATE_CHILD = join(projectRoot, "test/e2e/fixtures/evaluate-child.ts");

const EVAL_FILE = `import { test } from "vitest";
import { ToxicityMetric } from "verdict";
import { assertTest } from "verdict/vitest";

for (const number of [1, 2, 3]) {
  test(\`answer \${number}\`, async () => {
    await assertTest({ input: "Hi", actualOutput: \`Hello \${number}\` }, [new ToxicityMetric()]);
  });
}
`;

let project: string;
const homes: string[] = [];

function run(options: { args: string[]; env: NodeJS.ProcessEnv; unprivileged: boolean }) {
  return runNode({
    args: options.args,
    cwd: project,
    // Vitest writes a token under HOME: the unprivileged user gets one it may write.
    env: {
      ...options.env,
      HOME: options.unprivileged ? join(project, "user-home") : process.env.HOME,
    },
    ...(options.unprivileged ? { user: UNPRIVILEGED } : {}),
  }).finished;
}

async function brokenHome(kind: UnopenableStore, name: string): Promise<string> {
  const home = join(project, "homes", name);
  homes.push(home);
  await makeUnopenableStore({ home, kind, identifier: "killed-run" });
  return home;
}

describe.concurrent("a resume whose store cannot be opened", () => {
  let server: FakeOpenAIServer;
  beforeAll(async () => {
    server = await startFakeOpenAIServer({});
    project = makeLinkedProject({ prefix: "verdict-resume-store-" });
    // Readable by the unprivileged user that runs the read-only cases under root.
    chmodSync(project, 0o755);
    mkdirSync(join(project, "evals"));
    mkdirSync(join(project, "homes"), { mode: 0o755 });
    mkdirSync(join(project, "user-home"));
    chmodSync(join(project, "user-home"), 0o777);
    writeFileSync(join(project, "evals/answers.eval.ts"), EVAL_FILE);
  });
  afterAll(async () => {
    await server?.close();
    for (const home of homes.splice(0)) removeUnopenableStore(home);
    if (project) rmSync(project, { recursive: true, force: true });
  });

  for (const kind of UNOPENABLE_STORES) {
    const unprivileged = runsAsRoot && failsByPermissions(kind);
    const slug = kind.replaceAll(" ", "-");

    it(`evaluate({ resume: true }): a ${kind} stops it before any judge call`, async ({
      expect,
    }) => {
      const home = await brokenHome(kind, `evaluate-${slug}`);
      const before = server.requests.length;
      const result = await run({
        args: [EVALUATE_CHILD],
        env: {
          PATH: process.env.PATH,
          CASES: "4",
          RESUME: "1",
          OPENAI_BASE_URL: server.url,
          OPENAI_API_KEY: "sk-fake",
          VERDICT_HOME: home,
        },
        unprivileged,
      });
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain("StoreError");
      expect(result.stderr).toContain(join(home, "verdict.db"));
      expect(result.stderr).toContain(
        "A resumed run reads its finished cases from this store and cannot go on without it",
      );
      expect(result.stdout).not.toContain("completed");
      // The server is shared by the scenarios running at once: none of them may call it.
      expect(server.requests.length).toBe(before);
    });

    it(`verdict test run --resume: a ${kind} exits 2 before any judge call`, async ({ expect }) => {
      const home = await brokenHome(kind, `test-run-${slug}`);
      const before = server.requests.length;
      const result = await run({
        args: [MAIN, "test", "run", "--identifier", "killed-run", "--resume"],
        env: {
          PATH: process.env.PATH,
          NO_COLOR: "1",
          OPENAI_BASE_URL: server.url,
          OPENAI_API_KEY: "sk-fake",
          VERDICT_HOME: home,
        },
        unprivileged,
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `^Could not open the verdict store ${join(home, "verdict.db").replaceAll(/[./-]/g, "\\$&")}: .*A resumed run reads its finished cases from this store .*nothing was run\\.\\n$`,
        ),
      );
      expect(result.stdout).not.toMatch(/Status:|Test cases:/);
      expect(server.requests.length).toBe(before);
    });
  }
});
