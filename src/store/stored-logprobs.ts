import type { JudgeTokenLogprob } from "../results/judge-token-logprob.ts";
import type { CachedJudgeAnswer } from "./run-store.ts";

/**
 * A cached answer's token log-probabilities as the stores keep them: one
 * `[token, logprob, [[token, logprob], …]]` per token. Not as objects: every store masks the
 * values of properties named like a secret, `token` among them, which would mask every token;
 * and the candidates of long answers take half the room this way.
 */
export type StoredLogprobs = Array<[string, number, Array<[string, number]>]>;

/** Token log-probabilities in the form the stores keep (see {@link StoredLogprobs}). */
export function toStoredLogprobs(logprobs: readonly JudgeTokenLogprob[]): StoredLogprobs {
  return logprobs.map((entry) => [
    entry.token,
    entry.logprob,
    entry.topLogprobs.map((candidate): [string, number] => [candidate.token, candidate.logprob]),
  ]);
}

/** Token log-probabilities from the form the stores keep (see {@link StoredLogprobs}). */
export function fromStoredLogprobs(stored: StoredLogprobs): JudgeTokenLogprob[] {
  return stored.map(([token, logprob, top]) => ({
    token,
    logprob,
    topLogprobs: top.map(([candidate, candidateLogprob]) => ({
      token: candidate,
      logprob: candidateLogprob,
    })),
  }));
}

/** A cached answer with its logprobs in the form the stores keep: what the memory store holds. */
export type KeptJudgeAnswer = Omit<CachedJudgeAnswer, "logprobs"> & { logprobs?: StoredLogprobs };

/** A cached answer as the memory store keeps it (see {@link KeptJudgeAnswer}). */
export function toKeptAnswer(answer: CachedJudgeAnswer): KeptJudgeAnswer {
  const { logprobs, ...rest } = answer;
  return logprobs === undefined ? rest : { ...rest, logprobs: toStoredLogprobs(logprobs) };
}

/** A cached answer from the form the memory store keeps (see {@link KeptJudgeAnswer}). */
export function fromKeptAnswer(kept: KeptJudgeAnswer): CachedJudgeAnswer {
  const { logprobs, ...rest } = kept;
  return logprobs === undefined ? rest : { ...rest, logprobs: fromStoredLogprobs(logprobs) };
}
