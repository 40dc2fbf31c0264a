#!/usr/bin/env node
// The `verdict` command. Plain JavaScript, committed rather than built (so `npm publish` on a
// clean checkout finds it), whose first import needs no Node 22 built-in: an older Node
// prints the one line naming the version verdict needs and exits 2 (a configuration error),
// instead of failing on "No such built-in module: node:sqlite".
import { nodeHasSqlite, unsupportedNodeMessage } from "../dist/store/node-sqlite-support.js";

if (nodeHasSqlite(process.versions.node)) {
  await import("../dist/cli/main.js");
} else {
  process.stderr.write(`${unsupportedNodeMessage(process.versions.node)}\n`);
  process.exitCode = 2;
}
