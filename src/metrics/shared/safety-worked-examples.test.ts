// The safety metrics' extraction and verdict prompts each carry a worked example whose answer
// is exactly what the step's own schema accepts, with one flagged and one clean verdict (a
// reason for "yes", null for "no"), and whose extracted items are sentences of the example text.
import { describe, expect, it } from "vitest";
import { workedExample } from "../../../test/fixtures/worked-example.ts";
import { MisuseTemplate } from "../misuse/prompts.ts";
import { NonAdviceTemplate } from "../non-advice/prompts.ts";
import { PIILeakageTemplate } from "../pii-leakage/prompts.ts";
import { RoleViolationTemplate } from "../role-violation/prompts.ts";
import { itemsSchema } from "./item-verdict-metric.ts";
import { verdictsSchema } from "./verdicts.ts";

const data = { multimodal: false, actualOutput: "X" } as const;
const STEPS = [
  {
    metric: "PII Leakage",
    key: "extractedPii",
    extract: PIILeakageTemplate.extractPii(data),
    verdicts: PIILeakageTemplate.generateVerdicts({ ...data, extractedPii: ["X"] }),
  },
  {
    metric: "Role Violation",
    key: "roleViolations",
    extract: RoleViolationTemplate.detectRoleViolations({ ...data, role: "R" }),
    verdicts: RoleViolationTemplate.generateVerdicts({ ...data, role: "R", roleViolations: ["X"] }),
  },
  {
    metric: "Non-Advice",
    key: "advices",
    extract: NonAdviceTemplate.generateAdvices({ ...data, adviceTypes: ["T"] }),
    verdicts: NonAdviceTemplate.generateVerdicts({ ...data, adviceTypes: ["T"], advices: ["X"] }),
  },
  {
    metric: "Misuse",
    key: "misuses",
    extract: MisuseTemplate.generateMisuses({ ...data, domain: "D" }),
    verdicts: MisuseTemplate.generateVerdicts({ ...data, domain: "D", misuses: ["X"] }),
  },
];

describe.each(STEPS)("$metric worked examples", ({ key, extract, verdicts }) => {
  it("the extraction prompt extracts sentences of its example text, in the step's shape", () => {
    const { items: text, answer } = workedExample(extract, "Text");
    const items = itemsSchema(key).parse(answer)[key] ?? [];
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(String(text)).toContain(item);
  });

  it("the verdict prompt shows a flagged and a clean verdict, with a reason only for yes", () => {
    const { items, answer } = workedExample(verdicts, "Statements");
    const schema = verdictsSchema({
      allowed: ["yes", "no"],
      count: (items as string[]).length,
      itemName: "statement",
    });
    const parsed = schema.parse(answer).verdicts;
    expect(parsed.map((verdict) => verdict.verdict)).toEqual(["yes", "no"]);
    expect(parsed[0]?.reason).toMatch(/\w/);
    expect(parsed[1]?.reason).toBeNull();
  });
});
