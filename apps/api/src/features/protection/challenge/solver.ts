/**
 * The browser's side of the proof of work, as plain ES5 source for an inline script (no build step, no
 * file to fetch, nothing a strict Content-Security-Policy would have to allow besides the page's nonce).
 *
 * `usWork(challenge, bits)` returns `tryRange(from, count)`: the first nonce in the range whose
 * SHA-256(challenge + 8 hex digits) starts with `bits` zero bits, or -1. Web Crypto's digest would cost
 * a promise per try, so SHA-256 is written out here for the one 40-byte block this needs: the first
 * eight words (the challenge) are hashed once into a mid-state, and each try fills in just the two
 * words of the nonce. work.ts checks the answer with Node's own SHA-256.
 */
export const SOLVER_SOURCE = `function usWork(c, bits) {
  var K = new Int32Array([0x428a2f98,0x71374491,0xb5c0fbcf,0xe9b5dba5,0x3956c25b,0x59f111f1,0x923f82a4,0xab1c5ed5,
    0xd807aa98,0x12835b01,0x243185be,0x550c7dc3,0x72be5d74,0x80deb1fe,0x9bdc06a7,0xc19bf174,0xe49b69c1,0xefbe4786,
    0x0fc19dc6,0x240ca1cc,0x2de92c6f,0x4a7484aa,0x5cb0a9dc,0x76f988da,0x983e5152,0xa831c66d,0xb00327c8,0xbf597fc7,
    0xc6e00bf3,0xd5a79147,0x06ca6351,0x14292967,0x27b70a85,0x2e1b2138,0x4d2c6dfc,0x53380d13,0x650a7354,0x766a0abb,
    0x81c2c92e,0x92722c85,0xa2bfe8a1,0xa81a664b,0xc24b8b70,0xc76c51a3,0xd192e819,0xd6990624,0xf40e3585,0x106aa070,
    0x19a4c116,0x1e376c08,0x2748774c,0x34b0bcb5,0x391c0cb3,0x4ed8aa4a,0x5b9cca4f,0x682e6ff3,0x748f82ee,0x78a5636f,
    0x84c87814,0x8cc70208,0x90befffa,0xa4506ceb,0xbef9a3f7,0xc67178f2]);
  var IV = [0x6a09e667,0xbb67ae85,0x3c6ef372,0xa54ff53a,0x510e527f,0x9b05688c,0x1f83d9ab,0x5be0cd19];
  var W = new Int32Array(64), i, t1, t2;
  for (i = 0; i < 8; i++) {
    W[i] = (c.charCodeAt(4 * i) << 24) | (c.charCodeAt(4 * i + 1) << 16) | (c.charCodeAt(4 * i + 2) << 8) | c.charCodeAt(4 * i + 3);
  }
  W[10] = 0x80000000 | 0; W[11] = 0; W[12] = 0; W[13] = 0; W[14] = 0; W[15] = 320;
  var HEX = new Int32Array(65536), hx = '0123456789abcdef';
  for (i = 0; i < 65536; i++) {
    HEX[i] = (hx.charCodeAt(i >>> 12) << 24) | (hx.charCodeAt((i >>> 8) & 15) << 16) | (hx.charCodeAt((i >>> 4) & 15) << 8) | hx.charCodeAt(i & 15);
  }
  // Rounds 0-7 read only the challenge's words: the same for every try.
  var a = IV[0] | 0, b = IV[1] | 0, cc = IV[2] | 0, d = IV[3] | 0, e = IV[4] | 0, f = IV[5] | 0, g = IV[6] | 0, h = IV[7] | 0;
  for (i = 0; i < 8; i++) {
    t1 = (h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))) + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
    t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))) + ((a & b) ^ (a & cc) ^ (b & cc))) | 0;
    h = g; g = f; f = e; e = (d + t1) | 0; d = cc; cc = b; b = a; a = (t1 + t2) | 0;
  }
  var m0 = a, m1 = b, m2 = cc, m3 = d, m4 = e, m5 = f, m6 = g, m7 = h, shift = 32 - bits;
  return function tryRange(from, count) {
    var end = from + count, n, x, y, A, B, C, D, E, F, G, H, T1, T2, j;
    for (n = from; n < end; n++) {
      W[8] = HEX[n >>> 16]; W[9] = HEX[n & 0xffff];
      for (j = 16; j < 64; j++) {
        x = W[j - 15]; y = W[j - 2];
        W[j] = (W[j - 16] + (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + W[j - 7] +
          (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) | 0;
      }
      A = m0; B = m1; C = m2; D = m3; E = m4; F = m5; G = m6; H = m7;
      for (j = 8; j < 64; j++) {
        T1 = (H + (((E >>> 6) | (E << 26)) ^ ((E >>> 11) | (E << 21)) ^ ((E >>> 25) | (E << 7))) + ((E & F) ^ (~E & G)) + K[j] + W[j]) | 0;
        T2 = ((((A >>> 2) | (A << 30)) ^ ((A >>> 13) | (A << 19)) ^ ((A >>> 22) | (A << 10))) + ((A & B) ^ (A & C) ^ (B & C))) | 0;
        H = G; G = F; F = E; E = (D + T1) | 0; D = C; C = B; B = A; A = (T1 + T2) | 0;
      }
      if (((A + IV[0]) | 0) >>> shift === 0) return n;
    }
    return -1;
  };
}`;
