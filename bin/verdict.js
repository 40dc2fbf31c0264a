#!/usr/bin/env node
// The `verdict` command. Plain JavaScript, committed rather than built (so `npm publish` on a
// clean checkout finds it), whose first import needs no Node 22 built-in: an older Node
// prints the one line naming the version verdict needs and exits 2 (a configuration error),
// instead of failing on "No such built-in module: node:sqlite".
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { fileURLToPath } from "node:url";

const built = new URL("../dist/cli/main.js", import.meta.url);
const sources = new URL("../src/cli/main.ts", import.meta.url);

if (existsSync(fileURLToPath(built))) {
  const { nodeHasSqlite, unsupportedNodeMessage } = await import(
    "../dist/store/node-sqlite-support.js"
  );
  if (nodeHasSqlite(process.versions.node)) {
    await import(built.href);
  } else {
    process.stderr.write(`${unsupportedNodeMessage(process.versions.node)}\n`);
    process.exitCode = 2;
  }
} else if (existsSync(fileURLToPath(sources))) {
  // A source checkout that was not built (`npm ci` builds nothing): run the TypeScript sources,
  // which Node 24 runs as they are, with the condition that makes `verdict` load them too.
  const child = spawn(
    process.execPath,
    ["--conditions=verdict-source", fileURLToPath(sources), ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  // The child stops its run on each of these and exits 128 + the signal's number itself.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1);
  });
} else {
  process.stderr.write("verdict is not built: run `npm run build` in its folder.\n");
  process.exitCode = 2;
}
