import { useEffect, useRef, useState } from 'react';

/** Colours per variant or arm, in order (control first). */
export const PALETTE = ['#4a5568', '#2b6cb0', '#c05621', '#2f855a', '#6b46c1', '#b83280'];

/**
 * A uPlot time chart, loaded on demand (uplotChunk): the frame every chart of the experiment pages
 * shares (title, width within the page, days and hours in UTC as the API counts them, a message if
 * the chart cannot load); `options` (series, scales) and `data` are the caller's, memoised.
 */
export function UPlotChart({ title, height, options, data }: { title: string; height: number; options: Record<string, unknown>; data: unknown[] }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let plot: { destroy(): void } | undefined;
    let cancelled = false;
    void import('./uplotChunk')
      .then(({ default: UPlot }) => {
        if (cancelled || box.current === null) return;
        plot = new UPlot(
          {
            title,
            width: Math.max(320, Math.min(900, box.current.clientWidth || 720)),
            height,
            axes: [{}, {}],
            tzDate: (ts: number) => UPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
            ...options,
          } as never,
          data as never,
          box.current,
        );
      })
      .catch((error: Error) => setFailed(error.message));
    return () => {
      cancelled = true;
      plot?.destroy();
    };
  }, [title, height, options, data]);
  return (
    <>
      <div ref={box} className="chart" role="img" aria-label={title} />
      {failed !== null && <p className="error">The chart could not load: {failed}</p>}
    </>
  );
}
