// Item 7 of issue 9: every broken dataset file is a DatasetFileError naming file and line,
// whatever the format; nothing raw (CsvError, SyntaxError, NULs shown as text) escapes.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Golden } from "../test-case/golden.ts";
import { DatasetFileError } from "./dataset-file-error.ts";
import { readGoldens } from "./read-goldens.ts";

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "verdict-broken-datasets-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function fileWith(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, content);
  return path;
}

const utf16 = (text: string, order: "le" | "be") => {
  const bytes = Buffer.from(`\uFEFF${text}`, "utf16le");
  if (order === "be") bytes.swap16();
  return bytes;
};

describe("a broken dataset file is a clear error with file and line", () => {
  it.each([
    [
      "a quote inside an unquoted cell",
      "q.csv",
      'input,actual_output\nhello,wor"ld\n',
      2,
      /a cell holds a " but is not quoted .*put the whole cell in quotes/,
    ],
    [
      "a quote inside an unquoted first cell",
      "q1.csv",
      'input\nok\nab"c\n',
      3,
      /a cell holds a " but is not quoted/,
    ],
    [
      "text after a closing quote",
      "after.csv",
      'input\n"a"b\n',
      2,
      /not valid CSV \(Invalid Closing Quote.*\): quote cells/,
    ],
    ["a quoted cell never closed", "open.csv", 'input\n"never closed\n', 2, /never closed/],
    [
      "a row with too many cells",
      "cells.csv",
      "input\na,b\n",
      2,
      /this row has 2 cells but the header has 1/,
    ],
    [
      "invalid JSON in a .jsonl line",
      "bad.jsonl",
      '{"input": "a"}\n{"input": \n',
      2,
      /invalid JSON/,
    ],
    [
      "invalid JSON in a .json item",
      "bad.json",
      '[\n{"input": "a"},\n{"input": }\n]',
      3,
      /invalid JSON/,
    ],
    [
      "no input in a JSON item",
      "noinput.json",
      '[{"input": "a"}, {"question": "b"}]',
      1,
      /"input" is missing/,
    ],
    [
      "an input of zero-width spaces",
      "zw.jsonl",
      '{"input": "\\u200b\\u200b"}\n',
      1,
      /"input" is empty/,
    ],
    [
      "an unusable image URL",
      "img.jsonl",
      '{"input": [{"type": "image", "url": "http://"}]}\n',
      1,
      /"input" part 0 \(an image\) is unusable: the URL "http:\/\/" has no host/,
    ],
    [
      "an image with an ftp: URL",
      "ftp.jsonl",
      '{"input": [{"type": "image", "url": "ftp://x/a.png"}]}\n',
      1,
      /is unusable: .*scheme "ftp:"/,
    ],
    [
      "a data: URL image with bad base64",
      "data.json",
      '[{"input": [{"type": "image", "url": "data:image/png;base64,@@"}]}]',
      1,
      /is unusable: the data: URL .* is not valid base64/,
    ],
    [
      "UTF-16 without byte-order mark",
      "nobom.csv",
      Buffer.from("input\nq\n", "utf16le"),
      1,
      /NUL bytes: it looks like UTF-16 without a byte-order mark/,
    ],
    [
      "invalid UTF-8",
      "latin1.csv",
      Buffer.from("input\ncaf\xe9\n", "latin1"),
      2,
      /not valid UTF-8 \(byte 0xe9\).*encoding: "latin1"/,
    ],
    [
      "UTF-32",
      "utf32.csv",
      new Uint8Array([0xff, 0xfe, 0, 0, 0x69, 0, 0, 0]),
      1,
      /UTF-32, which is not supported/,
    ],
  ])("%s", async (_label, name, content, line, message) => {
    const path = await fileWith(name, content);
    const error = await readGoldens({ path }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatasetFileError);
    expect((error as DatasetFileError).line).toBe(line);
    expect((error as Error).message).toMatch(new RegExp(`^${path}:${line}[: ]`));
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    ["a 0-byte .csv", "empty.csv", "", /the file is empty \(0 bytes\)/],
    ["a 0-byte .jsonl", "empty.jsonl", "", /the file is empty \(0 bytes\)/],
    ["a 0-byte .json", "empty.json", "", /the file is empty \(0 bytes\)/],
    ["a .csv of whitespace", "blank.csv", "\n \n\t\n", /the file is empty \(only whitespace\)/],
    ["a .jsonl of blank lines", "blank.jsonl", "\n\n  \n", /the file is empty \(only whitespace\)/],
    ["a .json of whitespace", "blank.json", "  \n", /the file is empty \(only whitespace\)/],
    ["a UTF-8 byte-order mark alone", "bom.csv", "\uFEFF", /the file is empty/],
    [
      "a .csv with only a header",
      "header.csv",
      "input,expected_output\n",
      /has a header but no rows/,
    ],
    [
      "a .csv with a header and empty rows",
      "rows.csv",
      "input,context\n,\n , \n",
      /has a header but no rows/,
    ],
    ["a .json with an empty list", "list.json", "[]\n", /holds an empty list/],
  ])("%s is the same clear error in every format", async (_label, name, content, message) => {
    const path = await fileWith(name, content);
    const error = await readGoldens({ path }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatasetFileError);
    expect((error as Error).message).toMatch(new RegExp(`^${path}: the file `));
    expect((error as Error).message).toMatch(/so it holds no goldens: add /);
    expect((error as Error).message).toMatch(message);
  });
});

describe("encodings", () => {
  it.each([
    ["UTF-8 with a byte-order mark", Buffer.from("\uFEFFinput,actual_output\nq,é\n", "utf8")],
    ["UTF-16 LE with a byte-order mark", utf16("input,actual_output\r\nq,é\r\n", "le")],
    ["UTF-16 BE with a byte-order mark", utf16("input,actual_output\nq,é\n", "be")],
  ])("decodes %s", async (_label, bytes) => {
    const path = await fileWith("encoded.csv", bytes);
    expect(await readGoldens({ path })).toStrictEqual([
      new Golden({ input: "q", actualOutput: "é" }),
    ]);
  });

  it("reads the encoding it is given", async () => {
    const path = await fileWith("latin1-ok.csv", Buffer.from("input\ncafé\n", "latin1"));
    expect(await readGoldens({ path, encoding: "latin1" })).toStrictEqual([
      new Golden({ input: "café" }),
    ]);
  });
});
