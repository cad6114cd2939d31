import type { ComponentChildren } from 'preact';

export interface Column<R> {
  readonly key: string;
  readonly header: ComponentChildren;
  readonly cell: (row: R) => ComponentChildren;
  /** Right-aligned, tabular figures. */
  readonly numeric?: boolean;
  /** The row's header cell (what the row is about: a name). */
  readonly rowHeader?: boolean;
}

/**
 * A table with a caption and column headers, in a region that scrolls sideways on a narrow screen (focusable,
 * so a keyboard can scroll it too). A figure is always a cell of a table somewhere, never only a colour or a chart.
 */
export function Table<R>(props: {
  caption: ComponentChildren;
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R) => string | number;
  empty?: ComponentChildren;
  class?: string;
  captionHidden?: boolean;
}) {
  const { columns, rows } = props;
  return (
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
                {props.empty ?? 'Nothing to show.'}
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
  );
}
