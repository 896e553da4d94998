// The FMAG interpreter on WebGL2 (GLSL ES 3.00): one fragment per element over a
// full-screen triangle, the register file a private array of IEEE words, the stream a
// data texture (one RGBA32UI texel = one 16-byte instruction, the .fmag words as they
// are), a program table texture for per-lane runs. The output bits go to an RGBA32UI
// render target (exact read-back); a second pass turns them into the canvas's colours.
// The shader is compiled once per register-file size (a power of two) and kept: a new
// program is a texture upload, never a shader compile. docs/Web.md has the design.
import { SOFTFMA_GLSL } from './softfma.glsl.js';

const CODE_W = 1024; // texels per row of the code texture

const VERT = `#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`;

// exact: the integer fma; float: a*b+c in the GPU's float unit (two roundings where it
// does not contract, denormals as the GPU has them: for measuring only).
function interpSource(regs, exact) {
  return `#version 300 es
precision highp float;
precision highp int;
precision highp usampler2D;
#define REGS ${regs}u
#define MASK ${regs - 1}u
uniform usampler2D uCode;   // instruction k at (k % ${CODE_W}, k / ${CODE_W})
uniform usampler2D uProgs;  // program i at (i, 0): first instruction, count, nin, nout
uniform usampler2D uInputs; // with uUseInputs: the element's four input words
uniform bool uUseInputs;
uniform uint uNProgs;       // per-lane: tile k runs program k % uNProgs
uniform uvec2 uTiles;       // tiles across, tile size in pixels (power of two)
uniform uint uTime;         // float bits
uniform float uInvSize;     // 1 / image width (a power of two: exact)
out uvec4 oBits;
uint r[REGS];
${exact ? SOFTFMA_GLSL : ''}
uint fmag_fma(uint a, uint b, uint c) {
${exact ? '  return fmag_soft_fma(a, b, c);' : `  float f = uintBitsToFloat(a) * uintBitsToFloat(b) + uintBitsToFloat(c);
  return isnan(f) ? 0x7FC00000u : floatBitsToUint(f);`}
}
// NaN-boxing and the guard, on the bits: no float mode can change them
uint operand(uint w) {
  return ((w & 0x7F800000u) == 0x7F800000u && (w & 0x7FFFFFu) != 0u) ? r[w & MASK] : w;
}
bool positive(uint g) { return g != 0u && g <= 0x7F800000u; } // > 0: not -x, not 0, not NaN
void main() {
  uvec2 px = uvec2(gl_FragCoord.xy);
  uint tile = (px.y / uTiles.y) * uTiles.x + px.x / uTiles.y;
  uint prog = uNProgs > 1u ? tile % uNProgs : 0u;
  uvec4 pt = texelFetch(uProgs, ivec2(int(prog), 0), 0);
  for (uint i = 0u; i < REGS; ++i) r[i] = 0u;
  uvec4 inw;
  if (uUseInputs) {
    inw = texelFetch(uInputs, ivec2(px), 0);
  } else {
    // pixel centres over the image, exact: (x + 0.5) * 2^-k
    inw = uvec4(floatBitsToUint((vec2(px) + 0.5) * uInvSize), uTime, 0u);
  }
  uint nin = min(pt.z, 4u);
  for (uint i = 0u; i < nin; ++i) r[i & MASK] = inw[i];
  for (uint i = 0u; i < pt.y; ++i) {
    uint k = pt.x + i;
    uvec4 w = texelFetch(uCode, ivec2(int(k % ${CODE_W}u), int(k / ${CODE_W}u)), 0);
    uint g = operand(w.z);
    if (positive(g)) {
      uint res = fmag_fma(r[(w.w >> 16) & MASK], operand(w.x), operand(w.y));
      r[w.w & MASK] = res;
    }
  }
  uint nout = min(pt.w, 4u);
  uvec4 o = uvec4(0u);
  for (uint i = 0u; i < nout; ++i) o[i] = r[i & MASK];
  oBits = o;
}`;
}

// bits -> colour: 1 output grey, 2 (r, g, 0), 3 or more rgb; NaN shows as magenta.
const SHOW = `#version 300 es
precision highp float;
precision highp int;
precision highp usampler2D;
uniform usampler2D uBits;
uniform usampler2D uProgs;
uniform uint uNProgs;
uniform uvec2 uTiles;
out vec4 oColor;
void main() {
  uvec2 px = uvec2(gl_FragCoord.xy);
  uint tile = (px.y / uTiles.y) * uTiles.x + px.x / uTiles.y;
  uint prog = uNProgs > 1u ? tile % uNProgs : 0u;
  uint nout = texelFetch(uProgs, ivec2(int(prog), 0), 0).w;
  uvec4 b = texelFetch(uBits, ivec2(px), 0);
  vec4 f = uintBitsToFloat(b);
  vec3 c = nout == 1u ? f.xxx : nout == 2u ? vec3(f.xy, 0.0) : f.xyz;
  bvec3 n = isnan(c);
  c = clamp(c, 0.0, 1.0);
  if (any(n)) c = vec3(1.0, 0.0, 1.0);
  oColor = vec4(c, 1.0);
}`;

export class FmagWebGL {
  // canvas: where the image is shown; size: its width and height (a power of two)
  constructor(canvas, size = 256) {
    this.canvas = canvas;
    this.size = size;
    canvas.width = canvas.height = size;
    const gl = canvas.getContext('webgl2', { antialias: false, preserveDrawingBuffer: true });
    if (!gl) throw new Error('WebGL2 is not available');
    this.gl = gl;
    this.programs = new Map(); // "regs/exact" -> WebGLProgram
    this.exact = true;
    this.vao = gl.createVertexArray();
    this.show = this._link(SHOW);
    this.codeTex = this._uintTex(1, 1, new Uint32Array(4));
    this.progTex = this._uintTex(1, 1, new Uint32Array(4));
    this.inputTex = this._uintTex(1, 1, new Uint32Array(4));
    this.bitsTex = this._uintTex(size, size, null);
    this.fb = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fb);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, this.bitsTex, 0);
    if (gl.checkFramebufferStatus(gl.FRAMEBUFFER) !== gl.FRAMEBUFFER_COMPLETE)
      throw new Error('WebGL2: an RGBA32UI render target is not supported');
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    this.nprogs = 0;
    this.tiles = [1, size];
    this.regs = 4;
  }

  describe() {
    const gl = this.gl;
    const dbg = gl.getExtension('WEBGL_debug_renderer_info');
    const name = dbg ? gl.getParameter(dbg.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
    const probe = this.probe ? `; float a*b+c: ${this.probe}` : '';
    return `WebGL2 (${gl.getParameter(gl.SHADING_LANGUAGE_VERSION)}) on ${name}; fma: exact (integer)${probe}`;
  }

  // The Vulkan runner's start-up probe (docs/GPU.md), here informational: the float path
  // (a*b+c, what a GLSL ES 3.00 shader can write) on cancellation cases a*b - round(a*b),
  // which only a single rounding gets right, and on products that are denormals. expect:
  // (inputs Uint32Array [n][4] words, n) -> the reference VM's result words. The page
  // keeps the integer fma whatever the answer: one passing shape of code proves nothing
  // for the others (Mesa's lavapipe fused in one shader and not in another).
  probeFloat(expect) {
    const n = this.size * this.size, words = new Uint32Array(n * 4), f = new Float32Array(words.buffer);
    let seed = 12345;
    const rnd = () => { seed = (seed * 1103515245 + 12345) >>> 0; return seed / 4294967296; };
    for (let k = 0; k < n; k++) {
      const denorm = k % 64 === 0;
      const a = denorm ? Math.fround(1.5 * 2 ** -70) : Math.fround(1 + rnd());
      const b = denorm ? Math.fround(1.25 * 2 ** -62) : Math.fround(1 + rnd());
      f.set([a, b, denorm ? 0 : -Math.fround(a * b), 1], k * 4);
    }
    const saved = this.exact, regs = this.regs;
    this.exact = false;
    this.regs = 4;
    const table = [this.nprogs, this.tiles];
    this.load([{ code: new Uint32Array([0x7FC00001, 0x7FC00002, 0x3F800000, 0]), instrs: 1, regs: 3, nin: 3, nout: 1 }]);
    this.render(0, words);
    const got = this.readBits(), want = expect(words, n);
    this.exact = saved;
    this.regs = regs;
    [this.nprogs, this.tiles] = table;
    let cancel = 0, den = 0;
    for (let k = 0; k < n; k++)
      if (got[k * 4] !== want[k]) k % 64 === 0 ? den++ : cancel++;
    const nd = Math.ceil(n / 64);
    this.probe = `${cancel ? `not fused (${cancel} of ${n - nd} cancellation cases differ)` : 'fused on the probe'}, ` +
                 `${den ? `denormals flushed (${den} of ${nd})` : 'denormals kept'}`;
    return this.probe;
  }

  _uintTex(w, h, data) {
    const gl = this.gl;
    const t = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32UI, w, h, 0, gl.RGBA_INTEGER, gl.UNSIGNED_INT, data);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    return t;
  }

  _setTex(t, w, h, data) {
    const gl = this.gl;
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32UI, w, h, 0, gl.RGBA_INTEGER, gl.UNSIGNED_INT, data);
  }

  _link(fs) {
    const gl = this.gl;
    const sh = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      if (!gl.getShaderParameter(s, gl.COMPILE_STATUS))
        throw new Error('WebGL2 shader: ' + gl.getShaderInfoLog(s));
      return s;
    };
    const p = gl.createProgram();
    gl.attachShader(p, sh(gl.VERTEX_SHADER, VERT));
    gl.attachShader(p, sh(gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(p);
    if (!gl.getProgramParameter(p, gl.LINK_STATUS))
      throw new Error('WebGL2 link: ' + gl.getProgramInfoLog(p));
    return p;
  }

  // The interpreter for a register file of `regs` (rounded up to a power of two, at
  // least 16: fewer variants to compile, and the SL examples need 3-28), compiled on first
  // use. Returns [program, compile ms or 0 when cached]; the driver may still compile at the
  // first draw (SwiftShader does), which the first render then pays.
  _interp(regs) {
    let rf = 16;
    while (rf < regs) rf *= 2;
    const key = rf + (this.exact ? '/exact' : '/float');
    if (this.programs.has(key)) return [this.programs.get(key), 0];
    const t0 = performance.now();
    const p = this._link(interpSource(rf, this.exact));
    this.programs.set(key, p);
    return [p, performance.now() - t0];
  }

  // Uploads the programs (FmagImage.programs entries: code, regs, nin, nout). One
  // program: every pixel runs it; several: tile k (tilesAcross x tilesAcross tiles) runs
  // program k % n.
  load(programs, tilesAcross = 4) {
    const total = programs.reduce((s, p) => s + p.instrs, 0);
    const rows = Math.max(1, Math.ceil(total / CODE_W));
    const code = new Uint32Array(CODE_W * rows * 4);
    const table = new Uint32Array(programs.length * 4);
    let first = 0;
    programs.forEach((p, i) => {
      code.set(p.code, first * 4);
      table.set([first, p.instrs, p.nin, p.nout], i * 4);
      first += p.instrs;
    });
    this._setTex(this.codeTex, CODE_W, rows, code);
    this._setTex(this.progTex, programs.length, 1, table);
    this.nprogs = programs.length;
    this.regs = Math.max(1, ...programs.map((p) => p.regs));
    this.tiles = programs.length > 1 ? [tilesAcross, this.size / tilesAcross] : [1, this.size];
  }

  // Runs the loaded programs over the image at time t (a float). inputs: optional
  // Uint32Array [size*size][4] of input words (row 0 at the bottom), instead of the
  // pixel coordinates and time. Draws the image; returns { ms, compileMs } (ms waits for
  // the GPU: a read of one pixel ends the frame).
  render(t, inputs = null) {
    const gl = this.gl;
    const [prog, compileMs] = this._interp(this.regs);
    if (inputs) this._setTex(this.inputTex, this.size, this.size, inputs);
    const t0 = performance.now();
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fb);
    gl.viewport(0, 0, this.size, this.size);
    gl.useProgram(prog);
    const u = (n) => gl.getUniformLocation(prog, n);
    gl.activeTexture(gl.TEXTURE0); gl.bindTexture(gl.TEXTURE_2D, this.codeTex);
    gl.activeTexture(gl.TEXTURE1); gl.bindTexture(gl.TEXTURE_2D, this.progTex);
    gl.activeTexture(gl.TEXTURE2); gl.bindTexture(gl.TEXTURE_2D, this.inputTex);
    gl.uniform1i(u('uCode'), 0);
    gl.uniform1i(u('uProgs'), 1);
    gl.uniform1i(u('uInputs'), 2);
    gl.uniform1i(u('uUseInputs'), inputs ? 1 : 0);
    gl.uniform1ui(u('uNProgs'), this.nprogs);
    gl.uniform2ui(u('uTiles'), this.tiles[0], this.tiles[1]);
    gl.uniform1ui(u('uTime'), new Uint32Array(new Float32Array([t]).buffer)[0]);
    gl.uniform1f(u('uInvSize'), 1 / this.size);
    gl.bindVertexArray(this.vao);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    const one = new Uint32Array(4);
    gl.readPixels(0, 0, 1, 1, gl.RGBA_INTEGER, gl.UNSIGNED_INT, one); // waits for the frame
    const ms = performance.now() - t0;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.useProgram(this.show);
    gl.activeTexture(gl.TEXTURE0); gl.bindTexture(gl.TEXTURE_2D, this.bitsTex);
    gl.uniform1i(gl.getUniformLocation(this.show, 'uBits'), 0);
    gl.uniform1i(gl.getUniformLocation(this.show, 'uProgs'), 1);
    gl.uniform1ui(gl.getUniformLocation(this.show, 'uNProgs'), this.nprogs);
    gl.uniform2ui(gl.getUniformLocation(this.show, 'uTiles'), this.tiles[0], this.tiles[1]);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    return { ms, compileMs };
  }

  // The last render's output words: Uint32Array [size*size][4], row 0 at the bottom.
  readBits() {
    const gl = this.gl;
    const out = new Uint32Array(this.size * this.size * 4);
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fb);
    gl.readPixels(0, 0, this.size, this.size, gl.RGBA_INTEGER, gl.UNSIGNED_INT, out);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    return out;
  }
}
