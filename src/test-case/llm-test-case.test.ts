import { describe, expect, it } from "vitest";
import { EvalError } from "../errors/eval-error.ts";
import { describeImage, image, isImagePart, loadImage, mm, renderContent } from "./image.ts";
import { describeTestCase, isBlankField, LLMTestCase } from "./llm-test-case.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("LLMTestCase", () => {
  it("keeps given fields and leaves absent ones absent", () => {
    const testCase = new LLMTestCase({ input: "q", actualOutput: "a", context: ["c"] });
    expect(testCase).toEqual({ input: "q", actualOutput: "a", context: ["c"] });
    expect("expectedOutput" in testCase).toBe(false);
  });

  it("rejects a wrongly typed field with a message naming it", () => {
    expect(
      () =>
        new LLMTestCase({ input: "q", name: "bad", context: "not a list" as unknown as string[] }),
    ).toThrow(/Test case "bad" is invalid: "context": .*arrays of strings/);
    try {
      new LLMTestCase({ input: 42 as unknown as string });
    } catch (error) {
      expect(error).toBeInstanceOf(EvalError);
      expect((error as EvalError).code).toBe("INVALID_TEST_CASE");
    }
  });

  it("names test cases by name, position or input", () => {
    expect(describeTestCase({ input: "x", name: "q-1" })).toBe("q-1");
    expect(describeTestCase({ input: "x" }, 3)).toBe("#3");
    expect(describeTestCase({ input: "a".repeat(60) })).toBe(`${"a".repeat(40)}…`);
  });

  it("treats missing, empty and whitespace fields as blank, and images as content", () => {
    expect(isBlankField(undefined)).toBe(true);
    expect(isBlankField(" \n")).toBe(true);
    expect(isBlankField(["  "])).toBe(true);
    expect(isBlankField([image(PNG)])).toBe(false);
    expect(isBlankField("ok")).toBe(false);
  });
});

describe("image parts", () => {
  it("mm keeps images as parts and numbers them when rendered", () => {
    const first = image("https://example.com/a.png");
    const second = image(PNG);
    const content = mm`Compare ${first} with ${second} (${2} images)`;
    expect(content).toEqual(["Compare ", first, " with ", second, " (2 images)"]);
    const images: ReturnType<typeof image>[] = [];
    expect(renderContent(content, images)).toBe("Compare [image 1] with [image 2] (2 images)");
    expect(images).toEqual([first, second]);
    expect(isImagePart(first)).toBe(true);
  });

  it("recognises URLs, data URLs, files and bytes", async () => {
    expect(image("https://x.test/a.jpg").source.kind).toBe("url");
    expect(image("data:image/png;base64,iVBORw0KGgo=").source.kind).toBe("data-url");
    expect(image("./eiffel.jpg").source).toEqual({ kind: "file", path: "./eiffel.jpg" });
    expect(image("file:///tmp/a.png").source).toEqual({ kind: "file", path: "/tmp/a.png" });
    expect(await loadImage(image(PNG))).toEqual({
      kind: "bytes",
      data: PNG,
      mediaType: "image/png",
    });
    const fromDataUrl = await loadImage(image("data:image/png;base64,iVBORw0KGgo="));
    expect(fromDataUrl.kind === "bytes" && fromDataUrl.mediaType).toBe("image/png");
    expect(describeImage(image(PNG))).toBe("8 bytes");
  });

  it("fails clearly on unknown bytes and empty sources", async () => {
    await expect(loadImage(image(new Uint8Array([1, 2, 3])))).rejects.toThrow(
      /pass image\(bytes, \{ mediaType \}\)/,
    );
    expect(() => image("  ")).toThrow(/image\(\) needs a URL/);
  });
});
