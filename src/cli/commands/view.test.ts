import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryRunStore } from "../../store/memory-run-store.ts";
import {
  makeStoredRun,
  makeStoredTestResult,
  makeSummary,
} from "../../store/run-store-contract.ts";
import { createViewServer, VIEW_HOST } from "./view.ts";

const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

async function serve(store: MemoryRunStore) {
  const server = createViewServer({ store });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, VIEW_HOST, () => resolve()));
  const { address, port } = server.address() as AddressInfo;
  return { address, base: `http://${VIEW_HOST}:${port}` };
}

describe("verdict view", () => {
  it("lists stored runs and shows one as the HTML report, with everything escaped", async () => {
    const store = new MemoryRunStore();
    const run = makeStoredRun({ id: "run-1", identifier: "nightly <b>", summary: makeSummary() });
    store.startRun(run);
    store.saveTestResult(
      run.id,
      makeStoredTestResult(0, { actualOutput: '<script>alert("x")</script>' }),
    );
    const { address, base } = await serve(store);
    expect(address).toBe("127.0.0.1");

    const list = await fetch(`${base}/`);
    expect(list.status).toBe(200);
    expect(list.headers.get("content-security-policy")).toContain("default-src 'none'");
    const listHtml = await list.text();
    expect(listHtml).toContain('href="/runs/run-1"');
    expect(listHtml).toContain("nightly &lt;b&gt;");

    const report = await (await fetch(`${base}/runs/run-1`)).text();
    expect(report).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(report).not.toContain('<script>alert("x")');
  });

  it("answers 404 for an unknown run and says when there are no runs", async () => {
    const { base } = await serve(new MemoryRunStore());
    expect((await fetch(`${base}/runs/missing`)).status).toBe(404);
    expect(await (await fetch(`${base}/`)).text()).toContain("No runs stored yet");
  });
});
