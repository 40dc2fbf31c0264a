// Fault injection: judged text that writes the markers prompts quote data between (`</text>`
// then instructions) never reaches a prompt as a marker. Seeded (the bench uses the same
// generator), over every prompt of the built-in metrics, with and without images.
import { describe, expect, it } from "vitest";
import { auditPrompt, generateMarkerAttacks, METRIC_PROMPTS } from "../fixtures/marker-attacks.ts";

describe("judged text that forges prompt markers", () => {
  const attacks = generateMarkerAttacks({ seed: 19, count: 300 });

  it.each(METRIC_PROMPTS)("$name: stays data, and reads back as the text judged", ({ render }) => {
    const wrong: string[] = [];
    for (const attack of attacks) {
      const { forged, readsBack } = auditPrompt(render, attack);
      if (forged !== 0 || !readsBack) wrong.push(`${JSON.stringify(attack)}: ${forged} forged`);
    }
    expect(wrong).toEqual([]);
  });
});
