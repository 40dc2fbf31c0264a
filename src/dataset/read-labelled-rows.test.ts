import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError } from "../errors/config-error.ts";
import { DatasetFileError } from "./dataset-file-error.ts";
import { type ReadLabelledRowsOptions, readLabelledRows } from "./read-labelled-rows.ts";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "verdict-labelled-rows-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function fileWith(name: string, text: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, text);
  return path;
}

async function errorOf(options: ReadLabelledRowsOptions): Promise<Error> {
  try {
    await readLabelledRows(options);
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected readLabelledRows to fail");
}

const line = (value: object) => JSON.stringify(value);

describe("readLabelledRows", () => {
  it("reads a row's retrieval_context, context and expected_output: JSON lists, or a CSV cell split on |; blank cells are absent", async () => {
    const csv = await fileWith(
      "labels.csv",
      'input,actual_output,label,retrieval_context,expected_output\nq,a,1,"Doc one.|Doc \\| two.",The answer.\nq,b,0,, \n',
    );
    const [first, second] = (await readLabelledRows({ data: csv })).rows;
    expect(first).toMatchObject({
      retrievalContext: ["Doc one.", "Doc | two."],
      expectedOutput: "The answer.",
    });
    expect(second).not.toHaveProperty("retrievalContext");
    expect(second).not.toHaveProperty("expectedOutput");

    const objects = [
      {
        input: "q",
        actual_output: "a",
        label: 1,
        retrieval_context: ["One text."],
        context: ["C."],
      },
    ];
    expect((await readLabelledRows({ data: objects })).rows[0]).toMatchObject({
      retrievalContext: ["One text."],
      context: ["C."],
    });
    const wrong = await errorOf({ data: [{ ...objects[0], retrieval_context: [1, 2] }] });
    expect(wrong.message).toBe(
      'data[0]: "retrieval_context" must be a list of texts (in a CSV cell, separated by "|"); got a list.',
    );
    const missing = await errorOf({
      data: [{ input: "q", actual_output: "a", label: 1 }],
      requiredFields: ["input", "actualOutput", "retrievalContext"],
    });
    expect(missing.message).toMatch(/^data\[0\]: no "retrieval_context" \(missing\)/);
  });

  it("reads JSONL with the default fields: text, the label as text, lines and ids", async () => {
    const path = await fileWith(
      "labels.jsonl",
      [
        line({ id: "t-1", input: "Write a comment.", actual_output: "You are useless.", label: 1 }),
        "",
        line({
          input: "Write a comment.",
          actual_output: "Lovely weather.",
          label: 0,
          extra: true,
        }),
        line({ id: 7, input: "How many?", actual_output: 42, label: "1" }),
      ].join("\n"),
    );
    const read = await readLabelledRows({ data: path });
    expect(read.rows).toEqual([
      {
        index: 0,
        line: 1,
        id: "t-1",
        input: "Write a comment.",
        actualOutput: "You are useless.",
        label: "1",
        positive: true,
      },
      {
        index: 1,
        line: 3,
        id: null,
        input: "Write a comment.",
        actualOutput: "Lovely weather.",
        label: "0",
        positive: false,
      },
      {
        index: 2,
        line: 4,
        id: "7",
        input: "How many?",
        actualOutput: "42",
        label: "1",
        positive: true,
      },
    ]);
    expect(read).toMatchObject({ positiveLabel: "1", negativeLabel: "0" });
    expect(read.fields).toEqual({
      input: "input",
      output: "actual_output",
      label: "label",
      id: "id",
    });
  });

  it("reads CSV with fields and labels of its own, and stops at the limit", async () => {
    const path = await fileWith(
      "labels.csv",
      [
        "question,answer,verdict",
        'Who wrote it?,"Tolstoy, in 1869",relevant',
        "Who wrote it?,Paris,irrelevant",
        ",,",
        "When?,In 1990,relevant",
      ].join("\r\n"),
    );
    const read = await readLabelledRows({
      data: path,
      inputField: "question",
      outputField: "answer",
      labelField: "verdict",
      positiveLabel: "relevant",
      limit: 2,
    });
    expect(read.rows.map((row) => [row.line, row.actualOutput, row.positive])).toEqual([
      [2, "Tolstoy, in 1869", true],
      [3, "Paris", false],
    ]);
    expect(read.negativeLabel).toBe("irrelevant");
  });

  it("reads a JSON array with boolean labels, and rows in memory", async () => {
    const path = await fileWith(
      "labels.json",
      JSON.stringify([
        { input: "q", actual_output: "a", toxic: true },
        { input: "q", actual_output: "b", toxic: false },
      ]),
    );
    const read = await readLabelledRows({ data: path, labelField: "toxic", positiveLabel: true });
    expect(read.rows.map((row) => row.positive)).toEqual([true, false]);
    const inMemory = await readLabelledRows({
      data: [{ input: "q", actual_output: "a", label: "yes" }],
      positiveLabel: "yes",
    });
    expect(inMemory.rows[0]).toMatchObject({ line: null, positive: true });
    expect(inMemory.negativeLabel).toBeNull();
  });

  it("names the file, line, row and field of a missing field, and says how to map it", async () => {
    const path = await fileWith(
      "labels.jsonl",
      [
        line({ input: "q", actual_output: "a", label: 1 }),
        line({ input: "q", output: "b", label: 0 }),
      ].join("\n"),
    );
    const error = await errorOf({ data: path });
    expect(error).toBeInstanceOf(DatasetFileError);
    expect(error.message).toBe(
      `${path}:2 (row #1): no "actual_output" field (the row has "input", "output", "label"): add it, or pass the field's name as outputField.`,
    );
  });

  it("names a CSV header without the label column, listing the columns", async () => {
    const path = await fileWith("labels.csv", "input,actual_output,class\nq,a,1\n");
    const error = await errorOf({ data: path });
    expect(error.message).toBe(
      `${path}:1: no column "label"; the header has "input", "actual_output", "class". Name the column "label", or pass its name as labelField (--label-field).`,
    );
  });

  it("refuses blank outputs, missing labels and rows of the wrong width, naming each row", async () => {
    const blank = await fileWith(
      "blank.jsonl",
      line({ input: "q", actual_output: "  ", label: 1 }),
    );
    expect((await errorOf({ data: blank })).message).toMatch(
      /blank\.jsonl:1 \(row #0\): "actual_output" is empty: every row needs/,
    );
    const unlabelled = await fileWith("unlabelled.csv", "input,actual_output,label\nq,a,1\nq,b,\n");
    expect((await errorOf({ data: unlabelled })).message).toMatch(
      /unlabelled\.csv:3 \(row #1\): no label: "label" is empty/,
    );
    const wide = await fileWith("wide.csv", "input,actual_output,label\nq,a,b,1\n");
    expect((await errorOf({ data: wide })).message).toMatch(
      /wide\.csv:2 \(row #0\): this row has 4 cells but the header has 3 columns/,
    );
    const object = await fileWith("list.jsonl", "[1, 2]\n");
    expect((await errorOf({ data: object })).message).toMatch(
      /list\.jsonl:1 \(row #0\): expected an object/,
    );
  });

  it("refuses a third label value, or one that is neither label given, at its row", async () => {
    const rows = [
      { input: "q", actual_output: "a", label: 1 },
      { input: "q", actual_output: "b", label: 0 },
      { input: "q", actual_output: "c", label: 2 },
    ];
    const path = await fileWith("labels.jsonl", rows.map(line).join("\n"));
    expect((await errorOf({ data: path })).message).toMatch(
      /labels\.jsonl:3 \(row #2\): the label "2" is a third value after "1" \(positive\) and "0"/,
    );
    expect((await errorOf({ data: rows.slice(0, 2), negativeLabel: "no" })).message).toBe(
      'data[1]: the label "0" is neither the positive label "1" nor the negative label "no": fix the row, or leave it out.',
    );
  });

  it("refuses data where no row has the positive label, naming the labels found", async () => {
    const error = await errorOf({
      data: [
        { input: "q", actual_output: "a", label: "toxic" },
        { input: "q", actual_output: "b", label: "clean" },
      ].slice(1),
    });
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(
      /no row has the positive label "1" \(the "label" values are "clean"\)/,
    );
    expect(error.message).toMatch(/--positive-label/);
  });

  it("refuses empty and unreadable files and unusable options with what to do", async () => {
    const empty = await fileWith("empty.jsonl", "\n\n");
    expect((await errorOf({ data: empty })).message).toMatch(
      /empty\.jsonl: the file is empty \(only whitespace\), so it holds no rows: add one JSON object per line/,
    );
    const headerOnly = await fileWith("header.csv", "input,actual_output,label\n");
    expect((await errorOf({ data: headerOnly })).message).toMatch(/has a header but no rows/);
    const emptyList = await fileWith("empty.json", "[]");
    expect((await errorOf({ data: emptyList })).message).toMatch(/holds an empty list/);
    const missing = await errorOf({ data: join(directory, "nope.jsonl") });
    expect(missing).toBeInstanceOf(ConfigError);
    expect(missing.message).toMatch(/nope\.jsonl" does not exist .*check the path/);
    expect((await errorOf({ data: directory })).message).toMatch(/Cannot tell the dataset format/);
    const invalid = await fileWith(
      "bad.jsonl",
      `${line({ input: "q", actual_output: "a", label: 1 })}\n{oops\n`,
    );
    expect((await errorOf({ data: invalid })).message).toMatch(/bad\.jsonl:2: invalid JSON/);
    expect((await errorOf({ data: [], limit: 0 })).message).toMatch(/limit must be a whole number/);
    expect((await errorOf({ data: [], positiveLabel: 1, negativeLabel: "1" })).message).toMatch(
      /both "1"/,
    );
    expect((await errorOf({ data: [] })).message).toMatch(/data is an empty list/);
    expect((await errorOf({ data: [], inputField: " " })).message).toMatch(
      /inputField must name a field/,
    );
  });

  it("reads what RAG metrics judge: expected output and lists, JSON or |-separated CSV cells", async () => {
    const jsonl = await fileWith(
      "rag.jsonl",
      [
        line({
          input: "Refunds?",
          expected_output: "Within 30 days.",
          retrieval_context: ["Refunds take 30 days.", "Shipping is free."],
          context: ["Refunds: 30 days."],
          label: 1,
        }),
        line({ input: "Returns?", retrievalContext: ["A node."], label: 0 }),
      ].join("\n"),
    );
    const required = ["input", "retrievalContext"] as const;
    const { rows } = await readLabelledRows({ data: jsonl, requiredFields: required });
    expect(rows[0]).toMatchObject({
      actualOutput: "",
      expectedOutput: "Within 30 days.",
      retrievalContext: ["Refunds take 30 days.", "Shipping is free."],
      context: ["Refunds: 30 days."],
    });
    expect(rows[1]?.retrievalContext).toEqual(["A node."]);
    expect(rows[1]?.expectedOutput).toBeUndefined();

    const csv = await fileWith(
      "rag.csv",
      'input,retrieval_context,label\nRefunds?,"Refunds take 30 days.|A \\| inside|",1\n',
    );
    const read = await readLabelledRows({ data: csv, requiredFields: required });
    expect(read.rows[0]?.retrievalContext).toEqual(["Refunds take 30 days.", "A | inside", ""]);
  });

  it("refuses a row without what the metric judges, or with a list of the wrong type, naming it", async () => {
    const required = ["input", "expectedOutput", "retrievalContext"] as const;
    const missing = await errorOf({
      data: [{ input: "q", expected_output: "a", label: 1 }],
      requiredFields: required,
    });
    expect(missing).toBeInstanceOf(ConfigError);
    expect(missing.message).toBe(
      'data[0]: no "retrieval_context" (missing): the metric judges it, so every row needs it.',
    );
    const wrongType = await errorOf({
      data: [{ input: "q", expected_output: "a", retrieval_context: "one node", label: 1 }],
      requiredFields: required,
    });
    expect(wrongType.message).toContain('"retrieval_context" must be a list of texts');
    const csv = await fileWith("no-column.csv", "input,expected_output,label\nq,a,1\n");
    const header = await errorOf({ data: csv, requiredFields: required });
    expect(header).toBeInstanceOf(DatasetFileError);
    expect(header.message).toContain('no column "retrieval_context"');
  });
});
