/** What every command's action needs: where it runs, its environment, where its exit code goes. */
export interface CommandContext {
  /** The folder verdict was started in. */
  cwd: string;
  /** The environment, with the .env files loaded into it before an action runs. */
  env: NodeJS.ProcessEnv;
  /** Records the exit code of the command that ran. */
  setExitCode: (code: number) => void;
}
