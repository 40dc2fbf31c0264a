import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../errors/config-error.ts";
import { SqliteRunStore } from "../../store/sqlite-run-store.ts";
import { makeStoredRun, makeSummary } from "../../testing/store-contract.ts";
import { defineViewCommand } from "../program/run-commands.ts";
import { isLoopbackAddress, runView } from "./view.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

async function project(withRun: boolean): Promise<string> {
  const cwd = mkdtempSync(path.join(tmpdir(), "verdict-view-"));
  folders.push(cwd);
  if (withRun) {
    const store = SqliteRunStore.open({ cwd, env: {} });
    await store.runs.startRun(
      makeStoredRun({ id: "run-1", identifier: "nightly", summary: makeSummary() }),
    );
    await store.close();
  }
  return cwd;
}

function output() {
  let text = "";
  return {
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    read: () => text,
  };
}

/** Starts `verdict view` until the returned stop; resolves once it printed its address. */
async function startView(options: Partial<Parameters<typeof runView>[0]> & { cwd: string }) {
  const stdout = output();
  const stderr = output();
  const controller = new AbortController();
  const exited = runView({
    env: {},
    port: 0,
    stdout,
    stderr,
    signal: controller.signal,
    ...options,
  });
  while (!stdout.read().includes("Ctrl-C")) await new Promise((resolve) => setTimeout(resolve, 5));
  const url = /http:\/\/\S+?\//.exec(stdout.read())?.[0] ?? "";
  return {
    url,
    stdout,
    stderr,
    stop: async () => {
      controller.abort();
      return exited;
    },
  };
}

describe("verdict view without a store", () => {
  it("creates nothing, says how to record a first run, and returns 2", async () => {
    const cwd = await project(false);
    const stdout = output();
    const stderr = output();
    const code = await runView({ cwd, env: {}, port: 0, stdout, stderr });
    expect(code).toBe(2);
    expect(readdirSync(cwd)).toEqual([]);
    expect(existsSync(path.join(cwd, ".verdict"))).toBe(false);
    expect(stderr.read()).toContain(
      `No verdict store here yet (looked for ${path.join(cwd, ".verdict", "verdict.db")})`,
    );
    expect(stderr.read()).toContain('Record a run first with "verdict test run"');
    expect(stdout.read()).toBe("");
  });
});

describe("verdict view: where it listens", () => {
  it("listens on 127.0.0.1 by default and serves the API there", async () => {
    const view = await startView({ cwd: await project(true) });
    try {
      expect(view.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const runs = (await (await fetch(`${view.url}api/runs`)).json()) as {
        runs: Array<{ identifier: string }>;
      };
      expect(runs.runs.map((run) => run.identifier)).toEqual(["nightly"]);
    } finally {
      expect(await view.stop()).toBe(0);
    }
  });

  it("refuses another interface without a token, saying what to do", async () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "build-box.lan"]) {
      const error = await runView({ cwd: await project(true), env: {}, host, port: 0 }).catch(
        (caught: unknown) => caught,
      );
      expect(error, host).toBeInstanceOf(ConfigError);
      expect((error as Error).message, host).toContain("add --token <secret>");
    }
  });

  it("refuses a token that is short or unsafe in a URL", async () => {
    for (const token of ["short", "has space in it 0123456789", "semi;colon-0123456789"]) {
      const error = await runView({
        cwd: await project(true),
        env: {},
        host: "0.0.0.0",
        token,
      }).catch((caught: unknown) => caught);
      expect(error, token).toBeInstanceOf(ConfigError);
      expect((error as Error).message, token).toContain("at least 16 characters");
    }
  });

  it("with a token, serves only requests that carry it, and never prints it", async () => {
    const token = "tok-0123456789abcdef0123";
    const view = await startView({ cwd: await project(true), token });
    try {
      expect(view.stdout.read()).toContain("?token=<your token>");
      expect(view.stdout.read() + view.stderr.read()).not.toContain(token);
      expect((await fetch(`${view.url}api/runs`)).status).toBe(401);
      expect((await fetch(`${view.url}api/runs?token=${token}`)).status).toBe(200);
    } finally {
      await view.stop();
    }
  });

  it("tells loopback addresses from the others", () => {
    for (const host of ["127.0.0.1", "127.0.1.1", "localhost", "::1", "[::1]", "LOCALHOST"]) {
      expect(isLoopbackAddress(host), host).toBe(true);
    }
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "localhost.example", "127.1"]) {
      expect(isLoopbackAddress(host), host).toBe(false);
    }
  });
});

describe("verdict view --open", () => {
  it("opens the dashboard with a one-time login code, never the token, and only warns when no browser opens", async () => {
    const token = "tok-0123456789abcdef0123";
    const opened: string[] = [];
    const view = await startView({
      cwd: await project(true),
      token,
      open: true,
      openBrowser: async (url) => {
        opened.push(url);
        throw new Error("spawn xdg-open ENOENT");
      },
    });
    try {
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatch(new RegExp(`^${view.url}\\?login=[\\w-]{32}$`));
      expect(opened[0]).not.toContain(token);
      expect(view.stderr.read()).toContain(
        "Warning: could not open a browser (spawn xdg-open ENOENT)",
      );
      expect(view.stderr.read()).not.toContain(token);
      // The code logs the browser in once: the token's cookie, and the address without it.
      const first = await fetch(opened[0] as string, { redirect: "manual" });
      expect(first.status).toBe(303);
      expect(first.headers.get("location")).toBe("/");
      const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      expect(cookie).toContain(encodeURIComponent(token));
      expect((await fetch(`${view.url}api/runs`, { headers: { cookie } })).status).toBe(200);
      expect((await fetch(opened[0] as string, { redirect: "manual" })).status).toBe(401);
      expect((await fetch(`${view.url}api/runs?token=${token}`)).status).toBe(200);
    } finally {
      expect(await view.stop()).toBe(0);
    }
  });
});

describe("verdict view: where the token comes from", () => {
  const token = "tok-0123456789abcdef0123";

  /** Whether the dashboard at `url` serves `/api/runs` to `presented`, and not without it. */
  async function requires(url: string, presented: string): Promise<boolean> {
    const without = await fetch(`${url}api/runs`);
    const withIt = await fetch(`${url}api/runs`, {
      headers: { authorization: `Bearer ${presented}` },
    });
    return without.status === 401 && withIt.status === 200;
  }

  it("reads VERDICT_VIEW_TOKEN, which no other user can read in the process list", async () => {
    const view = await startView({
      cwd: await project(true),
      env: { VERDICT_VIEW_TOKEN: token },
    });
    try {
      expect(await requires(view.url, token)).toBe(true);
      expect(view.stdout.read() + view.stderr.read()).not.toContain(token);
      expect(view.stderr.read()).not.toContain("Warning");
    } finally {
      await view.stop();
    }
  });

  it("reads --token-file (trimmed, relative to the project) and warns when others may read it", async () => {
    const cwd = await project(true);
    writeFileSync(path.join(cwd, "view-token"), `${token}\n`, { mode: 0o600 });
    chmodSync(path.join(cwd, "view-token"), 0o600);
    const view = await startView({
      cwd,
      tokenFile: "view-token",
      env: { VERDICT_VIEW_TOKEN: "x".repeat(20) },
    });
    try {
      expect(await requires(view.url, token)).toBe(true);
      expect(view.stderr.read()).not.toContain("Warning");
    } finally {
      await view.stop();
    }
    chmodSync(path.join(cwd, "view-token"), 0o644);
    const shared = await startView({ cwd, tokenFile: "view-token" });
    try {
      expect(shared.stderr.read()).toMatch(/can be read by other users \(mode 644\): chmod 600 it/);
      expect(shared.stderr.read()).not.toContain(token);
    } finally {
      await shared.stop();
    }
  });

  it("warns that --token is visible to other users, pointing to the variable and the file", async () => {
    const view = await startView({ cwd: await project(true), token });
    try {
      expect(view.stderr.read()).toContain(
        "Warning: --token can be read by every user of this machine in the process list: set VERDICT_VIEW_TOKEN or use --token-file <path> instead.",
      );
    } finally {
      await view.stop();
    }
  });

  it("refuses both options, a missing or empty file and a bad token, naming the source only", async () => {
    const cwd = await project(true);
    writeFileSync(path.join(cwd, "empty"), "\n");
    writeFileSync(path.join(cwd, "short"), "not-long\n");
    const cases: Array<[Partial<Parameters<typeof runView>[0]>, RegExp]> = [
      [{ token, tokenFile: "empty" }, /takes --token or --token-file, not both/],
      [{ tokenFile: "missing" }, /--token-file missing: cannot read .*missing \(ENOENT\)/],
      [{ tokenFile: "empty" }, /--token-file empty: .*empty is empty: write the token into it/],
      [{ tokenFile: "short" }, /The token of --token-file short: a token takes at least 16/],
      [{ env: { VERDICT_VIEW_TOKEN: "bad token" } }, /The token of VERDICT_VIEW_TOKEN: a token/],
    ];
    for (const [options, message] of cases) {
      const error = await runView({ cwd, env: {}, port: 0, ...options }).catch(
        (caught: unknown) => caught,
      );
      expect(error, String(message)).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain("not-long");
    }
  });

  it("documents the file and the variable in verdict view --help", () => {
    const program = new Command();
    defineViewCommand(program, { cwd: ".", env: {}, setExitCode: () => {} });
    const view = program.commands.find((command) => command.name() === "view");
    let help = view?.helpInformation() ?? "";
    view?.configureOutput({
      writeOut: (text) => {
        help += text;
      },
    });
    view?.outputHelp();
    expect(help).toContain("--token-file <path>");
    expect(help).toContain("VERDICT_VIEW_TOKEN");
    expect(help).toMatch(/process list/);
  });
});
