import { toDataURL } from 'qrcode';
import { useEffect, useState } from 'react';

/** A QR code of `value` (an otpauth:// URI) as an image an authenticator app can scan. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    toDataURL(value, { margin: 1, width: 200, errorCorrectionLevel: 'M' })
      .then((url) => live && setSrc(url))
      .catch(() => live && setSrc(null));
    return () => {
      live = false;
    };
  }, [value]);
  return src ? (
    <img className="qr" src={src} width={200} height={200} alt={label} />
  ) : (
    <div className="qr qr-placeholder" role="img" aria-label={label} />
  );
}
