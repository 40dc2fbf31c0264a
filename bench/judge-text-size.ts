// What keeping the judge's prompts and raw answers costs in the store (issue 23): the same
// run of N cases × 3 metrics (Toxicity, Bias, Answer Relevancy), scored on the real wire path
// (AI SDK OpenAI provider → HTTP → the fake server answering like a judge), once with
// keepJudgeText "text" (the default) and once with "hash", each into a fresh SQLite store.
// Prints the stored bytes per case: the file, the results' JSON and the judge texts.
//   node --conditions=verdict-source bench/judge-text-size.ts [--cases 500]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { createOpenAI } from "@ai-sdk/openai";
import { AnswerRelevancyMetric, BiasMetric, createJudge, evaluate, ToxicityMetric } from "verdict";
import { SqliteRunStore } from "verdict/stores";
import { startFakeOpenAIServer } from "verdict/testing";
import { unpackText } from "../src/store/packed-text.ts";
import { generateCases } from "./bench-cases.ts";
import { realisticJudge } from "./realistic-judge.ts";

const { values } = parseArgs({ options: { cases: { type: "string", default: "500" } } });
const count = Number(values.cases);
const server = await startFakeOpenAIServer({ respond: realisticJudge });
const judge = createJudge({
  model: createOpenAI({ baseURL: server.url, apiKey: "sk-bench" })("gpt-4.1"),
});
const testCases = generateCases(count);

interface Sizes {
  mode: string;
  /** Of the results' JSON, the `"promptHash":"…",` and `"answerHash":"…",` fields. */
  hashBytes: number;
  /** The texts as stored: each compressed alone with Brotli (quality 5). */
  brotliBytes: number;
  judgeCalls: number;
  fileBytes: number;
  resultBytes: number;
  texts: number;
  textBytes: number;
  promptsSent: number;
}

async function measure(mode: "text" | "hash"): Promise<Sizes> {
  const folder = mkdtempSync(join(tmpdir(), "verdict-judge-text-"));
  const file = join(folder, "verdict.db");
  try {
    const store = new SqliteRunStore({ path: file });
    const result = await evaluate({
      testCases,
      metrics: [
        new ToxicityMetric({ model: judge }),
        new BiasMetric({ model: judge }),
        new AnswerRelevancyMetric({ model: judge }),
      ],
      store,
      keepJudgeText: mode,
      cache: false,
      display: "none",
      showProgress: false,
      handleInterrupt: false,
    });
    await store.close();
    // Every page in the main file, none free: what the store holds, not what it had spare.
    const database = new DatabaseSync(file);
    database.exec("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;");
    const bytes = (sql: string) => Number(database.prepare(sql).get()?.bytes ?? 0);
    const sizes: Sizes = {
      mode,
      judgeCalls: result.summary.judgeCalls + result.summary.sharedCalls,
      fileBytes: 0,
      resultBytes: bytes(
        "SELECT coalesce(sum(length(CAST(result AS BLOB))), 0) AS bytes FROM test_results",
      ),
      texts: bytes("SELECT count(*) AS bytes FROM judge_texts"),
      textBytes: 0,
      promptsSent: server.requests.length,
      hashBytes: 0,
      brotliBytes: 0,
    };
    for (const row of database.prepare("SELECT result FROM test_results").iterate()) {
      sizes.hashBytes += (
        String(row.result).match(/"(?:prompt|answer)Hash":"[0-9a-f]{64}",?/g) ?? []
      ).join("").length;
    }
    for (const row of database.prepare("SELECT packed FROM judge_texts").iterate()) {
      const packed = row.packed as Uint8Array;
      sizes.brotliBytes += packed.length;
      sizes.textBytes += Buffer.byteLength(unpackText(packed), "utf8");
    }
    database.close();
    sizes.fileBytes = statSync(file).size;
    return sizes;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const rows: Sizes[] = [];
for (const mode of ["text", "hash"] as const) {
  server.reset();
  rows.push(await measure(mode));
}
await server.close();
const perCase = (bytes: number) => (bytes / count).toFixed(0);
console.log(`${count} cases × 3 metrics, Node ${process.version}`);
console.log(
  "| keepJudgeText | judge calls | file bytes / case | results JSON bytes / case | of which hashes | judge texts kept | text bytes / case | stored (Brotli) / case |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const row of rows) {
  console.log(
    `| ${row.mode} | ${row.judgeCalls} | ${perCase(row.fileBytes)} | ${perCase(row.resultBytes)} | ${perCase(row.hashBytes)} | ${row.texts} | ${perCase(row.textBytes)} | ${perCase(row.brotliBytes)} |`,
  );
}
