import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface Column<R> {
  readonly key: string;
  readonly header: ComponentChildren;
  readonly cell: (row: R) => ComponentChildren;
  /** Right-aligned, tabular figures. */
  readonly numeric?: boolean;
  /** The row's header cell (what the row is about: a name). */
  readonly rowHeader?: boolean;
}

/** Rows a table shows at once: a year of days of one queue. A longer table (a year of 20 queues) pages. */
export const TABLE_PAGE = 366;
const LATER_ROWS = 100;

/**
 * A table with a caption and column headers, in a region that scrolls sideways on a narrow screen (focusable,
 * so a keyboard can scroll it too). A figure is always a cell of a table somewhere, never only a colour or a chart.
 * More than `pageSize` rows are shown a page at a time, with buttons for the rows before and after: 7,300 rows
 * drawn at once would hold the screen for a second, and nobody reads them at once.
 */
export function Table<R>(props: {
  caption: ComponentChildren;
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string | number;
  empty?: ComponentChildren;
  class?: string;
  captionHidden?: boolean;
  pageSize?: number;
}) {
  const { columns } = props;
  const size = props.pageSize ?? TABLE_PAGE;
  const [from, setFrom] = useState(0);
  // A long table is drawn a frame after the rest of the screen, so that the chart above it shows first.
  const long = props.rows.length > LATER_ROWS;
  const [drawn, setDrawn] = useState<readonly R[] | null>(null);
  useEffect(() => {
    setFrom(0);
    if (!long) return;
    setDrawn(null);
    // After the next frame has been painted: two frames on, then a task.
    let frame = requestAnimationFrame(() => (frame = requestAnimationFrame(() => (timer = setTimeout(() => setDrawn(props.rows))))));
    let timer: ReturnType<typeof setTimeout> | undefined;
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [props.rows]);
  // A short table is drawn with its rows at once, on every change (a wallboard's agents must never flash empty).
  const ready = !long || drawn === props.rows;
  const rows = !ready ? [] : props.rows.length > size ? props.rows.slice(from, from + size) : props.rows;
  const label = typeof props.caption === 'string' ? props.caption : 'the table';
  return (
    <>
      <div
        class={`table-wrap ${props.class ?? ''}`}
        tabIndex={0}
        role="region"
        aria-label={typeof props.caption === 'string' ? props.caption : undefined}
      >
        <table>
          <caption class={props.captionHidden ? 'visually-hidden' : undefined}>{props.caption}</caption>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.key} scope="col" class={c.numeric ? 'num' : undefined}>
                  {c.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={columns.length} class="empty">
                  {ready ? (props.empty ?? 'Nothing to show.') : 'Loading the rows…'}
                </td>
              </tr>
            ) : (
              rows.map((r) => (
                <tr key={props.rowKey(r)}>
                  {columns.map((c) =>
                    c.rowHeader ? (
                      <th key={c.key} scope="row">
                        {c.cell(r)}
                      </th>
                    ) : (
                      <td key={c.key} class={c.numeric ? 'num' : undefined}>
                        {c.cell(r)}
                      </td>
                    ),
                  )}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {ready && props.rows.length > size && (
        <nav class="pager" aria-label={`Rows of ${label}`}>
          <button type="button" class="secondary" disabled={from === 0} onClick={() => setFrom(Math.max(0, from - size))}>
            Previous rows
          </button>
          <span>
            Rows {from + 1}–{from + rows.length} of {props.rows.length}
          </span>
          <button type="button" class="secondary" disabled={from + size >= props.rows.length} onClick={() => setFrom(from + size)}>
            Next rows
          </button>
        </nav>
      )}
    </>
  );
}
