/** Whether to show the previous period (or the chosen earlier range): changes on the cards and a dashed line in the chart. */
export function CompareToggle({
  value,
  custom,
  onChange,
}: {
  value: boolean;
  custom: boolean;
  onChange: (compare: boolean) => void;
}) {
  return (
    <label className="dash-compare">
      <input type="checkbox" name="compare" checked={value} onChange={(e) => onChange(e.target.checked)} />
      {custom ? 'Compare with the chosen range' : 'Compare with the previous period'}
    </label>
  );
}
