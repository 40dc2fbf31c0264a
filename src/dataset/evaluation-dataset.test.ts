import { appendFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv/sync";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PNG_BYTES, PNG_DATA_URL } from "../../test/fixtures/images.ts";
import { isLiveFormula, spreadsheetCellArbitrary } from "../../test/fixtures/spreadsheet-cells.ts";
import { ConfigError } from "../errors/config-error.ts";
import { Golden } from "../test-case/golden.ts";
import { image } from "../test-case/image.ts";
import { isBlankText, LLMTestCase } from "../test-case/llm-test-case.ts";
import type { DatasetFormat } from "./dataset-format.ts";
import { EvaluationDataset } from "./evaluation-dataset.ts";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "verdict-dataset-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Goldens every format must carry unchanged, CSV included. */
function trickyGoldens(): Golden[] {
  return [
    new Golden({ input: "Only an input: every optional field absent." }),
    new Golden({
      name: "tricky",
      input: 'Quotes "inside", commas, and\na newline\r\nand a CRLF',
      actualOutput: "Ünïcödé — 日本語 🎉, Ελληνικά",
      expectedOutput: "  leading and trailing spaces  ",
      context: [
        "first, with a comma",
        'second "quoted"',
        "third\nover two lines",
        "a pipe | inside",
        "a back\\slash",
        "ends with a backslash\\",
        "\\|",
        "",
      ],
      retrievalContext: ["only one item"],
      toolsCalled: [
        { name: "search", inputParameters: { query: 'a|b, "c"\nd' }, output: [1, "two", null] },
      ],
      expectedTools: [{ name: "search" }],
      tags: ["a", "b|c", "ünï"],
      metadata: { source: "faq", nested: { flag: true, list: [1, 2.5] }, text: "x,y\nz" },
      comments: "=SUM(A1) looks like a formula; a tab\there",
    }),
    new Golden({ input: "Some fields", expectedOutput: " ", tags: ["solo"] }),
    new Golden({ input: "Empty list items", context: ["", "x"], retrievalContext: ["", ""] }),
    new Golden({ input: '"""', name: "quotes only", metadata: {} }),
  ];
}

async function roundTrip(options: {
  goldens: Golden[];
  format: DatasetFormat;
}): Promise<{ loaded: EvaluationDataset; text: string }> {
  const path = join(directory, `goldens.${options.format}`);
  await new EvaluationDataset({ goldens: options.goldens }).save({ path });
  const loaded = await EvaluationDataset.fromFile({ path });
  return { loaded, text: await readFile(path, "utf8") };
}

describe("EvaluationDataset round trips", () => {
  for (const format of ["json", "jsonl", "csv"] as const) {
    it(`reads back what it saved as ${format}, unchanged`, async () => {
      const goldens = trickyGoldens();
      const { loaded } = await roundTrip({ goldens, format });
      expect(loaded.goldens).toStrictEqual(goldens);
      expect(loaded.goldens[0]).toBeInstanceOf(Golden);
      expect(Object.keys(loaded.goldens[0] as Golden)).toEqual(["input"]);
    });

    it(`refuses to save an empty dataset as ${format} (reading it back would fail)`, async () => {
      await expect(roundTrip({ goldens: [], format })).rejects.toThrow(
        /Cannot save an empty dataset to ".*": .*Add goldens first/,
      );
    });
  }

  it("writes a pretty JSON array, one object per JSONL line, and a CSV header of used columns", async () => {
    const goldens = [
      new Golden({ input: "q1", expectedOutput: "a1", context: ["c1", "c2"] }),
      new Golden({ input: "q2", tags: ["t"] }),
    ];
    const json = await roundTrip({ goldens, format: "json" });
    expect(json.text).toBe(
      `${JSON.stringify(
        [
          { input: "q1", expectedOutput: "a1", context: ["c1", "c2"] },
          { input: "q2", tags: ["t"] },
        ],
        null,
        2,
      )}\n`,
    );
    const jsonl = await roundTrip({ goldens, format: "jsonl" });
    expect(jsonl.text).toBe(
      '{"input":"q1","expectedOutput":"a1","context":["c1","c2"]}\n{"input":"q2","tags":["t"]}\n',
    );
    const csv = await roundTrip({ goldens, format: "csv" });
    expect(csv.text).toBe("input,expectedOutput,context,tags\nq1,a1,c1|c2,\nq2,,,t\n");
  });

  it("saves CSV a spreadsheet cannot run, and reads back the goldens it saved", async () => {
    // NUL aside: a CSV file holding one is refused as not text, so saving refuses it too.
    const filled = spreadsheetCellArbitrary
      .map((text) => text.replaceAll("\u0000", ""))
      .filter((text) => !isBlankText(text));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            input: filled,
            actualOutput: filled,
            context: fc.array(filled, { minLength: 1, maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (fields) => {
          const goldens = fields.map((field) => new Golden(field));
          const { loaded, text } = await roundTrip({ goldens, format: "csv" });
          const cells = (
            parse(text, { record_delimiter: ["\r\n", "\n", "\r"] }) as string[][]
          ).flat();
          expect(cells.filter(isLiveFormula)).toEqual([]);
          expect(loaded.goldens).toStrictEqual(goldens);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("escapes the list delimiter inside a CSV list item, and reads it back", async () => {
    const goldens = [new Golden({ input: "q", context: ["a | b", "c\\", "d"] })];
    const { loaded, text } = await roundTrip({ goldens, format: "csv" });
    expect(text).toBe("input,context\nq,a \\| b|c\\\\|d\n");
    expect(loaded.goldens).toStrictEqual(goldens);
  });

  it("uses a custom list delimiter and custom column names both ways", async () => {
    const goldens = [new Golden({ input: "q", expectedOutput: "a", tags: ["x|y", "z;w"] })];
    const path = join(directory, "custom.csv");
    const columns = { input: "question", expectedOutput: "answer" };
    await new EvaluationDataset({ goldens }).save({ path, columns, listDelimiter: ";" });
    expect(await readFile(path, "utf8")).toBe("question,answer,tags\nq,a,x|y;z\\;w\n");
    const loaded = await EvaluationDataset.fromFile({ path, columns, listDelimiter: ";" });
    expect(loaded.goldens).toStrictEqual(goldens);
  });

  it("keeps JSON-only values in JSON and JSONL: images by URL and path, empty strings and lists", async () => {
    const goldens = [
      new Golden({
        input: ["What is in ", image(join(directory, "photos", "tower.png")), " and here?"],
        actualOutput: [image("https://example.com/cat.jpg", { mediaType: "image/jpeg" })],
        expectedOutput: "",
        context: [],
        tags: [""],
        name: "",
      }),
      new Golden({ input: [image(PNG_DATA_URL)] }),
    ];
    for (const format of ["json", "jsonl"] as const) {
      const { loaded, text } = await roundTrip({ goldens, format });
      expect(loaded.goldens).toStrictEqual(goldens);
      // A path inside the dataset's folder is written relative, so the folder can move.
      expect(text).toContain('"path":');
      expect(text).toContain("photos/tower.png");
      expect(text).not.toContain(directory);
    }
  });

  it("refuses what a CSV cell cannot hold unchanged, naming the golden and field", async () => {
    const path = join(directory, "refused.csv");
    const cases: Array<[Golden, RegExp]> = [
      [
        new Golden({ input: ["see ", image("https://example.com/a.png")] }),
        /"input" of golden #0.*image parts.*JSON or JSONL/,
      ],
      [
        new Golden({ input: "q", name: "n", context: [] }),
        /"context" of golden #0 "n".*empty list/,
      ],
      [
        new Golden({ input: "q", expectedOutput: "" }),
        /"expectedOutput" of golden #0.*empty string/,
      ],
      [new Golden({ input: "q", tags: [""] }), /"tags".*one empty string/],
      [new Golden({ input: "a\u0000b" }), /"input" of golden #0.*NUL character.*JSON or JSONL/],
      [new Golden({ input: "q", context: ["x", "\u0000"] }), /"context".*NUL character/],
    ];
    for (const [golden, message] of cases) {
      const saving = new EvaluationDataset({ goldens: [golden] }).save({ path });
      await expect(saving).rejects.toThrow(ConfigError);
      await expect(saving).rejects.toThrow(message);
    }
  });

  it("refuses images given as bytes and empty inputs in any format", async () => {
    const bytes = new EvaluationDataset({
      goldens: [{ input: [image(PNG_BYTES)] }],
    });
    await expect(bytes.save({ path: join(directory, "bytes.json") })).rejects.toThrow(
      /image given as bytes.*image\(path\)/,
    );
    const blank = new EvaluationDataset({ goldens: [{ input: "  " }] });
    await expect(blank.save({ path: join(directory, "blank.jsonl") })).rejects.toThrow(
      /input is empty/,
    );
  });

  it("takes the format from an option when the extension says nothing", async () => {
    const path = join(directory, "goldens.txt");
    const goldens = [new Golden({ input: "q", context: ["a", "b"] })];
    await new EvaluationDataset({ goldens }).save({ path, format: "csv" });
    expect((await EvaluationDataset.fromFile({ path, format: "csv" })).goldens).toStrictEqual(
      goldens,
    );
    await expect(EvaluationDataset.fromFile({ path })).rejects.toThrow(
      /Cannot tell the dataset format of ".*goldens.txt".*format:/,
    );
  });
});

describe("EvaluationDataset", () => {
  it("validates goldens and test cases given as plain objects", () => {
    const dataset = new EvaluationDataset({
      goldens: [{ input: "q1" }],
      testCases: [{ input: "q", actualOutput: "a" }],
    });
    dataset.addGolden(new Golden({ input: "q2" }));
    dataset.addTestCase(new LLMTestCase({ input: "q3", actualOutput: "a3" }));
    expect(dataset.goldens.map((golden) => golden.input)).toEqual(["q1", "q2"]);
    expect(dataset.goldens[0]).toBeInstanceOf(Golden);
    expect(dataset.testCases.map((testCase) => testCase.input)).toEqual(["q", "q3"]);
    expect(dataset.testCases[0]).toBeInstanceOf(LLMTestCase);
    expect(() => dataset.addGolden({ input: 42 } as never)).toThrow(/Golden is invalid/);
  });

  it("adds the goldens of several files, and none of a file with a bad row", async () => {
    const first = join(directory, "first.jsonl");
    const second = join(directory, "second.csv");
    await new EvaluationDataset({ goldens: [{ input: "a" }] }).save({ path: first });
    await new EvaluationDataset({ goldens: [{ input: "b" }, { input: "c" }] }).save({
      path: second,
    });
    const dataset = await EvaluationDataset.fromFile({ path: first });
    const added = await dataset.addGoldensFromFile({ path: second });
    expect(added.map((golden) => golden.input)).toEqual(["b", "c"]);
    expect(dataset.goldens.map((golden) => golden.input)).toEqual(["a", "b", "c"]);

    const bad = join(directory, "bad.jsonl");
    await new EvaluationDataset({ goldens: [{ input: "d" }] }).save({ path: bad });
    await appendFile(bad, '{"input": ""}\n');
    await expect(dataset.addGoldensFromFile({ path: bad })).rejects.toThrow(/bad.jsonl:2/);
    expect(dataset.goldens).toHaveLength(3);
  });

  it("builds test cases from its goldens with an application", async () => {
    const dataset = new EvaluationDataset({
      goldens: [
        { input: "q1", expectedOutput: "e1", context: ["c"] },
        { input: "q2", comments: "not in test cases" },
      ],
    });
    const testCases = await dataset.toTestCases({
      application: async (input) =>
        input === "q1" ? `answer to ${input}` : { actualOutput: "a2", retrievalContext: ["r"] },
    });
    expect(testCases).toStrictEqual([
      new LLMTestCase({
        input: "q1",
        actualOutput: "answer to q1",
        expectedOutput: "e1",
        context: ["c"],
      }),
      new LLMTestCase({ input: "q2", actualOutput: "a2", retrievalContext: ["r"] }),
    ]);
    expect(dataset.testCases).toEqual([]);
  });
});
