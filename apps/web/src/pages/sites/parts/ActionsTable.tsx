import type { ReactNode } from 'react';

/**
 * A card's list as a table (goals, experiments, shared links, e-mail reports): its named columns, then
 * a last column of each row's buttons, headed for screen readers only. `children` are the rows.
 */
export function ActionsTable({ label, columns, children }: { label: string; columns: string[]; children: ReactNode }) {
  return (
    <div className="site-table-wrap">
      <table className="site-table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
            <th scope="col">
              <span className="site-visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
