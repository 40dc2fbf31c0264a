// The fake OpenAI server in a process of its own, so that the CPU and memory the benchmark
// measures in its own process are verdict's alone. Started by fake-server-child.ts with fork():
//   node --conditions=verdict-source bench/fake-server-process.ts --latency 200 [--judge fill]
// --judge realistic (default) answers from the text each prompt quotes (bench/realistic-judge.ts);
// --judge fill uses the server's default answer, which fills the schema from a few fixed words.
// Prints one JSON line {"url": "http://127.0.0.1:<port>/v1"} on stdout once listening.
// Counters: GET <origin>/stats (served by the fake server itself). Over the IPC channel it takes
// {type: "reset"} (clear the counters, answers {type: "reset-done"}); it exits when the parent
// disconnects or on SIGTERM.
import { parseArgs } from "node:util";
import { startFakeOpenAIServer } from "verdict/testing";
import { realisticJudge } from "./realistic-judge.ts";

const { values } = parseArgs({
  options: {
    latency: { type: "string", default: "0" },
    judge: { type: "string", default: "realistic" },
  },
});
const latencyMs = Number(values.latency);
if (!Number.isFinite(latencyMs) || latencyMs < 0) {
  throw new Error(`--latency must be a number of milliseconds, 0 or more; got ${values.latency}.`);
}

if (values.judge !== "realistic" && values.judge !== "fill") {
  throw new Error(`--judge must be "realistic" or "fill"; got ${values.judge}.`);
}

const server = await startFakeOpenAIServer({
  latencyMs,
  ...(values.judge === "realistic" ? { respond: realisticJudge } : {}),
});

async function shutdown(): Promise<void> {
  await server.close();
  process.exit(0);
}

process.on("message", (message: { type?: string }) => {
  if (message.type === "reset") {
    server.reset();
    process.send?.({ type: "reset-done" });
  }
});
process.on("disconnect", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
