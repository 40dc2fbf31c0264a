import { createHash } from "node:crypto";
import { decideSuccess } from "../results/case-metrics.ts";
import {
  MAX_STORED_IMAGE_BYTES,
  type ResultImage,
  type TestResult,
  type TrialResult,
} from "../results/evaluation-result.ts";
import type { MetricData } from "../results/metric-data.ts";
import { toJsonValue, WHOLE_VALUE } from "../results/to-json-value.ts";
import { type Content, describeImage, type ImagePart, isImagePart } from "../test-case/image.ts";
import type { LLMTestCase, LLMTestCaseFields } from "../test-case/llm-test-case.ts";
import { checkImageBytes } from "../test-case/sniff-image.ts";
import type { JudgeResolver } from "./judge-resolver.ts";

/** Content as report text: images appear as `[image N: source]`. */
export function contentForReport(content: Content | undefined): string | null {
  return content === undefined ? null : reportContent({ field: "input", content }).text;
}

/**
 * Content as report text (images as `[image N: source]` markers) and the images themselves,
 * structured, with where each marker sits in the text.
 */
export function reportContent(options: { field: ResultImage["field"]; content: Content }): {
  text: string;
  images: ResultImage[];
} {
  const { content, field } = options;
  if (typeof content === "string") return { text: content, images: [] };
  const images: ResultImage[] = [];
  let text = "";
  for (const part of content) {
    if (!isImagePart(part)) {
      text += part;
      continue;
    }
    const label = describeImage(part);
    const marker = `[image ${images.length + 1}: ${label}]`;
    const data = imageData(part);
    images.push({
      field,
      number: images.length + 1,
      start: text.length,
      end: text.length + marker.length,
      kind: part.source.kind,
      label,
      ...(data === null ? {} : { data }),
    });
    text += marker;
  }
  return { text, images };
}

/**
 * An image given as bytes or a `data:` URL, as a `data:` URL a viewer can show (see
 * {@link ResultImage.data}); `null` for URLs and files, images over
 * {@link MAX_STORED_IMAGE_BYTES}, and bytes that are no image.
 */
function imageData(part: ImagePart): string | null {
  const source = part.source;
  if (source.kind === "data-url") {
    // Base64 takes 4 characters per 3 bytes; the media type and its prefix a few more.
    return source.url.length <= (MAX_STORED_IMAGE_BYTES * 4) / 3 + 200 ? source.url : null;
  }
  if (source.kind !== "bytes" || source.data.byteLength > MAX_STORED_IMAGE_BYTES) return null;
  const checked = checkImageBytes(source.data, part.mediaType);
  if ("problem" in checked) return null;
  return `data:${checked.mediaType};base64,${Buffer.from(source.data).toString("base64")}`;
}

/** Assembles a test case's result from its trials. */
export function buildTestResult(options: {
  /** The case, or what an invalid case's result shows of it. */
  testCase: Pick<
    LLMTestCaseFields,
    "name" | "input" | "actualOutput" | "expectedOutput" | "tags" | "context" | "retrievalContext"
  >;
  index: number;
  trials: Array<{ trial: number; metricsData: MetricData[] }>;
  repeat: number;
  /** Wall time of scoring the case; left out for a case that was never scored. */
  durationMs?: number;
}): TestResult {
  const { testCase, index } = options;
  const trials: TrialResult[] = options.trials.map((trial) => ({
    trial: trial.trial,
    success: decideSuccess(trial.metricsData),
    metricsData: trial.metricsData,
  }));
  const first = trials[0];
  const input = reportContent({ field: "input", content: testCase.input });
  const actualOutput =
    testCase.actualOutput === undefined
      ? null
      : reportContent({ field: "actualOutput", content: testCase.actualOutput });
  const expectedOutput =
    testCase.expectedOutput === undefined
      ? null
      : reportContent({ field: "expectedOutput", content: testCase.expectedOutput });
  return {
    name: testCase.name ?? `test_case_${index}`,
    index,
    success: decideSuccess(trials.flatMap((trial) => trial.metricsData)),
    input: input.text,
    actualOutput: actualOutput?.text ?? null,
    expectedOutput: expectedOutput?.text ?? null,
    images: [...input.images, ...(actualOutput?.images ?? []), ...(expectedOutput?.images ?? [])],
    metricsData: first?.metricsData ?? [],
    trials: options.repeat > 1 ? trials : [],
    passedTrials: trials.filter((trial) => trial.success !== false).length,
    ...(options.durationMs === undefined ? {} : { durationMs: options.durationMs }),
    ...(testCase.tags === undefined || testCase.tags.length === 0
      ? {}
      : { tags: [...testCase.tags] }),
    ...(testCase.context === undefined ? {} : { context: [...testCase.context] }),
    ...(testCase.retrievalContext === undefined
      ? {}
      : { retrievalContext: [...testCase.retrievalContext] }),
  };
}

function contentForHash(content: Content | undefined): unknown {
  if (content === undefined || typeof content === "string") return content ?? null;
  return content.map((part) => {
    if (!isImagePart(part)) return part;
    const source = part.source;
    return source.kind === "bytes"
      ? { bytes: createHash("sha256").update(source.data).digest("hex") }
      : { ...source };
  });
}

/**
 * What a stored result was computed from: the test case, the metrics' configuration, the
 * judge each metric resolved to (a metric without a `model` follows VERDICT_MODEL or
 * set-model) and the number of trials. A resumed run reuses a result only when this matches.
 */
export function fingerprintTestCase(options: {
  testCase: LLMTestCase;
  /** Each metric's configuration and judge ({@link JudgeResolver.describe}). */
  metrics: ReadonlyArray<Record<string, unknown>>;
  repeat: number;
}): string {
  const { testCase } = options;
  const fields = {
    ...testCase,
    input: contentForHash(testCase.input),
    actualOutput: contentForHash(testCase.actualOutput),
    expectedOutput: contentForHash(testCase.expectedOutput),
  };
  // Metadata and tool calls may hold anything (cycles, bigints, functions): converted, as
  // stored JSON is, never thrown on. Plain JSON converts to itself, so hashes are unchanged.
  const json = toJsonValue([fields, options.metrics, options.repeat], WHOLE_VALUE);
  return createHash("sha256").update(JSON.stringify(json)).digest("hex");
}
