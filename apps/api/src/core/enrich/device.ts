import { keptAnswers } from '../cache/kept-answers.ts';
import { userAgentHead } from './software.ts';

export type DeviceClass = 'desktop' | 'mobile' | 'tablet' | 'bot' | 'other';

// A few patterns cover what the dashboard's device table needs; a full user-agent parser is not worth
// its weight (or, for the common one, its AGPL licence) here. Order matters: tablets before phones.
const OTHER = /SmartTV|SMART-TV|Tizen|Web0S|webOS|HbbTV|PlayStation|Xbox|Nintendo|CrKey|AppleTV|Roku|Oculus|Quest/i;
const TABLET = /iPad|Tablet|PlayBook|Silk|Kindle/i;
const MOBILE =
  /iPhone|iPod|Android.*Mobile|Windows Phone|IEMobile|BlackBerry|BB10|Opera Mini|KaiOS|Mobile Safari|HarmonyOS.*Mobile/i;
const DESKTOP = /Windows NT|Macintosh|Mac OS X|X11|Linux x86_64|CrOS|FreeBSD|OpenBSD/i;

/** What a user agent tells (null: nothing, the width decides), kept for the strings seen lately. */
const userAgentClass = keptAnswers(classOfUserAgent, { max: 5_000, longest: 512 });

/**
 * Device class from the user agent, with the window width as a fallback when the string does not
 * tell. Pass `isBot` when the caller already classified the string as a bot (see bots.ts). iPadOS
 * Safari presents itself as a Mac; a touch-width window tells them apart.
 */
export function deviceClassOf(ua: string | null | undefined, width?: number | null, isBot = false): DeviceClass {
  if (isBot) return 'bot';
  return userAgentClass(userAgentHead(ua)) ?? widthClass(width) ?? 'other';
}

function classOfUserAgent(s: string): DeviceClass | null {
  if (!s) return null;
  if (OTHER.test(s)) return 'other';
  // Android tablets are Android without "Mobile".
  if (TABLET.test(s) || (/Android/i.test(s) && !/Mobile/i.test(s))) return 'tablet';
  if (MOBILE.test(s)) return 'mobile';
  if (DESKTOP.test(s)) return 'desktop';
  return null;
}

function widthClass(width: number | null | undefined): DeviceClass | null {
  if (typeof width !== 'number' || !Number.isFinite(width) || width <= 0) return null;
  if (width < 600) return 'mobile';
  if (width < 1024) return 'tablet';
  return 'desktop';
}
