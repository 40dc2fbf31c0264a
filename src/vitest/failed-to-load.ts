import type { TestModule } from "vitest/node";

/**
 * Whether a test file failed to load (a syntax or import error): it has errors and no test was
 * collected from it, so nothing of it ran.
 */
export function failedToLoad(testModule: TestModule): boolean {
  return testModule.errors().length > 0 && testModule.children.allTests().next().done === true;
}
