import { useLayoutEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/**
 * A chart of figures by period, drawn by uPlot (canvas, about 50 kB: it draws a year of days in a few
 * milliseconds, which the reports' speed target needs, and it is kept up by its author since 2019). The x axis is
 * the periods' own labels (days or hours of the tenant's zone, as the API named them), never the browser's clock.
 * A chart is never the only way to read a figure: every report shows the same figures in a table beside it, so
 * the drawing is hidden from screen readers and its caption (`label`) says where the table is.
 */
export interface ChartSeries {
  readonly label: string;
  /** null: no figure for the period (a gap in a line). */
  readonly values: readonly (number | null)[];
  /** Bars (counts of a period) or a line with points. */
  readonly kind: 'bar' | 'line';
  /** 1 … 4: the colour of --series-N of the console's styles (light and dark). */
  readonly colour: 1 | 2 | 3 | 4;
}

export function Chart(props: { label: string; periods: readonly string[]; series: readonly ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const colour = (name: string) => css.getPropertyValue(name).trim() || 'currentColor';
    const labels = props.periods;
    const step = Math.max(1, Math.ceil(labels.length / Math.max(1, Math.floor(el.clientWidth / 90))));
    const axis = {
      stroke: colour('--fg'),
      grid: { stroke: colour('--border'), width: 1 },
      ticks: { stroke: colour('--border'), width: 1 },
    };
    const chart = new uPlot(
      {
        width: Math.max(200, el.clientWidth),
        height: props.height ?? 260,
        scales: { x: { time: false, range: [-0.5, Math.max(0.5, labels.length - 0.5)] } },
        axes: [
          {
            ...axis,
            splits: () => labels.map((_, i) => i).filter((i) => i % step === 0),
            values: (_u: uPlot, ticks: number[]) => ticks.map((t) => labels[t] ?? ''),
          },
          { ...axis, values: (_u: uPlot, ticks: number[]) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
        ],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        series: [
          { label: 'Period', value: (_u: uPlot, i: number | null) => (i === null ? '' : (labels[i] ?? '')) },
          ...props.series.map((s) => ({
            label: s.label,
            stroke: colour(`--series-${s.colour}`),
            width: s.kind === 'bar' ? 0 : 2,
            fill: s.kind === 'bar' ? colour(`--series-${s.colour}`) : undefined,
            paths: s.kind === 'bar' ? uPlot.paths.bars?.({ size: [0.7, 60] }) : undefined,
            points: { show: s.kind === 'line' && labels.length <= 62 },
          })),
        ],
      },
      [labels.map((_, i) => i), ...props.series.map((s) => [...s.values])],
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(200, el.clientWidth), height: props.height ?? 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.periods, props.series]);
  return (
    <figure class="chart">
      <figcaption>{props.label}</figcaption>
      <div ref={box} aria-hidden="true" />
    </figure>
  );
}
