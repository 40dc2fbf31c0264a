import { createOpenAI } from "@ai-sdk/openai";
import { APICallError, generateText } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, reply, startFakeOpenAIServer } from "./fake-openai-server.ts";

let server: FakeOpenAIServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof startFakeOpenAIServer>[0]) {
  server = await startFakeOpenAIServer(options);
  return server;
}

async function getJson(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${(server as FakeOpenAIServer).url}${path}`, {
    headers: { authorization: "Bearer sk-test" },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const job = (id: string) => getJson(`/fine_tuning/jobs/${id}`);
const checkpoints = async (id: string, query = "") =>
  (await getJson(`/fine_tuning/jobs/${id}/checkpoints${query}`)).body as {
    data: Array<Record<string, unknown>>;
    has_more: boolean;
    first_id: string | null;
    last_id: string | null;
  };

function ask(model: string): Promise<string> {
  const openai = createOpenAI({ baseURL: (server as FakeOpenAIServer).url, apiKey: "sk-test" });
  return generateText({ model: openai.chat(model), prompt: "Hello?", maxRetries: 0 }).then(
    (result) => result.text,
  );
}

const STEPS = [
  { step: 10, answer: "first" },
  { step: 20, answer: "second", metrics: { step: 20, train_loss: 0.5, valid_loss: 0.7 } },
  { step: 30, answer: "third" },
];

describe("fake fine-tuning jobs", () => {
  it("publishes a checkpoint per poll of the job, newest first, then succeeds with the final model", async () => {
    await start({ fineTuningJobs: [{ id: "ftjob-abc", checkpoints: STEPS }] });
    const first = await job("ftjob-abc");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: "fine_tuning.job",
      id: "ftjob-abc",
      status: "running",
      fine_tuned_model: null,
      error: null,
      model: "gpt-4.1-mini-2025-04-14",
    });
    const listed = await checkpoints("ftjob-abc");
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      object: "fine_tuning.job.checkpoint",
      fine_tuned_model_checkpoint: "ft:gpt-4.1-mini-2025-04-14:verdict-fake::abc:ckpt-step-10",
      fine_tuning_job_id: "ftjob-abc",
      step_number: 10,
      metrics: { step: 10, train_loss: 0.5 },
    });
    expect(typeof listed.data[0]?.created_at).toBe("number");
    await job("ftjob-abc");
    const last = await job("ftjob-abc");
    expect(last.body).toMatchObject({
      status: "succeeded",
      fine_tuned_model: "ft:gpt-4.1-mini-2025-04-14:verdict-fake::abc",
    });
    const all = await checkpoints("ftjob-abc");
    expect(all.data.map((checkpoint) => checkpoint.step_number)).toEqual([30, 20, 10]);
    expect(all.data[1]?.metrics).toEqual({ step: 20, train_loss: 0.5, valid_loss: 0.7 });
    expect(server?.stats().byEndpoint).toMatchObject({
      "fine_tuning.jobs": 3,
      "fine_tuning.checkpoints": 2,
    });
  });

  it("pages checkpoints with limit and after, as OpenAI's cursor pages do", async () => {
    await start({ fineTuningJobs: [{ id: "ftjob-abc", checkpoints: STEPS, schedule: "manual" }] });
    for (let count = 0; count < 3; count++) server?.publishCheckpoint("ftjob-abc");
    const page = await checkpoints("ftjob-abc", "?limit=2");
    expect(page.data.map((checkpoint) => checkpoint.step_number)).toEqual([30, 20]);
    expect(page).toMatchObject({
      has_more: true,
      first_id: page.data[0]?.id,
      last_id: page.data[1]?.id,
    });
    const next = await checkpoints("ftjob-abc", `?limit=2&after=${page.last_id}`);
    expect(next.data.map((checkpoint) => checkpoint.step_number)).toEqual([10]);
    expect(next.has_more).toBe(false);
  });

  it("answers as each published checkpoint, 404 before it is published, and as the last one once final", async () => {
    await start({ fineTuningJobs: [{ id: "ftjob-abc", checkpoints: STEPS, schedule: "manual" }] });
    const model = (step: number) =>
      `ft:gpt-4.1-mini-2025-04-14:verdict-fake::abc:ckpt-step-${step}`;
    const early = await ask(model(20)).catch((error: unknown) => error);
    expect(APICallError.isInstance(early) && early.statusCode).toBe(404);
    expect(server?.publishCheckpoint("ftjob-abc")).toBe(model(10));
    expect(server?.publishCheckpoint("ftjob-abc")).toBe(model(20));
    expect(await ask(model(10))).toBe("first");
    expect(await ask(model(20))).toBe("second");
    expect(server?.publishCheckpoint("ftjob-abc")).toBe(model(30));
    expect(server?.publishCheckpoint("ftjob-abc")).toBeNull();
    expect(await ask("ft:gpt-4.1-mini-2025-04-14:verdict-fake::abc")).toBe("third");
    // Other models still get the server's script; checkpoint calls did not consume it.
    server?.enqueue(reply.text("scripted"));
    expect(await ask("gpt-4.1")).toBe("scripted");
    expect(server?.requests.map((request) => request.model)).toHaveLength(5);
  });

  it("passes each call to a checkpoint's responder, which sees the prompt", async () => {
    await start({
      fineTuningJobs: [
        {
          id: "ftjob-echo",
          checkpoints: [{ step: 5, answer: (request) => reply.text(`echo: ${request.prompt}`) }],
        },
      ],
    });
    await job("ftjob-echo");
    expect(await ask("ft:gpt-4.1-mini-2025-04-14:verdict-fake::echo:ckpt-step-5")).toBe(
      "echo: Hello?",
    );
  });

  it("fails a job after the checkpoints it was given, with OpenAI's error object", async () => {
    await start({
      fineTuningJobs: [
        {
          id: "ftjob-bad",
          checkpoints: STEPS,
          failure: {
            afterCheckpoints: 1,
            message: "Training diverged.",
            code: "training_diverged",
          },
        },
      ],
    });
    await job("ftjob-bad");
    const failed = await job("ftjob-bad");
    expect(failed.body).toMatchObject({
      status: "failed",
      fine_tuned_model: null,
      error: { code: "training_diverged", message: "Training diverged.", param: "training_file" },
    });
    expect((await checkpoints("ftjob-bad")).data).toHaveLength(1);
  });

  it("publishes on a clock with everyMs, and starts again on reset()", async () => {
    let now = 1_000_000;
    await start({
      now: () => now,
      fineTuningJobs: [{ id: "ftjob-clock", checkpoints: STEPS, schedule: { everyMs: 1000 } }],
    });
    expect((await checkpoints("ftjob-clock")).data).toHaveLength(0);
    now += 2500;
    expect((await checkpoints("ftjob-clock")).data).toHaveLength(2);
    server?.reset();
    expect((await checkpoints("ftjob-clock")).data).toHaveLength(0);
  });

  it("answers 404 for an unknown job, and refuses a job with steps out of order", async () => {
    await start({});
    const unknown = await job("ftjob-nope");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({
      error: { code: "fine_tune_not_found", message: "Could not find fine tune job: ftjob-nope" },
    });
    expect(() =>
      server?.addFineTuningJob({
        id: "ftjob-x",
        checkpoints: [
          { step: 20, answer: "a" },
          { step: 10, answer: "b" },
        ],
      }),
    ).toThrow("need whole, increasing steps of at least 1; got 20, 10");
    expect(() => server?.publishCheckpoint("ftjob-missing")).toThrow(
      'no fake fine-tuning job "ftjob-missing"',
    );
  });
});
