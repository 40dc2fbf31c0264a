import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { EvalError } from "../errors/eval-error.ts";
import { Golden } from "../test-case/golden.ts";
import { image } from "../test-case/image.ts";
import { DatasetFileError } from "./dataset-file-error.ts";
import { type ReadGoldensOptions, readGoldens } from "./read-goldens.ts";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "verdict-read-goldens-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function fileWith(options: { name: string; text: string | Buffer }): Promise<string> {
  const path = join(directory, options.name);
  await writeFile(path, options.text);
  return path;
}

async function errorOf(options: ReadGoldensOptions): Promise<Error> {
  try {
    await readGoldens(options);
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected readGoldens to fail");
}

describe("readGoldens from CSV", () => {
  it("reads snake_case headers, splits lists on |, parses JSON cells and leaves empty cells out", async () => {
    const path = await fileWith({
      name: "goldens.csv",
      text: [
        "input,actual_output,expected_output,context,retrieval_context,tools_called,expected_tools,name,tags,additional_metadata,comments,extra",
        'What if these shoes don\'t fit?,,We refund.,Refunds take 30 days|Shipping is free,Policy: 30 days,"[{""name"":""lookup""}]",,shoes,"faq|refunds","{""source"":""faq""}",,ignored',
        "Second?,An answer,,,,,,,,,,",
      ].join("\n"),
    });
    expect(await readGoldens({ path })).toStrictEqual([
      new Golden({
        input: "What if these shoes don't fit?",
        expectedOutput: "We refund.",
        context: ["Refunds take 30 days", "Shipping is free"],
        retrievalContext: ["Policy: 30 days"],
        toolsCalled: [{ name: "lookup" }],
        name: "shoes",
        tags: ["faq", "refunds"],
        metadata: { source: "faq" },
      }),
      new Golden({ input: "Second?", actualOutput: "An answer" }),
    ]);
  });

  it("reads custom column names, a custom list delimiter, a BOM and CRLF line breaks", async () => {
    const path = await fileWith({
      name: "support.csv",
      text: "\uFEFFquestion,answer,passages\r\nHow?,Like this.,a;b|c;C:\\docs\r\n",
    });
    const goldens = await readGoldens({
      path,
      columns: { input: "question", expectedOutput: "answer", context: "passages" },
      listDelimiter: ";",
    });
    expect(goldens).toStrictEqual([
      new Golden({
        input: "How?",
        expectedOutput: "Like this.",
        context: ["a", "b|c", "C:\\docs"],
      }),
    ]);
  });

  it("reads the encoding it is told", async () => {
    const path = await fileWith({
      name: "latin1.csv",
      text: Buffer.from(
        "input,expected_output\nCafé?,Oui, très.\n".replace("Oui, très.", '"Oui, très."'),
        "latin1",
      ),
    });
    expect(await readGoldens({ path, encoding: "latin1" })).toStrictEqual([
      new Golden({ input: "Café?", expectedOutput: "Oui, très." }),
    ]);
  });

  it("reports a bad row with the physical line where it starts, after multi-line quoted cells", async () => {
    const rows = [
      "input,expected_output,context", // line 1
      '"A question', // 2
      'over three lines",An answer,a|b', // 3 (the record spans 2-3)
      "", // 4: blank, skipped
      'Fine,"An answer', // 5
      "", // 6: a blank line inside a quoted cell
      'over three lines",c', // 7
      "", // 8: blank, skipped
      ",no input here,d", // 9: the bad row
      "never read,x,y",
    ];
    for (const lineBreak of ["\n", "\r\n"]) {
      const path = await fileWith({ name: "goldens.csv", text: rows.join(lineBreak) });
      const error = await errorOf({ path });
      expect(error).toBeInstanceOf(DatasetFileError);
      expect(error).toBeInstanceOf(EvalError);
      expect((error as EvalError).code).toBe("INVALID_TEST_CASE");
      expect(error.message).toBe(
        `${path}:9 (golden #2): "input" is empty: every row needs an input.`,
      );
      expect(error).toMatchObject({ path, line: 9, item: 2 });
    }
  });

  it("reports invalid JSON in a metadata or tools cell with its line", async () => {
    const path = await fileWith({
      name: "goldens.csv",
      text: 'input,metadata\nok,"{""a"": 1}"\n"two\nlines",{not json}\n',
    });
    const error = await errorOf({ path });
    expect(error.message).toMatch(
      new RegExp(
        `^${path}:3 \\(golden #1\\): "metadata" holds invalid JSON \\(.+\\): write it as JSON`,
      ),
    );
    const tools = await fileWith({
      name: "tools.csv",
      text: 'input,tools_called\nq,"{""name"": ""x""}"\n',
    });
    expect((await errorOf({ path: tools })).message).toContain(
      `${tools}:2 (golden #0): "tools_called" must be a list of tool calls`,
    );
  });

  it("reports a row with the wrong number of cells, and an unclosed quote, at the row's first line", async () => {
    const cells = await fileWith({ name: "cells.csv", text: "input,context\na,b\nc, d, e\n" });
    expect((await errorOf({ path: cells })).message).toBe(
      `${cells}:3 (golden #1): this row has 3 cells but the header has 2 columns: quote cells that hold a comma.`,
    );
    const quote = await fileWith({
      name: "quote.csv",
      text: 'input,context\r\n"a\r\nb",x\r\n\r\n"never closed,y\r\nz,w\r\n',
    });
    const error = await errorOf({ path: quote });
    expect(error.message).toMatch(new RegExp(`^${quote}:5: a quoted cell .* never closed`));
  });

  it("skips trailing rows of empty cells, and refuses a file with only a header", async () => {
    const path = await fileWith({ name: "rows.csv", text: "input,context\nq,c\n,\n , \n" });
    expect(await readGoldens({ path })).toStrictEqual([new Golden({ input: "q", context: ["c"] })]);
    const header = await fileWith({ name: "header.csv", text: "input,context\n" });
    expect((await errorOf({ path: header })).message).toBe(
      `${header}: the file has a header but no rows, so it holds no goldens: add a header and a row per golden, e.g. "input,expected_output" then "What is 2+2?,4".`,
    );
  });

  it("says which column is missing or given twice, at line 1", async () => {
    const path = await fileWith({ name: "goldens.csv", text: "question,answer\nq,a\n" });
    expect((await errorOf({ path })).message).toBe(
      `${path}:1: no "input" column; the header has "question", "answer". Name it "input", or map it with columns: { input: "…" }.`,
    );
    expect((await errorOf({ path, columns: { input: "prompt" } })).message).toBe(
      `${path}:1: no column "prompt" (mapped to "input"); the header has "question", "answer".`,
    );
    const twice = await fileWith({
      name: "twice.csv",
      text: "input,expectedOutput,expected_output\nq,a,b\n",
    });
    expect((await errorOf({ path: twice })).message).toContain(
      '"expectedOutput" has two columns, "expectedOutput" and "expected_output": keep one.',
    );
  });
});

describe("readGoldens from JSON and JSONL", () => {
  it("reads a JSON array with snake_case keys, nulls as absent, and image parts", async () => {
    const path = await fileWith({
      name: "goldens.json",
      text: JSON.stringify([
        {
          input: ["Describe ", { type: "image", path: "images/a.png" }],
          expected_output: "A tower.",
          retrieval_context: ["r1"],
          actual_output: null,
        },
        { input: [{ type: "image", url: "https://example.com/b.png", mediaType: "image/png" }] },
      ]),
    });
    expect(await readGoldens({ path })).toStrictEqual([
      new Golden({
        input: ["Describe ", image(join(directory, "images", "a.png"))],
        expectedOutput: "A tower.",
        retrievalContext: ["r1"],
      }),
      new Golden({ input: [image("https://example.com/b.png", { mediaType: "image/png" })] }),
    ]);
  });

  it("reports a bad JSON item with its index and the line where it starts", async () => {
    const path = await fileWith({
      name: "goldens.json",
      text: `[\n  { "input": "a, [b] {c}" },\n  {\n    "input": "b",\n    "metadata": "not an object"\n  }\n]\n`,
    });
    const error = await errorOf({ path });
    expect(error.message).toBe(
      `${path}:3 (golden #1): "metadata" must be an object, got a string "not an object".`,
    );
    expect(error).toMatchObject({ line: 3, item: 1 });
  });

  it("reports invalid JSON with its line, and a JSON file that is not an array", async () => {
    const path = await fileWith({
      name: "broken.json",
      text: '[\n  { "input": "a" },\n  { "input": }\n]',
    });
    expect((await errorOf({ path })).message).toMatch(
      new RegExp(`^${path}:3 \\(golden #1\\): invalid JSON: `),
    );
    // V8 gives a position for some syntax errors: the line is then the error's own.
    const position = await fileWith({
      name: "position.json",
      text: '[\n  { "input": "a" },\n  { "input": "b", }\n]',
    });
    expect((await errorOf({ path: position })).message).toMatch(
      new RegExp(`^${position}:3: invalid JSON: `),
    );
    const object = await fileWith({ name: "object.json", text: '{ "input": "a" }' });
    expect((await errorOf({ path: object })).message).toContain("must be an array of objects");
  });

  it("reads JSONL with blank lines and reports a bad line by its number", async () => {
    const path = await fileWith({
      name: "goldens.jsonl",
      text: '{"input": "a"}\r\n\r\n{"question": "b", "answer": "c"}\n{"input": "d", "tags": "x|y"}\n',
    });
    expect((await errorOf({ path, columns: { input: "question" } })).message).toBe(
      `${path}:1 (golden #0): "question" is missing: every row needs an input.`,
    );
    expect((await errorOf({ path })).message).toBe(
      `${path}:3 (golden #1): "input" is missing: every row needs an input.`,
    );
    const invalid = await fileWith({ name: "invalid.jsonl", text: '{"input": "a"}\n{"input": \n' });
    expect((await errorOf({ path: invalid })).message).toMatch(
      new RegExp(`^${invalid}:2: invalid JSON`),
    );
  });

  it("names the key of a value of the wrong type", async () => {
    const path = await fileWith({
      name: "goldens.jsonl",
      text: '{"input": "a", "retrieval_context": "not a list"}\n',
    });
    expect((await errorOf({ path })).message).toBe(
      `${path}:1 (golden #0): "retrieval_context" must be a list of strings, got a string "not a list".`,
    );
    const image = await fileWith({
      name: "image.jsonl",
      text: '{"input": [{"type": "image", "url": "https://x/a.png", "path": "a.png"}]}\n',
    });
    expect((await errorOf({ path: image })).message).toContain(
      '"input" part 0 (an image) needs exactly one of "url" or "path"',
    );
  });
});

describe("readGoldens options", () => {
  it("says the path of a file that does not exist", async () => {
    const path = join(directory, "missing.csv");
    const error = await errorOf({ path });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(
      `Dataset file "${path}" does not exist (looked at ${path}): check the path.`,
    );
  });

  it("refuses an unknown column mapping, a column used twice and a bad list delimiter", async () => {
    const path = await fileWith({ name: "goldens.csv", text: "input\nq\n" });
    const unknown = await errorOf({ path, columns: { question: "q" } as never });
    expect(unknown).toBeInstanceOf(ConfigError);
    expect(unknown.message).toMatch(
      /^Unknown column mapping "question": columns maps golden fields \(input, /,
    );
    expect((await errorOf({ path, columns: { input: "q", name: "q" } })).message).toBe(
      'Column "q" is mapped to both "input" and "name": give each field its own column.',
    );
    expect((await errorOf({ path, listDelimiter: "||" })).message).toMatch(
      /listDelimiter must be one character/,
    );
    expect((await errorOf({ path, format: "xml" as never })).message).toMatch(
      /"xml" is not supported/,
    );
  });
});
