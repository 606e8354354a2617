import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { toProblem } from '../../../problem.ts';
import { useCreatePublicKey } from './useCreatePublicKey.ts';

/**
 * What the install card shows for a site without a public key (it was deleted): its pages report
 * nothing until it has a new one and they carry the new snippet; one button makes the key.
 */
export function NeedsPublicKey({ siteId }: { siteId: string }) {
  const create = useCreatePublicKey(siteId);
  return (
    <div>
      <Notice tone="error">
        <strong>The snippet needs a new public key.</strong> This site's public key was deleted, so pages with the old snippet are
        not counted. Create a new key, then replace the snippet in your pages.
      </Notice>
      {create.isError && <Notice tone="error">{toProblem(create.error).title}</Notice>}
      <IfWritable>
        <div className="form-actions">
          <button
            type="button"
            className="button button-primary"
            onClick={() => create.mutate({ id: siteId, kind: 'public' })}
            disabled={create.isPending}
          >
            {create.isPending ? 'Creating…' : 'Create public key'}
          </button>
        </div>
      </IfWritable>
    </div>
  );
}
