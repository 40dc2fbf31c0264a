import { createHash } from "node:crypto";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import type { ImagePart } from "../test-case/image.ts";

/** Bumped when the key's recipe changes, so old entries can never be served. */
const KEY_VERSION = 1;

function describeForKey(part: ImagePart): string {
  const source = part.source;
  switch (source.kind) {
    case "bytes":
      return `bytes:${createHash("sha256").update(source.data).digest("hex")}`;
    case "file":
      return `file:${source.path}`;
    case "url":
    case "data-url":
      return `url:${createHash("sha256").update(source.url).digest("hex")}`;
  }
}

/**
 * The identity of a judge request: a hash of everything that changes the answer — judge
 * name and settings, prompt, images, the JSON asked for, and the trial index — so a changed
 * prompt, template, model or setting can never be served another request's answer.
 */
export function judgeCacheKey(options: {
  judge: JudgeModel;
  request: JudgeRequest;
  trial: number;
}): string {
  const { judge, request, trial } = options;
  const settings = (judge as { temperature?: unknown }).temperature;
  return createHash("sha256")
    .update(
      JSON.stringify([
        KEY_VERSION,
        judge.name,
        settings ?? null,
        request.prompt,
        (request.images ?? []).map(describeForKey),
        request.jsonSchema,
        trial,
      ]),
    )
    .digest("hex");
}
