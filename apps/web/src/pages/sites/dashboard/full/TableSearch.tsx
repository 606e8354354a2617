import { type FormEvent, useId } from 'react';

/** A search box for the table's values: sent with Enter or the button; Clear shows every value again. */
export function TableSearch({ label, value, onSearch }: { label: string; value: string; onSearch: (q: string) => void }) {
  const id = useId();
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    onSearch(String(new FormData(e.currentTarget).get('q') ?? '').trim());
  };
  return (
    <form name="tableSearch" className="dash-full-search" onSubmit={submit}>
      <label htmlFor={id}>{label}</label>
      <input id={id} name="q" type="search" defaultValue={value} maxLength={200} key={value} />
      <button type="submit" className="button button-secondary button-small">
        Search
      </button>
      {value && (
        <button type="button" className="button button-link button-small" onClick={() => onSearch('')}>
          Clear
        </button>
      )}
    </form>
  );
}
