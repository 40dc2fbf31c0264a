import { checkImageBytes } from "./sniff-image.ts";

/** A decoded `data:` URL: its bytes and media type, or what is wrong with it. */
export type DecodedDataUrl = { data: Uint8Array; mediaType: string } | { problem: string };

const BASE64 = /^[A-Za-z0-9+/\-_]*={0,2}$/;

/** Percent-decodes to bytes (not text: `%89` is a byte of a PNG, not a broken character). */
function percentDecode(text: string): Uint8Array | { problem: string } {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let index = 0; index < text.length; index++) {
    const character = text[index] as string;
    if (character !== "%") {
      const code = text.codePointAt(index) as number;
      if (code > 0xffff) index++;
      bytes.push(...encoder.encode(String.fromCodePoint(code)));
      continue;
    }
    const hex = text.slice(index + 1, index + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(hex)) {
      return {
        problem: `has a bad % escape at character ${index} (${JSON.stringify(text.slice(index, index + 3))}): write % as %25, and each escaped byte as % and two hex digits`,
      };
    }
    bytes.push(Number.parseInt(hex, 16));
    index += 2;
  }
  return new Uint8Array(bytes);
}

/**
 * Decodes and checks a `data:` URL holding an image: `data:image/png;base64,…` (or
 * percent-encoded data). Its media type must be an image type, its base64 well-formed, its
 * % escapes valid, and its bytes an image ({@link checkImageBytes}).
 */
export function decodeDataUrl(url: string, declared?: string): DecodedDataUrl {
  const match = /^data:([^,]*),(.*)$/is.exec(url);
  if (!match) {
    return { problem: "is not a valid data: URL: write it as data:image/png;base64,<data>" };
  }
  const meta = (match[1] as string).split(";").map((item) => item.trim());
  const base64 = meta.length > 1 && meta.at(-1)?.toLowerCase() === "base64";
  const written = meta[0] ?? "";
  if (written !== "" && !/^[\w.+-]+\/[\w.+-]+$/.test(written)) {
    return {
      problem: `has a malformed media type ${JSON.stringify(written)}: write e.g. image/png`,
    };
  }
  if (written !== "" && !/^image\//i.test(written)) {
    return {
      problem: `has media type ${JSON.stringify(written)}, which is not an image: use data:image/png;base64,… (or image/jpeg, image/gif, image/webp)`,
    };
  }
  const payload = match[2] as string;
  let data: Uint8Array;
  if (base64) {
    const unescaped = percentDecode(payload);
    if (!(unescaped instanceof Uint8Array)) return unescaped;
    const text = new TextDecoder().decode(unescaped).replace(/\s+/g, "");
    if (text === "") return { problem: "has no data after the comma" };
    if (!BASE64.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
      const bad = /[^A-Za-z0-9+/\-_=]/.exec(text);
      return {
        problem: `is not valid base64${bad ? ` (character ${JSON.stringify(bad[0])} at ${bad.index})` : " (wrong length or padding)"}: encode the image's bytes with base64, e.g. Buffer.from(bytes).toString("base64")`,
      };
    }
    data = new Uint8Array(Buffer.from(text, "base64"));
  } else {
    const decoded = percentDecode(payload);
    if (!(decoded instanceof Uint8Array)) return decoded;
    data = decoded;
  }
  const checked = checkImageBytes(data, declared ?? (written === "" ? undefined : written));
  if ("problem" in checked) {
    return { problem: `${checked.problem}: put the image's own bytes in the data: URL` };
  }
  return { data, mediaType: checked.mediaType };
}
