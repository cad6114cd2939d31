import { periodLabel, type Period } from './periods';

/** A row of the calls report (decisions.md §6b), as far as the e-mail needs it. */
export interface CallRow {
  id: number;
  uniqueId: string;
  start: string;
  answer: string | null;
  end: string;
  direction: string;
  source: string;
  destination: string;
  callerName: string;
  extension: number | string | null;
  queueId: number | null;
  duration: number;
  billsec: number;
  disposition: string;
}

/** An e-mail of a run; its attachment (every row, CSV or XLSX) is made by the one spreadsheet writer (src/sheets). */
export interface ReportEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ROWS = 50;

export interface ReportInput {
  filterName: string;
  description: string | null;
  tenantName: string;
  timezone: string;
  period: Period;
  rows: readonly CallRow[];
}

/** The e-mail of one run of the calls report: a readable HTML summary and its plain-text twin (every row is attached). */
export function renderReport(r: ReportInput): ReportEmail {
  const label = periodLabel(r.period);
  const answered = r.rows.filter((x) => x.disposition === 'ANSWERED');
  const talk = answered.reduce((s, x) => s + x.billsec, 0);
  const count = (key: 'direction' | 'disposition') => {
    const m = new Map<string, number>();
    for (const x of r.rows) m.set(x[key], (m.get(x[key]) ?? 0) + 1);
    return [...m.entries()].sort((a, b) => b[1] - a[1]);
  };
  const summary: Array<[string, string]> = [
    ['Calls', String(r.rows.length)],
    ['Answered', String(answered.length)],
    ['Talk time (answered)', duration(talk)],
    ...count('direction').map(([k, n]): [string, string] => [`Direction ${k}`, String(n)]),
    ...count('disposition').map(([k, n]): [string, string] => [`Disposition ${k}`, String(n)]),
  ];
  const subject = `TARS report "${r.filterName}": ${label}`;
  const periodText = `${r.period.startDate} to ${r.period.endDate} (${r.timezone})`;
  const shown = r.rows.slice(0, HTML_ROWS);
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<h2>${esc(r.filterName)}</h2>
${r.description ? `<p>${esc(r.description)}</p>` : ''}
<p>${esc(r.tenantName)} &middot; ${esc(periodText)}</p>
<table cellpadding="4" style="border-collapse:collapse">${summary.map(([k, v]) => `<tr><th align="left">${esc(k)}</th><td>${esc(v)}</td></tr>`).join('')}</table>
<h3>Calls${r.rows.length > HTML_ROWS ? ` (first ${HTML_ROWS} of ${r.rows.length}; all in the attachment)` : ''}</h3>
${
  shown.length === 0
    ? '<p>No calls in this period.</p>'
    : `<table border="1" cellpadding="4" style="border-collapse:collapse"><tr>${['Start (UTC)', 'Direction', 'From', 'To', 'Extension', 'Disposition', 'Talk'].map((h) => `<th>${h}</th>`).join('')}</tr>${shown
        .map(
          (x) =>
            `<tr>${[x.start, x.direction, x.source, x.destination, x.extension ?? '', x.disposition, duration(x.billsec)].map((v) => `<td>${esc(String(v))}</td>`).join('')}</tr>`,
        )
        .join('')}</table>`
}
</body></html>`;
  const text = [
    `${r.filterName}`,
    r.description ?? '',
    `${r.tenantName}, ${periodText}`,
    '',
    ...summary.map(([k, v]) => `${k}: ${v}`),
    '',
    'Every call is in the attached file.',
  ]
    .filter((l, i) => l !== '' || i > 1)
    .join('\n');
  return { subject, text, html };
}

export interface QueueReportInput {
  filterName: string;
  description: string | null;
  tenantName: string;
  timezone: string;
  period: Period;
  /** The report's title (Queue statistics, Lost calls …) and how many rows it has. */
  title: string;
  rows: number;
  attachment: string;
}

/** The e-mail of one run of a queue report (reporting.md R24): what it is, for when, and the attachment that holds it. */
export function renderQueueReport(r: QueueReportInput): ReportEmail {
  const subject = `TARS report "${r.filterName}": ${periodLabel(r.period)}`;
  const periodText = `${r.period.startDate} to ${r.period.endDate} (${r.timezone})`;
  const lines = [`${r.title}: ${r.rows} ${r.rows === 1 ? 'row' : 'rows'}`, `Attached: ${r.attachment}`];
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<h2>${esc(r.filterName)}</h2>
${r.description ? `<p>${esc(r.description)}</p>` : ''}
<p>${esc(r.tenantName)} &middot; ${esc(periodText)}</p>
${lines.map((l) => `<p>${esc(l)}</p>`).join('\n')}
</body></html>`;
  const text = [r.filterName, r.description ?? '', `${r.tenantName}, ${periodText}`, '', ...lines]
    .filter((l, i) => l !== '' || i > 1)
    .join('\n');
  return { subject, text, html };
}

/** The attachment's name: the filter's name and the period's first day. */
export const attachmentName = (filterName: string, period: Period, format: string): string =>
  `${slug(filterName)}-${period.startDate}.${format}`;

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'report'
  );
}
