/**
 * Test helpers for evals: a scripted judge, and a fake OpenAI-compatible server for the real
 * HTTP path. Import from `verdict/testing`.
 * @packageDocumentation
 */

export type { FakeLogprobs, FakeTokenLogprob, FakeTopLogprob } from "./fake-openai-logprobs.ts";
export {
  type FakeAnswerReplyOptions,
  type FakeBatchInfo,
  type FakeBatchOptions,
  type FakeBatchSummary,
  type FakeCutReplyOptions,
  type FakeErrorReplyOptions,
  type FakeFaults,
  type FakeFineTuningCheckpoint,
  type FakeFineTuningJobOptions,
  type FakeFineTuningSchedule,
  type FakeFinishReason,
  type FakeNotJsonReplyOptions,
  type FakeOpenAIRequest,
  type FakeOpenAIServer,
  type FakeOpenAIServerOptions,
  type FakeOpenAIServerStats,
  type FakeRateLimitHint,
  type FakeReply,
  type FakeResponder,
  reply,
  startFakeOpenAIServer,
} from "./fake-openai-server.ts";
export {
  type MockAnswer,
  MockJudge,
  type MockJudgeCall,
  type MockJudgeOptions,
} from "./mock-judge.ts";
