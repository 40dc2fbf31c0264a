/** A candidate token at one place of the answer, with its log-probability. */
export interface FakeTopLogprob {
  token: string;
  logprob: number;
}

/** One token of the answer with its log-probability and the candidates at its place. */
export interface FakeTokenLogprob {
  token: string;
  /** @default the logprob of the candidate equal to `token`, else 0 */
  logprob?: number;
  /**
   * The most likely tokens at this place, most likely first; cut to the `top_logprobs` the
   * request asked for.
   * @default `token` alone, at `logprob`
   */
  topLogprobs?: FakeTopLogprob[];
}

/**
 * The token log-probabilities a scripted answer carries, when the request asks for them.
 * Either candidates for chosen tokens, keyed by the token — they go to the LAST token of the
 * answer equal to the key, as a score is the last number a judge writes — or the full list of
 * the answer's tokens, which must spell the answer exactly. Every other token is synthesised:
 * the answer is split into runs of letters, runs of up to three digits, runs of whitespace and
 * single other characters, each token at logprob 0 with itself as its only candidate.
 * @example
 * reply.json({ score: 7, reason: "…" }, {
 *   logprobs: { "7": [{ token: "7", logprob: -0.3 }, { token: "8", logprob: -1.5 }] },
 * });
 */
export type FakeLogprobs = { [token: string]: FakeTopLogprob[] } | FakeTokenLogprob[];

/** A token as the answer renders it: every field set, candidates not yet cut. */
export interface ResolvedFakeToken {
  token: string;
  logprob: number;
  topLogprobs: FakeTopLogprob[];
}

const TOKEN = /\p{L}+|\p{N}{1,3}|\s+|[^\p{L}\p{N}\s]/gu;

/** Splits an answer into the fake tokeniser's tokens (see {@link FakeLogprobs}); they spell it exactly. */
export function tokeniseFakeAnswer(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/**
 * The tokens of `content` with their log-probabilities: synthesised, with the candidates
 * `script` sets. Throws an `Error` saying what to fix when the script does not fit the answer.
 */
export function resolveFakeLogprobs(options: {
  content: string;
  script?: FakeLogprobs | undefined;
}): ResolvedFakeToken[] {
  const { content, script } = options;
  if (Array.isArray(script)) {
    const spelt = script.map((entry) => entry.token).join("");
    if (spelt !== content) {
      throw new Error(
        `the scripted logprobs spell ${JSON.stringify(spelt)}, not the answer ${JSON.stringify(content)}: list every token of the answer, in order, or key candidates by token`,
      );
    }
    return script.map((entry) => resolveToken(entry));
  }
  const tokens = tokeniseFakeAnswer(content).map((token) => resolveToken({ token }));
  for (const [key, candidates] of Object.entries(script ?? {})) {
    const index = tokens.findLastIndex((entry) => entry.token === key);
    if (index === -1) {
      throw new Error(
        `the scripted logprobs set candidates for the token ${JSON.stringify(key)}, which the answer does not have; its tokens are ${JSON.stringify(tokens.map((entry) => entry.token))}`,
      );
    }
    tokens[index] = resolveToken({ token: key, topLogprobs: candidates });
  }
  return tokens;
}

function resolveToken(entry: FakeTokenLogprob): ResolvedFakeToken {
  const own = entry.topLogprobs?.find((candidate) => candidate.token === entry.token);
  const logprob = entry.logprob ?? own?.logprob ?? 0;
  return {
    token: entry.token,
    logprob,
    topLogprobs: (entry.topLogprobs ?? [{ token: entry.token, logprob }]).map((candidate) => ({
      token: candidate.token,
      logprob: candidate.logprob,
    })),
  };
}

/** One token on OpenAI's wire, Chat Completions and Responses alike. */
export interface WireTokenLogprob {
  token: string;
  logprob: number;
  bytes: number[];
  top_logprobs: Array<{ token: string; logprob: number; bytes: number[] }>;
}

/** Tokens as OpenAI sends them, with their UTF-8 bytes and at most `top` candidates each. */
export function toWireLogprobs(
  tokens: readonly ResolvedFakeToken[],
  top: number,
): WireTokenLogprob[] {
  const bytes = (text: string) => [...Buffer.from(text, "utf8")];
  return tokens.map((entry) => ({
    token: entry.token,
    logprob: entry.logprob,
    bytes: bytes(entry.token),
    top_logprobs: entry.topLogprobs.slice(0, top).map((candidate) => ({
      token: candidate.token,
      logprob: candidate.logprob,
      bytes: bytes(candidate.token),
    })),
  }));
}
