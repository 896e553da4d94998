// The exact fma on 32-bit words, GLSL ES 3.00 (WebGL2) and WGSL (WebGPU): neither
// language promises a fused fma (GLSL ES 3.00 has no fma() at all; WGSL's fma() may be
// two roundings) nor denormals (either may flush them), so the interpreters keep registers
// as IEEE bit patterns and compute fmaf in integer arithmetic: unpack, the exact 48-bit
// product from 12-bit halves (no 32x32 multiply in GLSL ES 3.00), align in a 64-bit frame
// with a sticky bit, round to nearest even with subnormals, pack. Bit-exact by
// construction whatever the GPU's float unit does. Transcribed from the C model
// web/shaders/softfma_model.c, which is checked against the C library's fmaf; the browser
// test checks these shaders against the reference VM (docs/Web.md).

export const SOFTFMA_GLSL = `
uvec2 f_add64(uvec2 a, uvec2 b) { uint lo = a.x + b.x; return uvec2(lo, a.y + b.y + (lo < a.x ? 1u : 0u)); }
uvec2 f_sub64(uvec2 a, uvec2 b) { return uvec2(a.x - b.x, a.y - b.y - (a.x < b.x ? 1u : 0u)); }
bool f_lt64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
uvec2 f_shl64(uvec2 a, int n) {
  if (n == 0) return a;
  if (n < 32) return uvec2(a.x << uint(n), (a.y << uint(n)) | (a.x >> uint(32 - n)));
  if (n < 64) return uvec2(0u, a.x << uint(n - 32));
  return uvec2(0u);
}
uvec2 f_shr64(uvec2 a, int n) {
  if (n == 0) return a;
  if (n < 32) return uvec2((a.x >> uint(n)) | (a.y << uint(32 - n)), a.y >> uint(n));
  if (n < 64) return uvec2(a.y >> uint(n - 32), 0u);
  return uvec2(0u);
}
// the index of the highest set bit of x != 0: a uint below 2^24 converts to float
// exactly (on any GPU: the result is representable), and its exponent is that index
int f_msb24(uint y) { return int(floatBitsToUint(float(y)) >> 23) - 127; }
int f_msb32(uint x) { return x >= 0x1000000u ? 8 + f_msb24(x >> 8) : f_msb24(x); }
int f_msb64(uvec2 a) { return a.y != 0u ? 32 + f_msb32(a.y) : f_msb32(a.x); }
uint f_round_pack(uint s, uvec2 x, int e) {
  int m = f_msb64(x);
  int be = m + e + 127;
  if (be > 254) return (s << 31) | 0x7F800000u;
  int shift = m - 23;
  int ef = be - 1;
  if (be < 1) { shift = -149 - e; ef = 0; }
  uint q;
  if (shift <= 0) {
    q = f_shl64(x, -shift).x;
  } else if (shift >= 64) {
    q = 0u;
  } else {
    uvec2 qq = f_shr64(x, shift);
    uvec2 rem = f_sub64(x, f_shl64(qq, shift));
    uvec2 half_ = f_shl64(uvec2(1u, 0u), shift - 1);
    q = qq.x;
    if (f_lt64(half_, rem) || (rem == half_ && (q & 1u) != 0u)) q += 1u;
  }
  return (s << 31) + ((uint(ef) << 23) + q);
}
uint fmag_soft_fma(uint ua, uint ub, uint uc) {
  uint ea = (ua >> 23) & 0xFFu, eb = (ub >> 23) & 0xFFu, ec = (uc >> 23) & 0xFFu;
  uint ma = ua & 0x7FFFFFu, mb = ub & 0x7FFFFFu, mc = uc & 0x7FFFFFu;
  uint sp = (ua ^ ub) >> 31, sc = uc >> 31;
  if ((ea == 255u && ma != 0u) || (eb == 255u && mb != 0u) || (ec == 255u && mc != 0u))
    return 0x7FC00000u;
  bool za = (ua & 0x7FFFFFFFu) == 0u, zb = (ub & 0x7FFFFFFFu) == 0u;
  if ((ub & 0x7FFFFFFFu) == 0x3F800000u && (uc & 0x7FFFFFFFu) == 0u && ea != 255u)
    return za ? ((sp & sc) << 31) : (ua ^ (ub & 0x80000000u)); // +-a + +-0, exactly
  if (ea == 255u || eb == 255u) {
    if (za || zb) return 0x7FC00000u;
    if (ec == 255u && sc != sp) return 0x7FC00000u;
    return (sp << 31) | 0x7F800000u;
  }
  if (ec == 255u) return uc;
  if (za || zb) return (uc & 0x7FFFFFFFu) == 0u ? ((sp & sc) << 31) : uc;
  int xa = int(ea), xb = int(eb), xc = int(ec);
  if (ea == 0u) { int k = 23 - f_msb32(ma); ma <<= uint(k); xa = 1 - k; } else ma |= 0x800000u;
  if (eb == 0u) { int k = 23 - f_msb32(mb); mb <<= uint(k); xb = 1 - k; } else mb |= 0x800000u;
  uint a1 = ma >> 12, a0 = ma & 0xFFFu, b1 = mb >> 12, b0 = mb & 0xFFFu;
  uint mid = a1 * b0 + a0 * b1, hi = a1 * b1;
  uvec2 p = uvec2(a0 * b0, 0u);
  p = f_add64(p, uvec2(mid << 12, mid >> 20));
  p = f_add64(p, uvec2(hi << 24, hi >> 8));
  int sh = 61 - f_msb64(p);
  p = f_shl64(p, sh);
  int ep = xa + xb - 300 - sh;
  if ((uc & 0x7FFFFFFFu) == 0u) return f_round_pack(sp, p, ep);
  if (ec == 0u) { int k = 23 - f_msb32(mc); mc <<= uint(k); xc = 1 - k; } else mc |= 0x800000u;
  uvec2 c = f_shl64(uvec2(mc, 0u), 38);
  int ecx = xc - 188;
  uvec2 big = p, small_ = c;
  uint sbig = sp, ssmall = sc;
  int e = ep, d = ep - ecx;
  if (d < 0 || (d == 0 && f_lt64(p, c))) { big = c; small_ = p; sbig = sc; ssmall = sp; e = ecx; d = -d; }
  uvec2 sm = f_shr64(small_, d);
  if ((d < 64 ? f_shl64(sm, d) : uvec2(0u)) != small_) sm.x |= 1u;
  uvec2 x;
  if (sbig == ssmall) {
    x = f_add64(big, sm);
  } else {
    x = f_sub64(big, sm);
    if (x == uvec2(0u)) return 0u;
  }
  return f_round_pack(sbig, x, e);
}
`;

export const SOFTFMA_WGSL = `
fn f_add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { let lo = a.x + b.x; return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x)); }
fn f_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x)); }
fn f_lt64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn f_eq64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x == b.x && a.y == b.y; }
fn f_shl64(a: vec2<u32>, n: i32) -> vec2<u32> {
  if (n == 0) { return a; }
  if (n < 32) { return vec2<u32>(a.x << u32(n), (a.y << u32(n)) | (a.x >> u32(32 - n))); }
  if (n < 64) { return vec2<u32>(0u, a.x << u32(n - 32)); }
  return vec2<u32>(0u, 0u);
}
fn f_shr64(a: vec2<u32>, n: i32) -> vec2<u32> {
  if (n == 0) { return a; }
  if (n < 32) { return vec2<u32>((a.x >> u32(n)) | (a.y << u32(32 - n)), a.y >> u32(n)); }
  if (n < 64) { return vec2<u32>(a.y >> u32(n - 32), 0u); }
  return vec2<u32>(0u, 0u);
}
fn f_msb32(x: u32) -> i32 { return 31 - i32(countLeadingZeros(x)); }
fn f_msb64(a: vec2<u32>) -> i32 { if (a.y != 0u) { return 32 + f_msb32(a.y); } return f_msb32(a.x); }
fn f_round_pack(s: u32, x: vec2<u32>, e: i32) -> u32 {
  let m = f_msb64(x);
  let be = m + e + 127;
  if (be > 254) { return (s << 31u) | 0x7F800000u; }
  var shift = m - 23;
  var ef = be - 1;
  if (be < 1) { shift = -149 - e; ef = 0; }
  var q: u32;
  if (shift <= 0) {
    q = f_shl64(x, -shift).x;
  } else if (shift >= 64) {
    q = 0u;
  } else {
    let qq = f_shr64(x, shift);
    let rem = f_sub64(x, f_shl64(qq, shift));
    let half_ = f_shl64(vec2<u32>(1u, 0u), shift - 1);
    q = qq.x;
    if (f_lt64(half_, rem) || (f_eq64(rem, half_) && (q & 1u) != 0u)) { q = q + 1u; }
  }
  return (s << 31u) + ((u32(ef) << 23u) + q);
}
fn fmag_soft_fma(ua: u32, ub: u32, uc: u32) -> u32 {
  let ea = (ua >> 23u) & 0xFFu; let eb = (ub >> 23u) & 0xFFu; let ec = (uc >> 23u) & 0xFFu;
  var ma = ua & 0x7FFFFFu; var mb = ub & 0x7FFFFFu; var mc = uc & 0x7FFFFFu;
  let sp = (ua ^ ub) >> 31u; let sc = uc >> 31u;
  if ((ea == 255u && ma != 0u) || (eb == 255u && mb != 0u) || (ec == 255u && mc != 0u)) { return 0x7FC00000u; }
  let za = (ua & 0x7FFFFFFFu) == 0u; let zb = (ub & 0x7FFFFFFFu) == 0u;
  if (ea == 255u || eb == 255u) {
    if (za || zb) { return 0x7FC00000u; }
    if (ec == 255u && sc != sp) { return 0x7FC00000u; }
    return (sp << 31u) | 0x7F800000u;
  }
  if (ec == 255u) { return uc; }
  if (za || zb) { if ((uc & 0x7FFFFFFFu) == 0u) { return (sp & sc) << 31u; } return uc; }
  var xa = i32(ea); var xb = i32(eb); var xc = i32(ec);
  if (ea == 0u) { let k = 23 - f_msb32(ma); ma = ma << u32(k); xa = 1 - k; } else { ma = ma | 0x800000u; }
  if (eb == 0u) { let k = 23 - f_msb32(mb); mb = mb << u32(k); xb = 1 - k; } else { mb = mb | 0x800000u; }
  let a1 = ma >> 12u; let a0 = ma & 0xFFFu; let b1 = mb >> 12u; let b0 = mb & 0xFFFu;
  let mid = a1 * b0 + a0 * b1; let hi = a1 * b1;
  var p = vec2<u32>(a0 * b0, 0u);
  p = f_add64(p, vec2<u32>(mid << 12u, mid >> 20u));
  p = f_add64(p, vec2<u32>(hi << 24u, hi >> 8u));
  let sh = 61 - f_msb64(p);
  p = f_shl64(p, sh);
  let ep = xa + xb - 300 - sh;
  if ((uc & 0x7FFFFFFFu) == 0u) { return f_round_pack(sp, p, ep); }
  if (ec == 0u) { let k = 23 - f_msb32(mc); mc = mc << u32(k); xc = 1 - k; } else { mc = mc | 0x800000u; }
  let c = f_shl64(vec2<u32>(mc, 0u), 38);
  let ecx = xc - 188;
  var big = p; var small_ = c; var sbig = sp; var ssmall = sc;
  var e = ep; var d = ep - ecx;
  if (d < 0 || (d == 0 && f_lt64(p, c))) { big = c; small_ = p; sbig = sc; ssmall = sp; e = ecx; d = -d; }
  var sm = f_shr64(small_, d);
  var back = vec2<u32>(0u, 0u);
  if (d < 64) { back = f_shl64(sm, d); }
  if (!f_eq64(back, small_)) { sm.x = sm.x | 1u; }
  var x: vec2<u32>;
  if (sbig == ssmall) {
    x = f_add64(big, sm);
  } else {
    x = f_sub64(big, sm);
    if (f_eq64(x, vec2<u32>(0u, 0u))) { return 0u; }
  }
  return f_round_pack(sbig, x, e);
}
`;
