// Runs the examples against verdict's fake OpenAI-compatible server, so they work with no
// key and no network: node examples/with-fake-judge.ts [example.ts …]
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAIServer } from "verdict/testing";

const here = dirname(fileURLToPath(import.meta.url));
const requested = process.argv.slice(2);
const examples =
  requested.length > 0
    ? requested
    : [
        "toxicity.ts",
        "bias.ts",
        "answer-relevancy.ts",
        "evaluate-suite.ts",
        "dataset-run.ts",
        "component-level.ts",
      ].map((file) => join(here, file));

// The server answers from this process while each example runs as a child: spawn (not
// spawnSync), so this event loop stays free to serve it.
function runExample(example: string, baseUrl: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...process.execArgv, example], {
      stdio: "inherit",
      env: {
        ...process.env,
        OPENAI_BASE_URL: baseUrl,
        OPENAI_API_KEY: "fake-key",
        VERDICT_MODEL: "gpt-4.1",
      },
    });
    child.on("exit", (code) => resolve(code));
  });
}

const server = await startFakeOpenAIServer();
let failed = 0;
try {
  for (const example of examples) {
    console.log(`\n$ node ${example}`);
    if ((await runExample(example, server.url)) !== 0) failed += 1;
  }
} finally {
  await server.close();
}
console.log(
  `\n${examples.length - failed}/${examples.length} examples ran against the fake judge.`,
);
process.exitCode = failed === 0 ? 0 : 1;
