/**
 * Vitest's `createVitest`, loaded once verdict has decided on colours; or, when Vitest cannot
 * be loaded, the usage error that says so.
 */
export async function loadVitest(
  env: NodeJS.ProcessEnv,
): Promise<typeof import("vitest/node").createVitest | string> {
  try {
    // Vitest colours its output (tinyrainbow) whenever TERM is not "dumb", even into a pipe or
    // a CI log. Off a terminal, and with NO_COLOR, verdict prints none (unless FORCE_COLOR asks
    // for them): set before Vitest is loaded, which decides once.
    if (!wantsColour(env)) process.env.NO_COLOR = "1";
    const { createVitest } = await import("vitest/node");
    return createVitest;
  } catch (error) {
    return `verdict test run needs Vitest 5 in this project: npm install --save-dev vitest (${(error as Error).message}).`;
  }
}

/** Colours only on a terminal (stdout and stderr), never with NO_COLOR; FORCE_COLOR forces them. */
function wantsColour(env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return process.stdout.isTTY === true && process.stderr.isTTY === true;
}
