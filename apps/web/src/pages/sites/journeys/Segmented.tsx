/** A row of pressed/unpressed buttons choosing one of a few values (the dashboard's lane switcher look). */
export function Segmented<T extends string>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: readonly { key: T; label: string }[];
  value: T;
  onChange: (value: T) => void;
}) {
  return (
    <fieldset className="dash-segmented" aria-label={label}>
      <legend className="site-visually-hidden">{label}</legend>
      {options.map((o) => (
        <button
          key={o.key}
          type="button"
          className="dash-segment"
          aria-pressed={value === o.key}
          onClick={() => value !== o.key && onChange(o.key)}
        >
          {o.label}
        </button>
      ))}
    </fieldset>
  );
}
