import { spawn } from "node:child_process";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { ConfigError } from "../../errors/config-error.ts";
import { openStore } from "../../store/open-store.ts";
import { findAppFolder } from "../../view/server/app-files.ts";
import { createLoginCode } from "../../view/server/view-access.ts";
import { createViewServer } from "../../view/server/view-server.ts";
import { toViewStore } from "../../view/server/view-store.ts";
import type { CommandOutput } from "../command-output.ts";
import { EXIT_CODES } from "../exit-codes.ts";
import { resolveViewToken, VIEW_TOKEN_VARIABLE } from "./view-token.ts";

/** The dashboard listens on the loopback interface unless told otherwise: runs hold your outputs. */
export const VIEW_HOST = "127.0.0.1";

/** Options of {@link runView}: the arguments of `verdict view`. */
export interface ViewCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** @default 4242; 0 picks a free port */
  port?: number;
  /**
   * The interface to listen on. Anything but the loopback interface needs `token`.
   * @default "127.0.0.1"
   */
  host?: string;
  /**
   * Every request must carry it (see `createViewServer`); required off the loopback interface.
   * Also read from `tokenFile` or the `VERDICT_VIEW_TOKEN` variable of `env`.
   */
  token?: string;
  /** A file holding the token (`--token-file`), relative to `cwd`. */
  tokenFile?: string;
  /** Open the dashboard in the default browser. @default false */
  open?: boolean;
  /** How a browser is opened. @default the platform's opener (xdg-open, open, start) */
  openBrowser?: (url: string) => Promise<void>;
  stdout?: CommandOutput;
  /** @default process.stderr */
  stderr?: CommandOutput;
  /** Stops the server (Ctrl-C does too). */
  signal?: AbortSignal;
}

/** Whether a `--host` value is the loopback interface (only this machine can connect). */
export function isLoopbackAddress(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return name === "localhost" || name === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** Opens a URL in the default browser; rejects when no opener could be started. */
export function openInBrowser(url: string): Promise<void> {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', url]]
        : ["xdg-open", [url]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.once("error", reject);
    child.once("spawn", () => {
      child.unref();
      resolve();
    });
  });
}

function urlHost(host: string, port: number): string {
  if (host === "0.0.0.0" || host === "::") return `${hostname()}:${port}`;
  return host.includes(":") && !host.startsWith("[") ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * `verdict view`: serves the dashboard of the stored runs until interrupted, on 127.0.0.1 by
 * default. `--host` with another interface is refused unless a token is given (`--token`,
 * `--token-file` or `VERDICT_VIEW_TOKEN`, see `resolveViewToken`); then every request needs it (the Host check, which guards the loopback interface against DNS
 * rebinding, is left to the token there). Where there is no store yet it creates nothing: it
 * says how to record a first run and returns 2.
 * @example
 * verdict view --port 4242 --open   # then http://127.0.0.1:4242
 */
export async function runView(options: ViewCommandOptions): Promise<number> {
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const host = options.host ?? VIEW_HOST;
  const resolved = await resolveViewToken({
    token: options.token,
    tokenFile: options.tokenFile,
    env: options.env,
    cwd: options.cwd,
  });
  const token = resolved?.token ?? null;
  const loopback = isLoopbackAddress(host);
  if (!loopback && token === null) {
    throw new ConfigError(
      `verdict view --host ${host} would show your runs to anyone who can reach this machine: ` +
        `add --token-file <path> or set ${VIEW_TOKEN_VARIABLE} (or add --token <secret>; every request must then carry it), or leave out --host to stay on 127.0.0.1.`,
    );
  }
  for (const warning of resolved?.warnings ?? []) stderr.write(`${warning}\n`);
  const found = await openStore({ env: options.env, cwd: options.cwd, purpose: "read" });
  if (found.store === null) {
    stderr.write(
      `No verdict store here yet (looked for ${found.missingFile ?? found.where}): nothing to show. Record a run first with ` +
        '"verdict test run" (or evaluate() in a script), then run "verdict view" again; ' +
        "set VERDICT_HOME if your runs are stored elsewhere (or VERDICT_STORE for a team's PostgreSQL store).\n",
    );
    return EXIT_CODES.usage;
  }
  const { store, where } = found;
  const appFolder = findAppFolder();
  // --open gives the browser a code good for one visit, never the token: a browser's
  // command line is as readable by other users as ours.
  const loginCode = options.open && token !== null ? createLoginCode() : null;
  const server = createViewServer({
    store: toViewStore(store),
    env: options.env,
    token,
    loginCode,
    checkHost: loopback,
    appFolder,
    projectRoot: options.cwd,
  });
  const port = options.port ?? 4242;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  }).catch(async (error: NodeJS.ErrnoException) => {
    await store.close();
    if (error.code === "EADDRINUSE") {
      throw new ConfigError(
        `Port ${port} is in use: pass --port with another number (0 picks a free one).`,
      );
    }
    if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") {
      throw new ConfigError(
        `Cannot listen on --host ${host} (${error.code}): give an address of this machine, e.g. 127.0.0.1 or 0.0.0.0.`,
      );
    }
    throw error;
  });
  const address = server.address() as AddressInfo;
  const url = `http://${urlHost(host, address.port)}/`;
  stdout.write(
    `verdict view: ${url}${token === null ? "" : "?token=<your token>"} (runs in ${where}); Ctrl-C stops it.\n`,
  );
  if (appFolder === null) {
    stderr.write(
      "The dashboard's app is not built here (no dist/view-app): run npm run build for the pages; the JSON API under /api/ answers meanwhile.\n",
    );
  }
  if (options.open) {
    const opened = loginCode === null ? url : `${url}?login=${loginCode}`;
    await (options.openBrowser ?? openInBrowser)(opened).catch((error: unknown) => {
      stderr.write(
        `Warning: could not open a browser (${error instanceof Error ? error.message : String(error)}): open ${url} yourself.\n`,
      );
    });
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    options.signal?.addEventListener("abort", stop, { once: true });
    process.once("SIGINT", stop);
  });
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store.close();
  return EXIT_CODES.passed;
}
