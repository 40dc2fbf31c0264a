import { expect, it } from "vitest";
import * as testing from "./index.ts";

it("verdict/testing exports the mock judge, the fake server and its replies, nothing more", () => {
  expect(Object.keys(testing).sort()).toEqual(["MockJudge", "reply", "startFakeOpenAIServer"]);
});
