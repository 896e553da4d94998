// The FMAG interpreter on WebGPU (WGSL): a compute shader, one invocation per element,
// the register file a private array of IEEE words, the stream and the program table in
// storage buffers (the .fmag words as they are), the outputs' bits written to a storage
// buffer and read back. The same design and the same integer fma as the WebGL2
// interpreter (fmag_webgl.js); one pipeline per register-file size, kept.
import { SOFTFMA_WGSL } from './softfma.glsl.js';

function interpSource(regs) {
  return `
struct Params { nprogs: u32, tiles_across: u32, tile_size: u32, size: u32,
                time: u32, use_inputs: u32, inv_size: f32, pad: u32 }
@group(0) @binding(0) var<storage, read> code: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> progs: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> inputs: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> outputs: array<vec4<u32>>;
@group(0) @binding(4) var<uniform> P: Params;
const MASK: u32 = ${regs - 1}u;
var<private> r: array<u32, ${regs}>;
${SOFTFMA_WGSL}
fn operand(w: u32) -> u32 {
  if ((w & 0x7F800000u) == 0x7F800000u && (w & 0x7FFFFFu) != 0u) { return r[w & MASK]; }
  return w;
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let n = P.size * P.size;
  let k = gid.x;
  if (k >= n) { return; }
  let px = vec2<u32>(k % P.size, k / P.size); // row 0 at the bottom, as WebGL's
  let tile = (px.y / P.tile_size) * P.tiles_across + px.x / P.tile_size;
  var prog = 0u;
  if (P.nprogs > 1u) { prog = tile % P.nprogs; }
  let pt = progs[prog];
  for (var i = 0u; i < ${regs}u; i = i + 1u) { r[i] = 0u; }
  var inw: vec4<u32>;
  if (P.use_inputs != 0u) {
    inw = inputs[k];
  } else {
    let uv = (vec2<f32>(px) + 0.5) * P.inv_size;
    inw = vec4<u32>(bitcast<u32>(uv.x), bitcast<u32>(uv.y), P.time, 0u);
  }
  let nin = min(pt.z, 4u);
  for (var i = 0u; i < nin; i = i + 1u) { r[i & MASK] = inw[i]; }
  for (var i = 0u; i < pt.y; i = i + 1u) {
    let w = code[pt.x + i];
    let g = operand(w.z);
    if (g != 0u && g <= 0x7F800000u) {
      r[w.w & MASK] = fmag_soft_fma(r[(w.w >> 16u) & MASK], operand(w.x), operand(w.y));
    }
  }
  let nout = min(pt.w, 4u);
  var o = vec4<u32>(0u, 0u, 0u, 0u);
  for (var i = 0u; i < nout; i = i + 1u) { o[i] = r[i & MASK]; }
  outputs[k] = o;
}`;
}

export class FmagWebGPU {
  static async create(canvas, size = 256) {
    if (!navigator.gpu) throw new Error('WebGPU is not available (navigator.gpu)');
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error('WebGPU: no adapter');
    const device = await adapter.requestDevice();
    let info = '';
    try {
      const ai = adapter.info || (adapter.requestAdapterInfo ? await adapter.requestAdapterInfo() : null);
      if (ai) info = [ai.vendor, ai.architecture, ai.device, ai.description].filter(Boolean).join(' ');
    } catch (e) { /* the description is optional */ }
    return new FmagWebGPU(canvas, size, device, info);
  }

  constructor(canvas, size, device, info) {
    this.canvas = canvas;
    this.size = size;
    canvas.width = canvas.height = size;
    this.device = device;
    this.info = info;
    this.pipelines = new Map();
    const n = size * size;
    const mk = (bytes, usage) => device.createBuffer({ size: bytes, usage });
    const S = GPUBufferUsage;
    this.outBuf = mk(n * 16, S.STORAGE | S.COPY_SRC);
    this.readBuf = mk(n * 16, S.MAP_READ | S.COPY_DST);
    this.inBuf = mk(n * 16, S.STORAGE | S.COPY_DST);
    this.paramBuf = mk(32, S.UNIFORM | S.COPY_DST);
    this.codeBuf = null;
    this.progBuf = null;
    this.regs = 4;
    this.nprogs = 0;
    this.bits = null;
  }

  describe() { return `WebGPU (WGSL) on ${this.info || 'an adapter'}`; }

  _pipeline(regs) {
    let rf = 16;
    while (rf < regs) rf *= 2;
    if (this.pipelines.has(rf)) return [this.pipelines.get(rf), 0];
    const t0 = performance.now();
    const module = this.device.createShaderModule({ code: interpSource(rf) });
    const p = this.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    this.pipelines.set(rf, p);
    return [p, performance.now() - t0];
  }

  load(programs, tilesAcross = 4) {
    const total = Math.max(1, programs.reduce((s, p) => s + p.instrs, 0));
    const code = new Uint32Array(total * 4);
    const table = new Uint32Array(programs.length * 4);
    let first = 0;
    programs.forEach((p, i) => {
      code.set(p.code, first * 4);
      table.set([first, p.instrs, p.nin, p.nout], i * 4);
      first += p.instrs;
    });
    const S = GPUBufferUsage;
    if (this.codeBuf) this.codeBuf.destroy();
    if (this.progBuf) this.progBuf.destroy();
    this.codeBuf = this.device.createBuffer({ size: code.byteLength, usage: S.STORAGE | S.COPY_DST });
    this.progBuf = this.device.createBuffer({ size: table.byteLength, usage: S.STORAGE | S.COPY_DST });
    this.device.queue.writeBuffer(this.codeBuf, 0, code);
    this.device.queue.writeBuffer(this.progBuf, 0, table);
    this.nprogs = programs.length;
    this.programs = programs;
    this.regs = Math.max(1, ...programs.map((p) => p.regs));
    this.tiles = programs.length > 1 ? [tilesAcross, this.size / tilesAcross] : [1, this.size];
  }

  async render(t, inputs = null) {
    const [pipe, compileMs] = this._pipeline(this.regs);
    const dev = this.device;
    if (inputs) dev.queue.writeBuffer(this.inBuf, 0, inputs);
    const params = new ArrayBuffer(32);
    const u = new Uint32Array(params), f = new Float32Array(params);
    u.set([this.nprogs, this.tiles[0], this.tiles[1], this.size,
           new Uint32Array(new Float32Array([t]).buffer)[0], inputs ? 1 : 0]);
    f[6] = 1 / this.size;
    dev.queue.writeBuffer(this.paramBuf, 0, params);
    const bind = dev.createBindGroup({
      layout: pipe.getBindGroupLayout(0),
      entries: [this.codeBuf, this.progBuf, this.inBuf, this.outBuf, this.paramBuf]
        .map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    const t0 = performance.now();
    const enc = dev.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipe);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(Math.ceil((this.size * this.size) / 64));
    pass.end();
    enc.copyBufferToBuffer(this.outBuf, 0, this.readBuf, 0, this.size * this.size * 16);
    dev.queue.submit([enc.finish()]);
    await this.readBuf.mapAsync(GPUMapMode.READ);
    this.bits = new Uint32Array(this.readBuf.getMappedRange()).slice();
    this.readBuf.unmap();
    const ms = performance.now() - t0;
    this._show();
    return { ms, compileMs };
  }

  // The outputs as colours on a 2D canvas (CPU side: the bits are read back anyway).
  _show() {
    const ctx = this.canvas.getContext('2d');
    const n = this.size, img = ctx.createImageData(n, n);
    const fl = new Float32Array(this.bits.buffer);
    const chan = (x) => (Number.isNaN(x) ? -1 : Math.round(Math.min(1, Math.max(0, x)) * 255));
    for (let y = 0; y < n; y++)
      for (let x = 0; x < n; x++) {
        const k = y * n + x, tile = Math.floor(y / this.tiles[1]) * this.tiles[0] + Math.floor(x / this.tiles[1]);
        const nout = this.programs[this.nprogs > 1 ? tile % this.nprogs : 0].nout;
        const o = fl.subarray(k * 4, k * 4 + 4);
        let c = nout === 1 ? [o[0], o[0], o[0]] : nout === 2 ? [o[0], o[1], 0] : [o[0], o[1], o[2]];
        c = c.map(chan);
        if (c.includes(-1)) c = [255, 0, 255];
        const d = ((n - 1 - y) * n + x) * 4; // row 0 at the bottom
        img.data.set([c[0], c[1], c[2], 255], d);
      }
    ctx.putImageData(img, 0, 0);
  }

  readBits() { return this.bits; }
}
