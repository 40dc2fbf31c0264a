// Vitest globalSetup of the e2e project: the dashboard's browser tests need the built app.
import { ensureViewAppBuilt } from "../fixtures/view-app-build.ts";

export default async function setup(): Promise<void> {
  await ensureViewAppBuilt();
}
