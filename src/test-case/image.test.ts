import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  GIF_HEAD,
  JPEG_HEAD,
  PNG_BYTES,
  PNG_DATA_URL,
  WEBP_HEAD,
} from "../../test/fixtures/images.ts";
import { EvalError } from "../errors/eval-error.ts";
import {
  checkImage,
  describeImage,
  type ImagePart,
  image,
  isImagePart,
  loadImage,
  mm,
  renderContent,
} from "./image.ts";

const folder = mkdtempSync(join(tmpdir(), "verdict-image-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
function file(name: string, content: Uint8Array | string): string {
  const path = join(folder, name);
  writeFileSync(path, content);
  return path;
}
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

describe("image() takes usable sources", () => {
  it.each([
    ["an https URL", "https://x.test/a.jpg", { kind: "url", url: "https://x.test/a.jpg" }],
    ["an http URL with a port and query", "http://localhost:8080/a?b=1", { kind: "url" }],
    ["a relative path", "./eiffel.jpg", { kind: "file", path: "./eiffel.jpg" }],
    ["a Windows path", "C:\\photos\\a.png", { kind: "file", path: "C:\\photos\\a.png" }],
    ["a file: URL, decoded", "file:///tmp/a%20b.png", { kind: "file", path: "/tmp/a b.png" }],
    ["a base64 data: URL", PNG_DATA_URL, { kind: "data-url" }],
    ["a data: URL without media type", `data:;base64,${base64(PNG_BYTES)}`, { kind: "data-url" }],
    [
      "a percent-encoded data: URL",
      `data:image/png,${[...PNG_BYTES].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("")}`,
      { kind: "data-url" },
    ],
    [
      "an SVG data: URL",
      "data:image/svg+xml,%3Csvg%20xmlns%3D%22x%22%3E%3C%2Fsvg%3E",
      { kind: "data-url" },
    ],
  ])("%s", (_label, source, expected) => {
    expect(image(source).source).toMatchObject(expected);
  });

  it.each([
    ["PNG", PNG_BYTES, "image/png"],
    ["JPEG", JPEG_HEAD, "image/jpeg"],
    ["GIF", GIF_HEAD, "image/gif"],
    ["WebP", WEBP_HEAD, "image/webp"],
    [
      "SVG",
      new TextEncoder().encode('<?xml version="1.0"?>\n<svg xmlns="x"></svg>'),
      "image/svg+xml",
    ],
  ])("bytes of a %s, sniffed by content", async (_label, bytes, mediaType) => {
    expect(await loadImage(image(bytes))).toEqual({ kind: "bytes", data: bytes, mediaType });
  });

  it("trusts a declared type only for formats it cannot sniff", async () => {
    const avif = new Uint8Array([0, 0, 0, 0x1c, ...new TextEncoder().encode("ftypavif")]);
    expect(await loadImage(image(avif, { mediaType: "image/avif" }))).toMatchObject({
      mediaType: "image/avif",
    });
    // Content wins over a wrong declared type.
    expect(await loadImage(image(PNG_BYTES, { mediaType: "image/jpeg" }))).toMatchObject({
      mediaType: "image/png",
    });
  });
});

describe("image() rejects at once what cannot be sent", () => {
  const text = new TextEncoder();
  it.each([
    ["an URL without host", "http://", /the URL "http:\/\/" has no host/],
    ["an URL with an empty host", "https:///a.png", /has no host/],
    [
      "an URL with a space",
      "https://example.com/a b.png",
      /contains whitespace: encode spaces as %20/,
    ],
    ["an URL with a space in the host", "http://exa mple.com", /contains whitespace/],
    [
      "an ftp: URL",
      "ftp://example.com/a.png",
      /has the scheme "ftp:", which images cannot come from/,
    ],
    ["a javascript: URL", "javascript:alert(1)", /scheme "javascript:"/],
    ["a mailto: URL", "mailto:a@b.c", /scheme "mailto:"/],
    ["a file: URL with a host", "file://server/share/a.png", /not a usable file: URL/],
    [
      "an empty string",
      "  ",
      /image\(\) needs a URL, a file path, a data: URL or bytes; it got an empty string/,
    ],
    ["a number", 42, /it got a number/],
    ["null", null, /it got null/],
    [
      "a data: URL of text",
      "data:text/plain;base64,aGVsbG8=",
      /media type "text\/plain", which is not an image/,
    ],
    ["a data: URL without comma", "data:image/png;base64", /not a valid data: URL/],
    [
      "a data: URL with invalid base64",
      "data:image/png;base64,@@@not base64@@@",
      /is not valid base64 \(character "@"/,
    ],
    [
      "a data: URL with base64 of a wrong length",
      "data:image/png;base64,iVBORw0KG",
      /not valid base64 \(wrong length or padding\)/,
    ],
    [
      "a data: URL with a bad % escape",
      "data:image/png,%E0%A4%A",
      /has a bad % escape at character 6 \("%A"\)/,
    ],
    ["a data: URL with a lone %", "data:image/svg+xml,<svg>100%</svg>", /bad % escape/],
    ["a data: URL with no data", "data:image/png;base64,", /has no data after the comma/],
    [
      "a data: URL of a truncated PNG",
      "data:image/png;base64,iVBORw0KGgo=",
      /truncated or damaged PNG \(8 bytes/,
    ],
    [
      "a data: URL of text called PNG",
      `data:image/png;base64,${base64(text.encode("hello"))}`,
      /is not an image \(it is text: "hello"\)/,
    ],
    [
      "a data: URL with a malformed media type",
      "data:image png;base64,AAAA",
      /malformed media type/,
    ],
    [
      "a mediaType that is no image type",
      ["https://x.test/a", { mediaType: "text/html" }],
      /mediaType "text\/html": give an image type/,
    ],
  ])("%s", (_label, source, message) => {
    const [value, options] = Array.isArray(source) ? source : [source, undefined];
    const making = () => image(value as string, options as never);
    expect(making).toThrow(EvalError);
    expect(making).toThrow(message);
  });

  it.each([
    ["empty bytes", new Uint8Array(0), /the data is empty \(0 bytes\)/],
    ["an empty ArrayBuffer", new ArrayBuffer(0), /is empty/],
    [
      "text bytes",
      new TextEncoder().encode("just some text"),
      /is not an image \(it is text: "just some text"\)/,
    ],
    ["HTML bytes", new TextEncoder().encode("<!DOCTYPE html><html>"), /it is an HTML page/],
    ["unknown binary", new Uint8Array([1, 2, 3, 4]), /its first bytes are 01 02 03 04/],
    ["a PNG signature only", PNG_BYTES.subarray(0, 8), /truncated or damaged PNG \(8 bytes/],
    ["half a PNG signature", PNG_BYTES.subarray(0, 4), /truncated or damaged PNG \(4 bytes/],
    ["a PNG cut in its header", PNG_BYTES.subarray(0, 20), /truncated or damaged PNG/],
    ["a JPEG start only", JPEG_HEAD.subarray(0, 3), /truncated or damaged JPEG/],
    ["a GIF cut short", GIF_HEAD.subarray(0, 8), /truncated or damaged GIF/],
    [
      "a RIFF that is no WebP",
      new Uint8Array([...new TextEncoder().encode("RIFF\0\0\0\0WAVEfmt "), 0, 0, 0, 0]),
      /is not an image/,
    ],
  ])("bytes: %s", (_label, bytes, message) => {
    expect(() => image(bytes)).toThrow(message);
    expect(() => image(bytes)).toThrow(
      /Pass the bytes of a PNG, JPEG, GIF, WebP, BMP or SVG image/,
    );
  });
});

describe("image files are sniffed when checked and loaded", () => {
  it.each([
    ["a 0-byte .png", () => file("empty.png", ""), /empty\.png" is empty \(0 bytes\)/],
    [
      "a text file named .png",
      () => file("notes.png", "hello, I am text"),
      /notes\.png" is not an image \(it is text/,
    ],
    [
      "a truncated PNG",
      () => file("cut.png", PNG_BYTES.subarray(0, 12)),
      /cut\.png" is a truncated or damaged PNG/,
    ],
    [
      "an HTML page named .jpg",
      () => file("page.jpg", "<html><body>404</body></html>"),
      /page\.jpg" is not an image \(it is an HTML page/,
    ],
    [
      "a missing file",
      () => join(folder, "absent.png"),
      /absent\.png" does not exist \(ENOENT\): check the path/,
    ],
    ["a folder", () => folder, /is a folder \(EISDIR\)/],
  ])("%s", async (_label, makePath, message) => {
    const part = image(makePath());
    await expect(checkImage(part)).rejects.toThrow(message);
    await expect(loadImage(part)).rejects.toThrow(message);
  });

  it("sends a file by its content's type, whatever its name", async () => {
    const part = image(file("really-a-png.jpg", PNG_BYTES));
    await expect(checkImage(part)).resolves.toBeUndefined();
    expect(await loadImage(part)).toEqual({
      kind: "bytes",
      data: PNG_BYTES,
      mediaType: "image/png",
    });
  });

  it("refuses a malformed part it is given directly", async () => {
    const part = { type: "image", source: { kind: "file" } } as unknown as ImagePart;
    await expect(loadImage(part)).rejects.toThrow(
      /has a file source without a path: make image parts with image\(\)/,
    );
  });
});

describe("image parts in content", () => {
  it("mm keeps images as parts and numbers them when rendered", () => {
    const first = image("https://example.com/a.png");
    const second = image(PNG_BYTES);
    const content = mm`Compare ${first} with ${second} (${2} images)`;
    expect(content).toEqual(["Compare ", first, " with ", second, " (2 images)"]);
    const images: ImagePart[] = [];
    expect(renderContent(content, images)).toBe("Compare [image 1] with [image 2] (2 images)");
    expect(images).toEqual([first, second]);
    expect(isImagePart(first)).toBe(true);
    expect(isImagePart({ type: "image" })).toBe(false);
    expect(describeImage(second)).toBe(`${PNG_BYTES.byteLength} bytes`);
  });
});
