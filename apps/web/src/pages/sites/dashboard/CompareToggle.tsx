/** Whether to show the previous period: changes on the cards and a dashed line in the chart. */
export function CompareToggle({ value, onChange }: { value: boolean; onChange: (compare: boolean) => void }) {
  return (
    <label className="dash-compare">
      <input type="checkbox" name="compare" checked={value} onChange={(e) => onChange(e.target.checked)} />
      Compare with the previous period
    </label>
  );
}
