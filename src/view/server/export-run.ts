import { renderCsvReport } from "../../report/csv-report.ts";
import { HTML_REPORT_CONTENT_SECURITY_POLICY, renderHtmlReport } from "../../report/html-report.ts";
import { renderJsonReport } from "../../report/json-report.ts";
import { renderJUnitReport } from "../../report/junit-report.ts";
import type { EvaluationResult } from "../../results/evaluation-result.ts";
import type { ShownRun } from "./view-api.ts";

/** The formats of `/api/runs/:run/export?format=`. */
export const EXPORT_FORMATS = ["html", "json", "junit", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A run exported as a file to download. */
export interface ExportedRun {
  body: string;
  contentType: string;
  /** A safe file name (ASCII letters, digits, `.`, `-`, `_`). */
  fileName: string;
  /** The HTML report keeps its own policy (inline styles, no script); `null`: the server's. */
  contentSecurityPolicy: string | null;
}

const EXTENSIONS: Record<ExportFormat, string> = {
  html: "html",
  json: "json",
  junit: "xml",
  csv: "csv",
};

function slug(text: string): string {
  return (
    text
      .normalize("NFKD")
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|[-.]+$/g, "")
      .slice(0, 60) || "run"
  );
}

/**
 * A run as one of the reports verdict writes: the self-contained HTML report, the JSON report
 * (`verdict merge` reads it back), JUnit XML, or CSV.
 */
export function exportRun(options: {
  shown: ShownRun;
  result: EvaluationResult;
  format: ExportFormat;
  /** Shown on top of the HTML report, e.g. that the run's process is gone. */
  notice: string | null;
}): ExportedRun {
  const { shown, result, format } = options;
  const { run } = shown;
  const fileName = `verdict-${slug(run.identifier ?? "run")}-${slug(run.id.slice(0, 8))}.${EXTENSIONS[format]}`;
  switch (format) {
    case "html":
      return {
        body: renderHtmlReport({ result, startedAt: run.startedAt, notice: options.notice }),
        contentType: "text/html; charset=utf-8",
        fileName,
        contentSecurityPolicy: `${HTML_REPORT_CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`,
      };
    case "json": {
      const shard = shown.row.shard;
      return {
        body: renderJsonReport({ result, ...(shard === null ? {} : { shard }) }),
        contentType: "application/json; charset=utf-8",
        fileName,
        contentSecurityPolicy: null,
      };
    }
    case "junit":
      return {
        body: renderJUnitReport({ result }),
        contentType: "application/xml; charset=utf-8",
        fileName,
        contentSecurityPolicy: null,
      };
    case "csv":
      return {
        body: renderCsvReport({ result }),
        contentType: "text/csv; charset=utf-8",
        fileName,
        contentSecurityPolicy: null,
      };
  }
}
