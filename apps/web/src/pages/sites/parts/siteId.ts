/** The site id of `/sites/<id>` and of the pages under it (`/sites/<id>/dashboard`). */
export function siteIdOf(path: string): string {
  const segment = path.slice('/sites/'.length).split('/')[0] ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A malformed id is as unknown as a deleted site. */
export const isMissingSite = (p: { status: number; field?: string } | null) =>
  p?.status === 404 || (p?.status === 400 && p.field === 'id');
