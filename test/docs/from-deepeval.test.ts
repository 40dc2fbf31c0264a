// Keeps docs/from-deepeval.md honest: its TypeScript examples must type-check against the
// sources (exact export names, option names and types), the `verdict` commands and flags it
// shows must be ones the program accepts, and what it calls missing ("Not in verdict yet", a
// "not yet" row) must name, in backticks, nothing verdict exports, accepts or runs. A
// whole-program test: it runs tsc and the CLI.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectRoot } from "../e2e/run-node.ts";
import { cliHelp, type PublicSurface, publicSurface } from "../fixtures/public-surface.ts";

const PAGE = "docs/from-deepeval.md";
const page = readFileSync(join(projectRoot, PAGE), "utf8");

/** The page's fenced code blocks of one of the given languages, with the line each starts on. */
function codeBlocks(languages: readonly string[]): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = [];
  const lines = page.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const language = /^```(\w+)\s*$/.exec(lines[index] ?? "")?.[1];
    if (language === undefined) continue;
    const end = lines.findIndex((text, position) => position > index && text.startsWith("```"));
    if (languages.includes(language)) {
      blocks.push({ line: index + 1, code: lines.slice(index + 1, end).join("\n") });
    }
    index = end;
  }
  return blocks;
}

// What the page's examples call but leave to the reader ("your own code", as the page says).
const STAND_INS = `
declare function myApp(input: string): Promise<string>;
declare function searchDocs(question: string): Promise<string[]>;
declare function callLLM(question: string, chunks: string[]): Promise<string>;
declare const myClient: {
  complete(prompt: string, options?: { jsonSchema?: object }): Promise<string>;
};
`;

/** tsc's diagnostics for the page's TypeScript blocks, each compiled as its own module. */
function typeCheckBlocks(blocks: Array<{ line: number; code: string }>): string {
  const directory = mkdtempSync(join(tmpdir(), "verdict-docs-"));
  try {
    // Resolve vitest, zod, the AI SDK and @types/node as a user's project would.
    symlinkSync(join(projectRoot, "node_modules"), join(directory, "node_modules"), "dir");
    writeFileSync(join(directory, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(join(directory, "stand-ins.d.ts"), STAND_INS);
    const files = blocks.map(({ line, code }) => {
      const name = `from-deepeval-line-${line}.ts`;
      writeFileSync(join(directory, name), `${code}\nexport {};\n`);
      return name;
    });
    writeFileSync(
      join(directory, "tsconfig.json"),
      JSON.stringify({
        // The project's strict settings; `verdict`, `verdict/vitest` and `verdict/testing`
        // map to the entry points in src/ (the same targets as the package's exports).
        extends: join(projectRoot, "tsconfig.json"),
        compilerOptions: {
          noEmit: true,
          paths: {
            verdict: [join(projectRoot, "src/index.ts")],
            "verdict/stores": [join(projectRoot, "src/store/index.ts")],
            "verdict/reporters": [join(projectRoot, "src/report/index.ts")],
            "verdict/calibrate": [join(projectRoot, "src/calibrate/index.ts")],
            "verdict/finetune": [join(projectRoot, "src/finetune/index.ts")],
            "verdict/testing": [join(projectRoot, "src/testing/index.ts")],
            "verdict/vitest": [join(projectRoot, "src/vitest/index.ts")],
          },
        },
        files: ["stand-ins.d.ts", ...files],
      }),
    );
    const compiled = spawnSync(
      process.execPath,
      [
        join(projectRoot, "node_modules/typescript/bin/tsc"),
        "-p",
        "tsconfig.json",
        "--pretty",
        "false",
      ],
      { encoding: "utf8", cwd: directory },
    );
    // Point each error at the page: "from-deepeval-line-214.ts(3,7)" → "page line 217, column 7".
    return `${compiled.stdout}${compiled.stderr}`.replace(
      /from-deepeval-line-(\d+)\.ts\((\d+),(\d+)\)/g,
      (_match, start: string, line: string, column: string) =>
        `${PAGE} line ${Number(start) + Number(line)}, column ${column}`,
    );
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** `verdict … --help`, run on the sources. */
function help(command: string[]): string {
  const run = cliHelp(command);
  expect(run.status, `verdict ${command.join(" ")} --help: ${run.stderr}`).toBe(0);
  return run.stdout;
}

interface MissingClaim {
  line: number;
  claim: string;
  /** The names it gives in backticks, as verdict would spell them: `metricCollection`, `--mark`. */
  names: string[];
}

/** `metric_collection=…` → `metricCollection`; `dataset.evals_iterator()` → `evalsIterator`. */
function verdictSpelling(token: string): string {
  const name =
    token
      .replace(/[(=].*$/, "")
      .split(".")
      .at(-1) ?? "";
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * What a page says verdict lacks: each bullet of its "Not in verdict yet" section, and each
 * table row with a cell that starts "not yet" (the claim is the row's first cell, the deepeval
 * side), with the names each gives in backticks.
 */
function missingClaims(text: string): MissingClaim[] {
  const lines = text.split("\n");
  const claims: Array<{ line: number; claim: string }> = [];
  const section = lines.indexOf("## Not in verdict yet");
  for (let index = section + 1; section !== -1 && index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.startsWith("## ")) break;
    if (line.startsWith("- ")) claims.push({ line: index + 1, claim: line.slice(2) });
    else if (line.startsWith("  ") && claims.length > 0) {
      (claims.at(-1) as { claim: string }).claim += ` ${line.trim()}`;
    }
  }
  lines.forEach((line, index) => {
    const cells = line.split(" | ").map((cell) => cell.replace(/^\|\s*|\s*\|$/g, "").trim());
    if (line.startsWith("|") && cells.slice(1).some((cell) => /^not yet\b/i.test(cell))) {
      claims.push({ line: index + 1, claim: cells[0] as string });
    }
  });
  return claims.map(({ line, claim }) => ({
    line,
    claim,
    names: [...claim.matchAll(/`([^`]+)`/g)].flatMap(([, code]) =>
      (code as string)
        .split(/[\s/,]+/)
        .map((token) => (token.startsWith("-") ? token : verdictSpelling(token)))
        .filter((token) => /^(--?[a-z][\w-]*|[A-Za-z_]\w*)$/.test(token)),
    ),
  }));
}

/** Each claim of {@link missingClaims} that names nothing, or names what verdict has. */
function falseClaims(claims: MissingClaim[], surface: PublicSurface): string[] {
  return claims.flatMap(({ line, claim, names }) => {
    if (names.length === 0) return [`line ${line}: "${claim}" names nothing in backticks`];
    return names.flatMap((name) => {
      const where = name.startsWith("-")
        ? surface.flags.get(name) && `a flag of ${surface.flags.get(name)}`
        : surface.names.get(name.toLowerCase());
      return where ? [`line ${line}: \`${name}\` is missing, yet it is ${where}`] : [];
    });
  });
}

describe(PAGE, () => {
  it("has TypeScript examples that type-check against the sources", () => {
    const blocks = codeBlocks(["ts", "typescript"]);
    expect(blocks.length).toBeGreaterThan(10);
    expect(typeCheckBlocks(blocks)).toBe("");
  });

  it("imports only names the entry points export (checked at run time too)", async () => {
    const entryPoints: Record<string, Record<string, unknown>> = {
      verdict: await import("../../src/index.ts"),
      "verdict/stores": await import("../../src/store/index.ts"),
      "verdict/reporters": await import("../../src/report/index.ts"),
      "verdict/calibrate": await import("../../src/calibrate/index.ts"),
      "verdict/finetune": await import("../../src/finetune/index.ts"),
      "verdict/vitest": await import("../../src/vitest/index.ts"),
      "verdict/testing": await import("../../src/testing/index.ts"),
    };
    const missing: string[] = [];
    for (const { code } of codeBlocks(["ts", "typescript"])) {
      for (const [, names, from] of code.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
        const exports = entryPoints[from as string];
        if (exports === undefined) continue;
        for (const entry of (names as string).split(",")) {
          const name = entry.trim();
          // Type-only names have no run-time value; tsc checks them in the test above.
          if (name === "" || name.startsWith("type ")) continue;
          if (!(name in exports)) missing.push(`${name} from "${from}"`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("shows only verdict commands and flags the program accepts", () => {
    const commands = help([]);
    const helps = new Map<string, string>();
    const helpOf = (command: string) => {
      if (!helps.has(command)) helps.set(command, help(command.split(" ")));
      return helps.get(command) as string;
    };
    const unknown: string[] = [];
    for (const { code } of codeBlocks(["sh", "bash"])) {
      for (const line of code.split("\n")) {
        const invocation = /\bverdict ((?:test run)|(?:finetune watch)|[a-z-]+)(.*)$/.exec(
          line.replace(/#.*$/, ""),
        );
        if (invocation === null) continue;
        const [, command, rest] = invocation as unknown as [string, string, string];
        if (!new RegExp(`^  ${command.split(" ")[0]}\\b`, "m").test(commands)) {
          unknown.push(`command "verdict ${command}"`);
          continue;
        }
        for (const [flag] of rest.matchAll(/(?<=\s)--?[a-z][a-z-]*/g)) {
          if (!new RegExp(`(^|[ ,])${flag}\\b`, "m").test(helpOf(command))) {
            unknown.push(`"${flag}" of verdict ${command}`);
          }
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it("maps deepeval's test-run flags to flags `verdict test run` has, or says they are pending", () => {
    const testRunHelp = help(["test", "run"]);
    const section = page.split("## `deepeval test run` → `verdict test run`")[1]?.split("\n## ")[0];
    expect(section).toBeDefined();
    const missing: string[] = [];
    for (const row of (section as string).split("\n").filter((text) => text.startsWith("| "))) {
      const verdictColumn = row.split(" | ")[1] ?? "";
      for (const [, short, long] of verdictColumn.matchAll(/`(?:(-[a-z])\/)?(--[a-z-]+)/g)) {
        const shown = short === undefined ? long : `${short}, ${long}`;
        if (testRunHelp.includes(shown as string)) continue;
        missing.push(shown as string);
      }
    }
    expect(missing).toEqual([]);
    // `-c` means use-cache, as in deepeval (issue 10, point 15): the page needs no caveat.
    expect(testRunHelp).toMatch(/-c, --use-cache/);
    expect(page).not.toMatch(/`-c` in today's build/);
  });

  it('names as "not yet" only what verdict does not export, accept or run', async () => {
    const claims = missingClaims(page);
    expect(claims.length).toBeGreaterThan(4);
    expect(falseClaims(claims, await publicSurface())).toEqual([]);
  });

  it("would catch a missing-claim about an export, a member, an option, a field, a command or a flag", async () => {
    const claims = missingClaims(
      [
        "| `flaky`, `retrieval_context` | not yet |",
        "| `-m/--shard N` | not yet | |",
        "",
        "## Not in verdict yet",
        "",
        "- `PostgresRunStore` and `GEval`,",
        "  `dataset.add_goldens_from_file()`, `metric_collection=…`.",
        "- `max_concurrent` and `include_reason`; `verdict calibrate`.",
        "- a shared store for the team.",
      ].join("\n"),
    );
    const found = falseClaims(claims, await publicSurface());
    for (const name of [
      "retrievalContext",
      "maxConcurrent",
      "--shard",
      "PostgresRunStore",
      "GEval",
      "addGoldensFromFile",
      "include_reason",
      "calibrate",
    ]) {
      const spelled = name === "include_reason" ? "includeReason" : name;
      expect(
        found.some((problem) => problem.includes(`\`${spelled}\``)),
        spelled,
      ).toBe(true);
    }
    expect(found).toContain('line 9: "a shared store for the team." names nothing in backticks');
    // What verdict lacks is not reported: flaky, -m (a flag of no command), metric_collection.
    expect(found.some((problem) => /`(flaky|-m|metricCollection|verdict)`/.test(problem))).toBe(
      false,
    );
  });
});
