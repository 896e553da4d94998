// The exact fma on 32-bit words, GLSL ES 3.00 (WebGL2) and WGSL (WebGPU): neither
// language promises a fused fma (GLSL ES 3.00 has no fma() at all; WGSL's fma() may be
// two roundings) nor denormals (either may flush them), so the interpreters keep registers
// as IEEE bit patterns and compute fmaf in integer arithmetic: unpack, the exact 48-bit
// product from 12-bit halves (no 32x32 multiply in GLSL ES 3.00), align in a 64-bit frame
// with a sticky bit, round to nearest even with subnormals, pack. Bit-exact by
// construction whatever the GPU's float unit does. The algorithm is the C model's,
// web/shaders/softfma_model.c (checked against the C library's fmaf by
// test/Web/softfma-model.test); the GLSL form computes every case and selects (faster on
// SwiftShader's SIMD lanes than branches; WGSL the same). The browser test checks both
// shaders against the reference VM (docs/Web.md).

export const SOFTFMA_GLSL = `
// 64-bit values as uvec2(lo, hi). Shifts are written without branches (selects): an
// interpreter lane's data decide the amounts, and on a SIMD machine (SwiftShader, GPUs)
// both arms of a data-dependent branch run anyway. Amounts are clamped to 31 inside the
// arms a select discards, so no shift is ever out of range.
uvec2 f_add64(uvec2 a, uvec2 b) { uint lo = a.x + b.x; return uvec2(lo, a.y + b.y + (lo < a.x ? 1u : 0u)); }
uvec2 f_sub64(uvec2 a, uvec2 b) { return uvec2(a.x - b.x, a.y - b.y - (a.x < b.x ? 1u : 0u)); }
bool f_lt64(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x < b.x); }
uvec2 f_shl64(uvec2 a, int n) { // 0 <= n
  uint u = uint(min(n, 31)), v = uint(clamp(n - 32, 0, 31));
  uint lo = n < 32 ? a.x << u : 0u;
  uint hi = n < 32 ? (a.y << u) | ((a.x >> 1u) >> (31u - u)) : (n < 64 ? a.x << v : 0u);
  return uvec2(lo, hi);
}
uvec2 f_shr64(uvec2 a, int n) { // 0 <= n
  uint u = uint(min(n, 31)), v = uint(clamp(n - 32, 0, 31));
  uint lo = n < 32 ? (a.x >> u) | ((a.y << 1u) << (31u - u)) : (n < 64 ? a.y >> v : 0u);
  uint hi = n < 32 ? a.y >> u : 0u;
  return uvec2(lo, hi);
}
// the index of the highest set bit of x != 0: a uint below 2^24 converts to float
// exactly (on any GPU: the result is representable), and its exponent is that index
int f_msb24(uint y) { return int(floatBitsToUint(float(y)) >> 23) - 127; }
int f_msb32(uint x) { return x >= 0x1000000u ? 8 + f_msb24(x >> 8) : f_msb24(x); }
int f_msb64(uvec2 a) { return a.y != 0u ? 32 + f_msb32(a.y) : f_msb32(a.x); }
// value = x * 2^e (x != 0, below 2^63), sign s: the float32 nearest, ties to even
uint f_round_pack(uint s, uvec2 x, int e) {
  int m = f_msb64(x);
  int be = m + e + 127;
  int shift = be < 1 ? -149 - e : m - 23;
  int ef = max(be - 1, 0);
  // shift <= 0: exact (x << -shift); 0 < shift < 64: round; shift >= 64: x < half, 0
  int sr = clamp(shift, 1, 63);
  uvec2 qq = f_shr64(x, sr);
  uvec2 rem = f_sub64(x, f_shl64(qq, sr));
  uvec2 half_ = f_shl64(uvec2(1u, 0u), sr - 1);
  uint q = qq.x + ((f_lt64(half_, rem) || (rem == half_ && (qq.x & 1u) != 0u)) ? 1u : 0u);
  q = shift <= 0 ? f_shl64(x, clamp(-shift, 0, 63)).x : shift >= 64 ? 0u : q;
  uint r = (s << 31) + ((uint(ef) << 23) + q);
  return be > 254 ? (s << 31) | 0x7F800000u : r;
}
// fma(a, b, c) on finite, nonzero a and b
uint f_fma_main(uint ua, uint ub, uint uc) {
  uint ea = (ua >> 23) & 0xFFu, eb = (ub >> 23) & 0xFFu, ec = (uc >> 23) & 0xFFu;
  uint ma = ua & 0x7FFFFFu, mb = ub & 0x7FFFFFu, mc = uc & 0x7FFFFFu;
  uint sp = (ua ^ ub) >> 31, sc = uc >> 31;
  // normalize: m in [2^23, 2^24), value = m * 2^(x - 150)
  int ka = 23 - f_msb24(max(ma, 1u)), kb = 23 - f_msb24(max(mb, 1u)), kc = 23 - f_msb24(max(mc, 1u));
  int xa = ea == 0u ? 1 - ka : int(ea), xb = eb == 0u ? 1 - kb : int(eb), xc = ec == 0u ? 1 - kc : int(ec);
  ma = ea == 0u ? ma << uint(ka) : ma | 0x800000u;
  mb = eb == 0u ? mb << uint(kb) : mb | 0x800000u;
  mc = ec == 0u ? mc << uint(clamp(kc, 0, 31)) : mc | 0x800000u;
  // the exact 48-bit product from 12-bit halves (no 32x32 multiply in GLSL ES 3.00)
  uint a1 = ma >> 12, a0 = ma & 0xFFFu, b1 = mb >> 12, b0 = mb & 0xFFFu;
  uint mid = a1 * b0 + a0 * b1, hi = a1 * b1;
  uvec2 p = f_add64(f_add64(uvec2(a0 * b0, 0u), uvec2(mid << 12, mid >> 20)), uvec2(hi << 24, hi >> 8));
  // both in a frame with the leading bit at 61; the product is 2^46..2^48
  int sh = p.y >= 0x8000u ? 14 : 15;
  p = f_shl64(p, sh);
  int ep = xa + xb - 300 - sh;
  bool cz = (uc & 0x7FFFFFFFu) == 0u;
  uvec2 c = uvec2(0u, mc << 6); // mc << 38
  int ecx = xc - 188;
  bool swap = !cz && (ecx > ep || (ecx == ep && f_lt64(p, c)));
  uvec2 big = swap ? c : p, small_ = swap ? p : c;
  uint sbig = swap ? sc : sp, ssmall = swap ? sp : sc;
  int e = swap ? ecx : ep, d = swap ? ecx - ep : ep - ecx;
  d = cz ? 64 : d;
  uvec2 sm = f_shr64(small_, d);
  sm.x |= (d < 64 ? f_shl64(sm, d) : uvec2(0u)) != small_ ? 1u : 0u; // sticky
  sm = cz ? uvec2(0u) : sm;
  uvec2 x = sbig == ssmall ? f_add64(big, sm) : f_sub64(big, sm);
  return x == uvec2(0u) ? 0u : f_round_pack(sbig, x, e); // exact cancellation: +0
}
uint fmag_soft_fma(uint ua, uint ub, uint uc) {
  uint ea = (ua >> 23) & 0xFFu, eb = (ub >> 23) & 0xFFu, ec = (uc >> 23) & 0xFFu;
  uint sp = (ua ^ ub) >> 31, sc = uc >> 31;
  bool za = (ua & 0x7FFFFFFFu) == 0u, zb = (ub & 0x7FFFFFFFu) == 0u, zc = (uc & 0x7FFFFFFFu) == 0u;
  bool na = ea == 255u && (ua & 0x7FFFFFu) != 0u, nb = eb == 255u && (ub & 0x7FFFFFu) != 0u;
  bool nc = ec == 255u && (uc & 0x7FFFFFu) != 0u;
  bool ia = ea == 255u && !na, ib = eb == 255u && !nb, ic = ec == 255u && !nc;
  // the special cases, in order: NaN, inf*0, inf-inf, an infinite product, an infinite c,
  // a zero product; otherwise the general path
  bool nan_ = na || nb || nc || ((ia || ib) && (za || zb)) || ((ia || ib) && ic && sc != sp);
  uint zero_prod = zc ? ((sp & sc) << 31) : uc;
  uint r = nan_ ? 0x7FC00000u
         : (ia || ib) ? ((sp << 31) | 0x7F800000u)
         : ic ? uc
         : (za || zb) ? zero_prod
         : f_fma_main(ua, ub, uc);
  return r;
}
`;

export const SOFTFMA_WGSL = `
// The GLSL form above, in WGSL: every case computed, chosen with select().
fn f_add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { let lo = a.x + b.x; return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x)); }
fn f_sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> { return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x)); }
fn f_lt64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.y < b.y || (a.y == b.y && a.x < b.x); }
fn f_eq64(a: vec2<u32>, b: vec2<u32>) -> bool { return a.x == b.x && a.y == b.y; }
fn f_shl64(a: vec2<u32>, n: i32) -> vec2<u32> {
  let u = u32(min(n, 31)); let v = u32(clamp(n - 32, 0, 31));
  let lo = select(0u, a.x << u, n < 32);
  let hi = select(select(0u, a.x << v, n < 64), (a.y << u) | ((a.x >> 1u) >> (31u - u)), n < 32);
  return vec2<u32>(lo, hi);
}
fn f_shr64(a: vec2<u32>, n: i32) -> vec2<u32> {
  let u = u32(min(n, 31)); let v = u32(clamp(n - 32, 0, 31));
  let lo = select(select(0u, a.y >> v, n < 64), (a.x >> u) | ((a.y << 1u) << (31u - u)), n < 32);
  let hi = select(0u, a.y >> u, n < 32);
  return vec2<u32>(lo, hi);
}
fn f_msb32(x: u32) -> i32 { return 31 - i32(countLeadingZeros(x)); }
fn f_msb64(a: vec2<u32>) -> i32 { return select(f_msb32(a.x), 32 + f_msb32(a.y), a.y != 0u); }
fn f_round_pack(s: u32, x: vec2<u32>, e: i32) -> u32 {
  let m = f_msb64(x);
  let be = m + e + 127;
  let shift = select(m - 23, -149 - e, be < 1);
  let ef = max(be - 1, 0);
  let sr = clamp(shift, 1, 63);
  let qq = f_shr64(x, sr);
  let rem = f_sub64(x, f_shl64(qq, sr));
  let half_ = f_shl64(vec2<u32>(1u, 0u), sr - 1);
  var q = qq.x + select(0u, 1u, f_lt64(half_, rem) || (f_eq64(rem, half_) && (qq.x & 1u) != 0u));
  q = select(select(q, 0u, shift >= 64), f_shl64(x, clamp(-shift, 0, 63)).x, shift <= 0);
  let r = (s << 31u) + ((u32(ef) << 23u) + q);
  return select(r, (s << 31u) | 0x7F800000u, be > 254);
}
fn f_fma_main(ua: u32, ub: u32, uc: u32) -> u32 {
  let ea = (ua >> 23u) & 0xFFu; let eb = (ub >> 23u) & 0xFFu; let ec = (uc >> 23u) & 0xFFu;
  var ma = ua & 0x7FFFFFu; var mb = ub & 0x7FFFFFu; var mc = uc & 0x7FFFFFu;
  let sp = (ua ^ ub) >> 31u; let sc = uc >> 31u;
  let ka = 23 - f_msb32(max(ma, 1u)); let kb = 23 - f_msb32(max(mb, 1u)); let kc = 23 - f_msb32(max(mc, 1u));
  let xa = select(i32(ea), 1 - ka, ea == 0u); let xb = select(i32(eb), 1 - kb, eb == 0u);
  let xc = select(i32(ec), 1 - kc, ec == 0u);
  ma = select(ma | 0x800000u, ma << u32(ka), ea == 0u);
  mb = select(mb | 0x800000u, mb << u32(kb), eb == 0u);
  mc = select(mc | 0x800000u, mc << u32(clamp(kc, 0, 31)), ec == 0u);
  let a1 = ma >> 12u; let a0 = ma & 0xFFFu; let b1 = mb >> 12u; let b0 = mb & 0xFFFu;
  let mid = a1 * b0 + a0 * b1; let hi = a1 * b1;
  var p = f_add64(f_add64(vec2<u32>(a0 * b0, 0u), vec2<u32>(mid << 12u, mid >> 20u)), vec2<u32>(hi << 24u, hi >> 8u));
  let sh = select(15, 14, p.y >= 0x8000u);
  p = f_shl64(p, sh);
  let ep = xa + xb - 300 - sh;
  let cz = (uc & 0x7FFFFFFFu) == 0u;
  let c = vec2<u32>(0u, mc << 6u);
  let ecx = xc - 188;
  let swap = !cz && (ecx > ep || (ecx == ep && f_lt64(p, c)));
  let big = select(p, c, swap); let small_ = select(c, p, swap);
  let sbig = select(sp, sc, swap); let ssmall = select(sc, sp, swap);
  let e = select(ep, ecx, swap);
  let d = select(select(ep - ecx, ecx - ep, swap), 64, cz);
  var sm = f_shr64(small_, d);
  let back = select(vec2<u32>(0u, 0u), f_shl64(sm, d), d < 64);
  sm.x = sm.x | select(0u, 1u, !f_eq64(back, small_));
  sm = select(sm, vec2<u32>(0u, 0u), cz);
  let x = select(f_sub64(big, sm), f_add64(big, sm), sbig == ssmall);
  return select(f_round_pack(sbig, x, e), 0u, f_eq64(x, vec2<u32>(0u, 0u)));
}
fn fmag_soft_fma(ua: u32, ub: u32, uc: u32) -> u32 {
  let ea = (ua >> 23u) & 0xFFu; let eb = (ub >> 23u) & 0xFFu; let ec = (uc >> 23u) & 0xFFu;
  let sp = (ua ^ ub) >> 31u; let sc = uc >> 31u;
  let za = (ua & 0x7FFFFFFFu) == 0u; let zb = (ub & 0x7FFFFFFFu) == 0u; let zc = (uc & 0x7FFFFFFFu) == 0u;
  let na = ea == 255u && (ua & 0x7FFFFFu) != 0u; let nb = eb == 255u && (ub & 0x7FFFFFu) != 0u;
  let nc = ec == 255u && (uc & 0x7FFFFFu) != 0u;
  let ia = ea == 255u && !na; let ib = eb == 255u && !nb; let ic = ec == 255u && !nc;
  let nan_ = na || nb || nc || ((ia || ib) && (za || zb)) || ((ia || ib) && ic && sc != sp);
  var r = f_fma_main(ua, ub, uc);
  r = select(r, select(uc, (sp & sc) << 31u, zc), za || zb);
  r = select(r, uc, ic);
  r = select(r, (sp << 31u) | 0x7F800000u, ia || ib);
  return select(r, 0x7FC00000u, nan_);
}
`;
