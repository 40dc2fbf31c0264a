import { statSync } from "node:fs";
import type { ImagePart } from "../test-case/image.ts";
import type { BatchEntry } from "./batch-entry.ts";

// What a line adds around its prompt and schema: the request body's other fields, its
// custom id, method and URL.
const LINE_OVERHEAD_BYTES = 1024;
// Images travel as base64 in a line: 4 bytes for every 3.
const BASE64_GROWTH = 4 / 3;

/**
 * Splits one judge's requests into batches of at most `maxLines` lines and, as estimated from
 * their prompts, schemas and images, `maxBytes` of input (providers refuse larger files:
 * OpenAI 200 MB, Anthropic 256 MB). A request larger than `maxBytes` on its own still gets
 * a batch, which the provider then answers or rejects line by line.
 */
export function planBatches(options: {
  entries: readonly BatchEntry[];
  maxLines: number;
  maxBytes: number;
}): BatchEntry[][] {
  const batches: BatchEntry[][] = [];
  let current: BatchEntry[] = [];
  let bytes = 0;
  for (const entry of options.entries) {
    const size = estimateLineBytes(entry);
    if (
      current.length > 0 &&
      (current.length >= options.maxLines || bytes + size > options.maxBytes)
    ) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function estimateLineBytes(entry: BatchEntry): number {
  const { request } = entry;
  let bytes =
    LINE_OVERHEAD_BYTES +
    Buffer.byteLength(request.prompt) +
    JSON.stringify(request.jsonSchema).length;
  for (const image of request.images ?? []) bytes += imageBytes(image);
  return bytes;
}

function imageBytes(image: ImagePart): number {
  const source = image.source;
  switch (source.kind) {
    case "bytes":
      return Math.ceil(source.data.byteLength * BASE64_GROWTH);
    case "url":
    case "data-url":
      return source.url.length;
    case "file": {
      // A file that cannot be read fails when the batch is made, with a clear error.
      const size = statSync(source.path, { throwIfNoEntry: false })?.size ?? 0;
      return Math.ceil(size * BASE64_GROWTH);
    }
  }
}
