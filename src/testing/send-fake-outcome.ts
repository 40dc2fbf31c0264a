import type { ServerResponse } from "node:http";
import type { Outcome, SentOutcome } from "./answer-fake-openai-request.ts";

/**
 * Writes a decided answer to the wire: the status, headers and body, or, for an answer cut
 * short, the status and headers (announcing the whole body), part of the body, and then a
 * destroyed connection.
 */
export function sendFakeOutcome(options: { response: ServerResponse; outcome: SentOutcome }): void {
  const { response, outcome } = options;
  if (response.destroyed) return;
  const headers = {
    ...outcome.headers,
    "content-type": outcome.contentType,
    "x-request-id": `req_fake_${Date.now().toString(16)}`,
  };
  const fault = outcome.fault;
  if (fault?.kind === "cut") {
    const body = Buffer.from(outcome.body);
    response.writeHead(outcome.status, { ...headers, "content-length": String(body.length) });
    response.flushHeaders();
    // Never the whole body: what arrives is always short of what the headers announced.
    const sent = body.subarray(0, Math.max(0, Math.min(fault.afterBytes, body.length - 1)));
    response.write(sent, () => response.destroy());
    return;
  }
  response.writeHead(outcome.status, headers);
  response.end(outcome.body);
}

/** Resolves once the client has gone away or the server is closing: how a hung answer waits. */
export function untilGone(options: {
  response: ServerResponse;
  closing: AbortSignal;
}): Promise<void> {
  const { response, closing } = options;
  return new Promise((resolve) => {
    if (closing.aborted || response.destroyed) {
      resolve();
      return;
    }
    const done = () => {
      closing.removeEventListener("abort", done);
      response.off("close", done);
      resolve();
    };
    closing.addEventListener("abort", done, { once: true });
    response.once("close", done);
  });
}

/** The key of `byStatus` an answer is counted under. */
export function statusKey(outcome: Exclude<Outcome, { kind: "drop" }>): string {
  if (outcome.kind === "hang") return "hung";
  return outcome.fault?.kind ?? String(outcome.status);
}
