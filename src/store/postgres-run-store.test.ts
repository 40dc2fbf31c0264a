import { describe } from "vitest";
import {
  createPostgresTestStore,
  postgresMissing,
  postgresUrl,
} from "../../test/fixtures/postgres-test-store.ts";
import { describeRunStoreContract } from "./run-store-contract.ts";

describe.skipIf(postgresUrl === null)(`PostgresRunStore ${postgresMissing}`, () => {
  describeRunStoreContract({
    name: "PostgresRunStore",
    create: () => ({ store: createPostgresTestStore() }),
  });
});
