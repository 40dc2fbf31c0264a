import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  countOccurrences,
  runSecretEchoScenario,
  type SecretMode,
} from "./secret-echo-scenario.ts";

// The fake server echoes an `sk-…` key and a plain 40-character key in error bodies, error
// codes, response headers and answers, during a whole run (real provider over HTTP, SQLite
// store and cache, JSON/JUnit/HTML reports, console and progress output), with the plain key
// given to the judge three ways. Not one byte written may hold either key.
describe.concurrent("secrets echoed by the judge server", () => {
  it.each<SecretMode>(["env", "dotenv", "code"])(
    "never leave the process when the key comes from %s",
    async (mode) => {
      const outcome = await runSecretEchoScenario({ mode });
      try {
        const { channels, secrets } = outcome;
        const text = (channel: string) => channels.get(channel)?.toString("utf8") ?? "";
        // The run happened and every channel was written, so the counts below mean something.
        expect(outcome.exitCode, text("stderr")).toBe(0);
        expect(outcome.byStatus).toMatchObject({ 400: 3, 422: 3 });
        expect([...channels.keys()]).toEqual(
          expect.arrayContaining(["db", "db-wal", "report first.json", "report first.xml"]),
        );
        expect(channels.get("db-wal")?.length).toBeGreaterThan(0);
        expect(text("report first.json")).toContain("Invalid request for key ***; the org key ***");
        expect(text("report first.html")).toContain("My key is ***, and *** is my other one.");
        expect(text("cache")).toContain("It exposes ***.");
        // The judge's prompts quote the output, which holds both keys: kept masked.
        expect(text("judge texts")).toContain("My key is ***, and *** is my other one.");
        expect(text("error messages")).toContain("Incorrect API key provided: ***");
        expect(text("util.inspect of errors")).toContain("[cause]: Error");
        expect(text("stdout")).toContain("echo-in-reason");

        const leaks: Record<string, number> = {};
        for (const [channel, bytes] of channels) {
          for (const [name, secret] of Object.entries(secrets)) {
            const count = countOccurrences(bytes, secret);
            if (count > 0) leaks[`${name} in ${channel}`] = count;
          }
        }
        expect(leaks).toEqual({});
      } finally {
        rmSync(outcome.folder, { recursive: true, force: true });
      }
    },
  );
});
