import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { calibrationReport } from "../../test/fixtures/calibration.ts";
import type { CalibrationReport } from "./calibration-report.ts";
import { calibrationReportSchema } from "./calibration-schema.ts";

describe("the calibration report schema", () => {
  it("parses to exactly the CalibrationReport type", () => {
    expectTypeOf<z.output<typeof calibrationReportSchema>>().toEqualTypeOf<CalibrationReport>();
  });

  it("reads a report back unchanged and names what is wrong with a broken one", () => {
    const report = calibrationReport();
    expect(calibrationReportSchema.parse(JSON.parse(JSON.stringify(report)))).toEqual(report);
    const broken = { ...report, kappaCi: [0.5] };
    expect(calibrationReportSchema.safeParse(broken).error?.issues[0]?.path).toEqual(["kappaCi"]);
  });
});
