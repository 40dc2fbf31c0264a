import { jsonOutcome, type Outcome } from "./answer-fake-openai-request.ts";
import { anthropicErrorBody } from "./fake-anthropic-messages.ts";
import type { FakeBatch, FakeBatchLine, FakeLineResult } from "./fake-batch-record.ts";

const CUSTOM_ID = /^[A-Za-z0-9_-]{1,64}$/;
const WINDOW_MS = 24 * 60 * 60 * 1000;

/** The lines of a `POST /v1/messages/batches` body, or the 400 Anthropic answers. */
export function parseAnthropicBatch(body: Buffer | null): FakeBatchLine[] | Outcome {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body?.toString("utf8") ?? "");
  } catch {
    return anthropicInvalid("The request body is not valid JSON.");
  }
  const requests = (parsed as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests) || requests.length === 0) {
    return anthropicInvalid("requests: a non-empty list of { custom_id, params } is required.");
  }
  const lines: FakeBatchLine[] = [];
  const seen = new Set<string>();
  for (const [index, request] of requests.entries()) {
    const { custom_id: customId, params } = (request ?? {}) as Record<string, unknown>;
    if (typeof customId !== "string" || !CUSTOM_ID.test(customId)) {
      return anthropicInvalid(`requests.${index}.custom_id: must match ^[a-zA-Z0-9_-]{1,64}$.`);
    }
    if (seen.has(customId)) {
      return anthropicInvalid(`requests.${index}.custom_id: "${customId}" is used twice.`);
    }
    if (typeof params !== "object" || params === null) {
      return anthropicInvalid(`requests.${index}.params: Field required.`);
    }
    seen.add(customId);
    lines.push({ customId, url: "/v1/messages", body: params });
  }
  return lines;
}

/** Anthropic's word for where a batch is: `in_progress`, `canceling` or `ended`. */
export function anthropicStatus(batch: FakeBatch): string {
  if (batch.status === "cancelling") return "canceling";
  return ["completed", "expired", "cancelled", "failed"].includes(batch.status)
    ? "ended"
    : "in_progress";
}

/** A Message Batch object as Anthropic serves it. */
export function anthropicBatchObject(batch: FakeBatch): Record<string, unknown> {
  const counts = { processing: 0, succeeded: 0, errored: 0, canceled: 0, expired: 0 };
  const status = anthropicStatus(batch);
  if (status === "ended") {
    for (const result of batch.results) {
      if (result.kind !== "answered") {
        if (result.kind === "expired") counts.expired++;
        else counts.canceled++;
      } else if (result.status >= 200 && result.status < 300) counts.succeeded++;
      else counts.errored++;
    }
  } else {
    counts.processing = batch.lines.length;
  }
  const iso = (seconds: number | undefined) =>
    seconds === undefined ? null : new Date(seconds * 1000).toISOString();
  return {
    id: batch.id,
    type: "message_batch",
    processing_status: status,
    request_counts: counts,
    ended_at: status === "ended" ? iso(batch.changedAt[`${batch.status}_at`]) : null,
    created_at: new Date(batch.createdAtMs).toISOString(),
    expires_at: new Date(batch.createdAtMs + WINDOW_MS).toISOString(),
    archived_at: null,
    cancel_initiated_at: iso(batch.changedAt.cancelling_at),
    results_url:
      status === "ended" ? `${batch.origin}/v1/messages/batches/${batch.id}/results` : null,
  };
}

/** The results of an ended batch: one JSON line per request, as Anthropic serves them. */
export function anthropicResults(batch: FakeBatch): string {
  return batch.lines
    .map((line, index) => {
      const result: FakeLineResult = batch.results[index] ?? { kind: "expired" };
      if (result.kind === "expired")
        return { custom_id: line.customId, result: { type: "expired" } };
      if (result.kind === "cancelled") {
        return { custom_id: line.customId, result: { type: "canceled" } };
      }
      if (result.status >= 200 && result.status < 300) {
        return { custom_id: line.customId, result: { type: "succeeded", message: result.body } };
      }
      const error = { ...(result.body as object), request_id: `req_fake_${batch.id}_${index}` };
      return { custom_id: line.customId, result: { type: "errored", error } };
    })
    .map((record) => `${JSON.stringify(record)}\n`)
    .join("");
}

/** A 400 in Anthropic's shape. */
export function anthropicInvalid(message: string, status = 400): Outcome {
  return jsonOutcome({ status, body: anthropicErrorBody({ status, message }) });
}
