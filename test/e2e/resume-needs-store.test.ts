// A resume whose default SQLite store cannot be opened stops before any judge call, for
// evaluate() in a script and for `verdict test run --resume`, whatever is wrong with the store.
// Under root, whom file permissions do not stop, the read-only cases run the program as an
// unprivileged user (`nobody`), so that they are real there too.

import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  makeResumeProject,
  resumeOnUnopenableStore,
} from "../fixtures/resume-on-unopenable-store.ts";
import { removeUnopenableStore, UNOPENABLE_STORES } from "../fixtures/unopenable-stores.ts";

let project: string;
const homes: string[] = [];

describe.concurrent("a resume whose store cannot be opened", () => {
  beforeAll(() => {
    project = makeResumeProject();
  });
  afterAll(() => {
    for (const home of homes.splice(0)) removeUnopenableStore(home);
    if (project) rmSync(project, { recursive: true, force: true });
  });

  for (const kind of UNOPENABLE_STORES) {
    it(`evaluate({ resume: true }): a ${kind} stops it before any judge call`, async ({
      expect,
    }) => {
      const run = await resumeOnUnopenableStore({ project, kind, via: "evaluate" });
      homes.push(run.home);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain("StoreError");
      expect(run.stderr).toContain(join(run.home, "verdict.db"));
      expect(run.stderr).toContain(
        "A resumed run reads its finished cases from this store and cannot go on without it",
      );
      expect(run.stdout).not.toContain("completed");
      expect(run.judgeRequests).toBe(0);
    });

    it(`verdict test run --resume: a ${kind} exits 2 before any judge call`, async ({ expect }) => {
      const run = await resumeOnUnopenableStore({ project, kind, via: "test run" });
      homes.push(run.home);
      expect(run.code).toBe(2);
      const file = join(run.home, "verdict.db").replaceAll(/[./-]/g, "\\$&");
      expect(run.stderr).toMatch(
        new RegExp(
          `^Could not open the verdict store ${file}: .*A resumed run reads its finished cases from this store .*nothing was run\\.\\n$`,
        ),
      );
      expect(run.stdout).not.toMatch(/Status:|Test cases:/);
      expect(run.judgeRequests).toBe(0);
    });
  }
});
