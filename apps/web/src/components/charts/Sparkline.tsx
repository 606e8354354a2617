/** A small line of people per day (oldest first), with its figures as the accessible name. */
export function Sparkline({ days, values, label }: { days: string[]; values: number[]; label: string }) {
  const width = 96;
  const height = 24;
  const most = Math.max(1, ...values);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - 2 - (v / most) * (height - 4)).toFixed(1)}`)
    .join(' ');
  const text = `${label}: ${values.map((v, i) => `${days[i] ?? ''} ${v}`).join(', ')}`;
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={text}>
      <title>{text}</title>
      <polyline points={points} fill="none" />
    </svg>
  );
}
