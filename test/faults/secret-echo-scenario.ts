import { randomInt } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { unpackText } from "../../src/store/packed-text.ts";
import { type FakeResponder, reply, startFakeOpenAIServer } from "../../src/testing/index.ts";
import { runNode } from "../e2e/run-node.ts";

/** How the judge is given the plain key. */
export type SecretMode = "env" | "dotenv" | "code";

/** Every byte a run wrote that could leak, by channel. */
export interface SecretEchoOutcome {
  secrets: { skKey: string; plainKey: string };
  /** Channel name → the bytes written there. */
  channels: Map<string, Buffer>;
  exitCode: number | null;
  /** Responses the server sent, by HTTP status. */
  byStatus: Record<string, number>;
  folder: string;
}

const CHILD = fileURLToPath(new URL("./fixtures/secret-echo-run.ts", import.meta.url));
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random key of `length` letters and digits: no pattern the redactor knows. */
export function randomAlphanumeric(length: number): string {
  let key = "";
  for (let index = 0; index < length; index++) key += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return key;
}

/**
 * A judge server that echoes both keys in error bodies (message, code, type), in response
 * headers, and in successful answers (opinions, reasons), for a run of three test cases.
 */
function echoingResponder(secrets: { skKey: string; plainKey: string }): FakeResponder {
  const { skKey, plainKey } = secrets;
  return (request) => {
    if (request.prompt.includes("case-error")) {
      return reply.error(400, {
        message: `Invalid request for key ${plainKey}; the org key ${skKey} was also tried.`,
        code: "invalid_request",
        headers: { "x-echoed-key": plainKey, "x-openai-key": skKey },
      });
    }
    if (request.prompt.includes("case-code")) {
      // 422, not 401: a rejected key stops the whole run (fail fast), and this case is one of three.
      return reply.error(422, {
        message: `Incorrect API key provided: ${plainKey}.`,
        code: plainKey,
        type: skKey,
        headers: { "www-authenticate": `Bearer realm="${plainKey}"` },
      });
    }
    const properties = Object.keys(
      (request.jsonSchema?.properties as Record<string, unknown> | undefined) ?? {},
    );
    if (properties.includes("opinions")) {
      return reply.json({ opinions: [`My key is ${plainKey}, and ${skKey} is my other one.`] });
    }
    if (properties.includes("verdicts")) {
      return reply.json({ verdicts: [{ verdict: "yes", reason: `It exposes ${plainKey}.` }] });
    }
    if (properties.includes("reason")) {
      return reply.json({ reason: `The score is 0.00 because ${plainKey} and ${skKey} leaked.` });
    }
    return undefined;
  };
}

/**
 * Runs the whole program in a child process against the echoing fake server and gathers
 * every byte it wrote: the database with its WAL and shared-memory files, the judge cache
 * rows, each report, stdout and stderr, and the messages and `util.inspect` of the errors
 * it threw.
 */
export async function runSecretEchoScenario(options: {
  mode: SecretMode;
}): Promise<SecretEchoOutcome> {
  const secrets = { skKey: `sk-proj-${randomAlphanumeric(40)}`, plainKey: randomAlphanumeric(40) };
  const folder = mkdtempSync(path.join(tmpdir(), `verdict-secrets-${options.mode}-`));
  const home = path.join(folder, "home");
  mkdirSync(home);
  const server = await startFakeOpenAIServer({ respond: echoingResponder(secrets) });
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    for (const name of Object.keys(env)) {
      if (name.startsWith("OPENAI_") || name.startsWith("VERDICT_")) delete env[name];
    }
    if (options.mode === "env") {
      env.OPENAI_API_KEY = secrets.plainKey;
      env.OPENAI_BASE_URL = server.url;
    }
    if (options.mode === "dotenv") {
      writeFileSync(
        path.join(home, ".env"),
        `OPENAI_API_KEY=${secrets.plainKey}\nOPENAI_BASE_URL=${server.url}\n`,
      );
    }
    const scenario = {
      mode: options.mode,
      home,
      serverUrl: server.url,
      plainKey: secrets.plainKey,
    };
    const run = runNode({ args: [CHILD, JSON.stringify(scenario)], env });
    const exitCode = await run.exited;
    const { stdout, stderr } = run.output();
    const channels = new Map<string, Buffer>();
    channels.set("stdout", Buffer.from(stdout));
    channels.set("stderr", Buffer.from(stderr));
    const database = path.join(home, "verdict.db");
    for (const [channel, file] of [
      ["db", database],
      ["db-wal", `${database}-wal.copy`],
      ["db-shm", `${database}-shm.copy`],
    ] as const) {
      if (existsSync(file)) channels.set(channel, readFileSync(file));
    }
    channels.set("cache", judgeCacheRows(database));
    channels.set("judge texts", judgeTextRows(database));
    const reports = path.join(home, "reports");
    for (const name of existsSync(reports) ? readdirSync(reports).sort() : []) {
      channels.set(`report ${name}`, readFileSync(path.join(reports, name)));
    }
    const printed = stdout.split("\n");
    channels.set(
      "error messages",
      Buffer.from(printed.filter((line) => line.startsWith("message: ")).join("\n")),
    );
    channels.set("util.inspect of errors", Buffer.from(inspections(stdout)));
    return { secrets, channels, exitCode, byStatus: server.stats().byStatus, folder };
  } finally {
    await server.close();
  }
}

/** Every row of the judge cache, as text. */
function judgeCacheRows(file: string): Buffer {
  if (!existsSync(file)) return Buffer.alloc(0);
  const database = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = database.prepare("SELECT key, text, object FROM judge_cache").all();
    return Buffer.from(JSON.stringify(rows));
  } finally {
    database.close();
  }
}

/** Every judge prompt and answer the store keeps, unpacked, as text (the file holds them compressed). */
function judgeTextRows(file: string): Buffer {
  if (!existsSync(file)) return Buffer.alloc(0);
  const database = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = database.prepare("SELECT packed FROM judge_texts").all();
    return Buffer.from(rows.map((row) => unpackText(row.packed as Uint8Array)).join("\n"));
  } finally {
    database.close();
  }
}

/** The `inspect: …` blocks the child printed (each runs until its `json: ` line). */
function inspections(stdout: string): string {
  const blocks: string[] = [];
  let at = stdout.indexOf("inspect: ");
  while (at !== -1) {
    const end = stdout.indexOf("\njson: ", at);
    blocks.push(stdout.slice(at, end === -1 ? undefined : end));
    at = stdout.indexOf("inspect: ", at + 1);
  }
  return blocks.join("\n");
}

/** How often `needle` occurs in `bytes`. */
export function countOccurrences(bytes: Buffer, needle: string): number {
  const wanted = Buffer.from(needle);
  let count = 0;
  for (let at = bytes.indexOf(wanted); at !== -1; at = bytes.indexOf(wanted, at + 1)) count++;
  return count;
}
