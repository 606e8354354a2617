import { currentWorkspaceId } from '../../../workspace.ts';

/** What became of one file's upload: the problem's title when the API refused it. */
export type UploadOutcome = { ok: true; bytes: number } | { ok: false; title: string };

/**
 * Sends one file of an import as the raw body of `PUT /v1/sites/{id}/imports/{importId}/files/{name}`
 * (not a tRPC call: the API stores the body as it streams). XMLHttpRequest rather than fetch: only it
 * reports upload progress. The session cookie rides along (same origin), as on every dashboard call.
 */
export function uploadFile(
  siteId: string,
  importId: string,
  file: File,
  onProgress: (sent: number, total: number) => void,
): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    const path = [siteId, importId, file.name].map(encodeURIComponent);
    xhr.open('PUT', `/v1/sites/${path[0]}/imports/${path[1]}/files/${path[2]}`);
    xhr.setRequestHeader('Content-Type', 'text/csv');
    const ws = currentWorkspaceId();
    if (ws) xhr.setRequestHeader('X-Workspace', ws);
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      const body = readJson(xhr.responseText);
      if (xhr.status >= 200 && xhr.status < 300) resolve({ ok: true, bytes: Number(body?.bytes ?? file.size) });
      else resolve({ ok: false, title: String(body?.title ?? `The upload was refused (${xhr.status})`) });
    };
    xhr.onerror = () => resolve({ ok: false, title: 'The upload broke off: check your connection and send the file again' });
    xhr.send(file);
  });
}

function readJson(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}
