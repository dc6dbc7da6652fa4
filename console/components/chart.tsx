/** A time-series chart (uPlot on a canvas) with a text summary beside it for screen readers. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

/** One line of the chart. */
export interface Series {
  label: string;
  values: (number | null)[];
  color: string;
}

const COLORS = ['#1f6feb', '#cf222e', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7a8a', '#57606a'];

/** A colour for the n-th series. */
export function colorOf(n: number): string {
  return COLORS[n % COLORS.length]!;
}

/** Draws `series` over `times` (unix seconds). */
export function TimeChart(props: { title: string; times: number[]; series: Series[]; height?: number; summary: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = Math.max(320, el.clientWidth || 640);
    const plot = new uPlot(
      {
        width,
        height: props.height ?? 220,
        series: [{}, ...props.series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: props.times.length < 60 } }))],
        axes: [{}, { size: 60 }],
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
      },
      [props.times, ...props.series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    return () => plot.destroy();
  }, [props.times, props.series]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <p class="sr-only">{props.summary}</p>
    </figure>
  );
}
