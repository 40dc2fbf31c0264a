// Keeps docs/from-deepeval.md honest: its TypeScript examples import only names the entry
// points export (test/docs/code-blocks.test.ts type-checks them with every page's), the
// `verdict` commands and flags it shows must be ones the program accepts, and what it calls missing ("Not in verdict yet", a
// "not yet" row) must name, in backticks, nothing verdict exports, accepts or runs. A
// whole-program test: it runs tsc and the CLI.
import { describe, expect, it } from "vitest";
import {
  CliHelpChecker,
  type CodeBlock,
  readCodeBlocks,
  readPage,
  verdictInvocations,
} from "../fixtures/markdown-code-blocks.ts";
import { type PublicSurface, publicSurface } from "../fixtures/public-surface.ts";

const PAGE = "docs/from-deepeval.md";
const page = readPage(PAGE);

/** The page's fenced code blocks of one of the given languages. */
function codeBlocks(languages: readonly string[]): CodeBlock[] {
  return readCodeBlocks(PAGE, page).filter((block) => languages.includes(block.language));
}

const checker = new CliHelpChecker();

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
    const invocations = verdictInvocations(PAGE, page);
    expect(invocations.length).toBeGreaterThan(5);
    expect(invocations.flatMap((invocation) => checker.problems(invocation))).toEqual([]);
  });

  it("maps deepeval's test-run flags to flags `verdict test run` has, or says they are pending", () => {
    const testRunHelp = checker.help(["test", "run"]);
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
