import { createHash } from "node:crypto";
import { DEFAULT_JUDGE_ENDPOINTS, judgeEndpoint } from "../judge/judge-endpoint.ts";
import type { JudgeModel, JudgeRequest } from "../judge/judge-model.ts";
import type { ImagePart } from "../test-case/image.ts";

/** Bumped when the key's recipe changes, so old entries can never be served. */
const KEY_VERSION = 3;

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
 * name, settings and endpoint (where it is served: scheme, host, port and path, never
 * credentials or a query), prompt, images, the JSON asked for, the trial index and the token log-probabilities asked for — so a
 * changed prompt, template, model, setting or server can never be served another request's
 * answer. A judge at its provider's default endpoint, or one that names none, keeps the key
 * it had before endpoints were keyed.
 */
export function judgeCacheKey(options: {
  judge: JudgeModel;
  request: JudgeRequest;
  trial: number;
}): string {
  const { judge, request, trial } = options;
  // A judge's sampling temperature; a model that generates outputs (a fine-tuning checkpoint)
  // also keys on its system prompt and token limit (`cacheKeySettings`).
  const settings =
    (judge as { cacheKeySettings?: unknown }).cacheKeySettings ??
    (judge as { temperature?: unknown }).temperature;
  // Fields are fed to the hash one by one, each with its length, so no field can run into
  // the next; the schema's text is computed once per schema object.
  const hash = createHash("sha256");
  const add = (text: string) => hash.update(`${text.length}:`).update(text);
  add(String(KEY_VERSION));
  add(judge.name);
  add(JSON.stringify(settings ?? null));
  add(request.prompt);
  for (const image of request.images ?? []) add(describeForKey(image));
  add("|");
  add(schemaText(request.jsonSchema));
  add(String(trial));
  // Only when asked: the keys of requests without logprobs stay those cached before them.
  if (request.topLogprobs !== undefined) add(`topLogprobs:${request.topLogprobs}`);
  // Last and only off the default endpoint, so that the keys of a provider's own API (and of
  // judges that name no endpoint) stay what they were: existing caches remain valid.
  const endpoint = judgeEndpoint(judge);
  if (endpoint !== null && !DEFAULT_JUDGE_ENDPOINTS.has(endpoint)) add(`endpoint:${endpoint}`);
  return hash.digest("hex");
}

const schemaTexts = new WeakMap<object, string>();

function schemaText(jsonSchema: object): string {
  let text = schemaTexts.get(jsonSchema);
  if (text === undefined) {
    text = JSON.stringify(jsonSchema);
    schemaTexts.set(jsonSchema, text);
  }
  return text;
}
