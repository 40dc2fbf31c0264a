// The dashboard shows test cases and judge answers: text that must never become markup or
// style. These rules hold for every source file of the app (the browser tests check the
// behaviour; this keeps the ways around it out of the code).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const APP = path.dirname(fileURLToPath(import.meta.url));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.(tsx?|html|css)$/.test(entry.name) && !entry.name.endsWith(".test.ts") ? [file] : [];
  });
}

const FORBIDDEN: Array<[RegExp, string]> = [
  [
    /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
    "HTML from a string",
  ],
  [/\bstyle=["{]/, "an inline style attribute (the CSP allows only the stylesheet)"],
  [/<script(?![^>]*\bsrc=)/, "an inline script"],
  [/\beval\(|new Function\(/, "code from a string"],
  [/https?:\/\/(?!www\.w3\.org\/)/, "an address outside the dashboard (no CDN, no fonts)"],
  [/@import\s+url|@font-face/, "a stylesheet or font from elsewhere"],
];

describe("the dashboard app's sources", () => {
  it("render text as text: no HTML strings, inline styles or scripts, nothing from elsewhere", () => {
    const files = sourceFiles(APP);
    expect(files.length).toBeGreaterThan(10);
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const [pattern, what] of FORBIDDEN) {
        if (pattern.test(text)) found.push(`${path.relative(APP, file)}: ${what}`);
      }
    }
    expect(found).toEqual([]);
  });
});
