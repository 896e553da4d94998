// fmag.js: the FMAG library (WebAssembly, web/CMakeLists.txt) as an ES module. A thin
// layer over include/fmag/fmag.h: compile SL, .fir, .fmas or MaterialX text, inspect the programs,
// disassemble them, run them on the reference VM. Strings and arrays are copied in and
// out of the wasm heap here; nothing else in the page touches the heap.
//
//   import { loadFmag } from './fmag.js';
//   const fmag = await loadFmag();
//   const r = fmag.compile(src, { language: 'sl', pipeline: 'O2' });
//   if (!r.image) console.log(r.diagnostics);       // [{line, column, severity, message, text}]
//   else { r.stream; r.ir; r.image.programs; r.image.run(0, inputs, n); r.image.destroy(); }
import createFmagModule from './fmag_wasm.mjs';

// fmag_language (fmag.h)
export const LANGUAGES = { auto: 0, sl: 1, fir: 2, fmas: 3, mtlx: 7 };
const EXT = { sl: '.sl', fir: '.fir', fmas: '.fmas', mtlx: '.mtlx', auto: '' };
const ENGINE_REF = 0;

export async function loadFmag(moduleArgs = {}) {
  const M = await createFmagModule(moduleArgs);
  return new Fmag(M);
}

export class Fmag {
  constructor(M) {
    this.M = M;
    this.ctx = M._fmag_context_create();
    if (!this.ctx) throw new Error('fmag: out of memory');
    this.runner = M._fmag_runner_create(this.ctx, ENGINE_REF);
  }

  version() { return this.M.UTF8ToString(this.M._fmag_version()); }

  // Whether this build reads the language (MaterialX only where expat was built in).
  haveLanguage(lang) { return !!this.M._fmag_have_language(LANGUAGES[lang] ?? -1); }

  // A NUL-terminated copy of s in the heap: [pointer, byte length]. Free with M._free.
  _str(s) {
    const n = this.M.lengthBytesUTF8(s);
    const p = this.M._malloc(n + 1);
    if (!p) throw new Error('fmag: out of memory');
    this.M.stringToUTF8(s, p, n + 1);
    return [p, n];
  }

  // A malloc'ed C string from the library, as a JS string; frees it.
  _take(p) {
    if (!p) return null;
    const s = this.M.UTF8ToString(p);
    this.M._fmag_web_free(p);
    return s;
  }

  _diagnostics() {
    const M = this.M, ctx = this.ctx, out = [];
    const n = M._fmag_context_diag_count(ctx);
    for (let i = 0; i < n; i++) {
      out.push({
        line: M._fmag_web_diag_line(ctx, i),
        column: M._fmag_web_diag_column(ctx, i),
        severity: ['error', 'warning', 'note'][M._fmag_web_diag_severity(ctx, i)] || 'error',
        message: M.UTF8ToString(M._fmag_web_diag_message(ctx, i)),
        text: M.UTF8ToString(M._fmag_web_diag_text(ctx, i)),
      });
    }
    return out;
  }

  // Compiles text to an image (one program per export; MaterialX: per graph output).
  // options: language ('sl', 'fir', 'fmas', 'mtlx', 'auto'), pipeline ('O0', 'O1', 'O2'
  // or a pass list: fmag-opt's names), fastmath, fastCodegen, filename, withIR (also the
  // optimized IR: a second compile).
  // Returns { image (FmagImage or null), stream (slc -S text), ir, diagnostics, compileUs }.
  compile(src, options = {}) {
    const M = this.M;
    const lang = options.language || 'sl';
    const filename = options.filename || 'input' + (EXT[lang] ?? '');
    let pipeline = (options.pipeline || 'O2').trim().replace(/^-/, '');
    if (pipeline.startsWith('passes=')) pipeline = pipeline.slice(7);
    pipeline = pipeline.split(/[\s,]+/).map((p) => p.replace(/^-/, '')).filter(Boolean).join(',');
    const [ps, len] = this._str(src), [pf] = this._str(filename), [pp] = this._str(pipeline);
    const result = { image: null, stream: '', ir: '', diagnostics: [], compileUs: 0 };
    try {
      M._fmag_context_reset(this.ctx);
      const t0 = performance.now();
      const img = M._fmag_web_compile(this.ctx, pf, ps, len, LANGUAGES[lang] ?? 0, pp,
                                      options.fastmath ? 1 : 0, options.fastCodegen ? 1 : 0);
      result.compileUs = (performance.now() - t0) * 1000;
      result.diagnostics = this._diagnostics();
      if (img) {
        result.image = new FmagImage(this, img);
        result.stream = this._take(M._fmag_web_disassemble_image(img)) || '';
        if (options.withIR !== false) {
          M._fmag_context_reset(this.ctx);
          result.ir = this._take(M._fmag_web_optimized_ir(this.ctx, pf, ps, len,
                                 LANGUAGES[lang] ?? 0, pp, options.fastmath ? 1 : 0)) || '';
        }
      }
    } finally {
      M._free(ps); M._free(pf); M._free(pp);
    }
    return result;
  }
}

export class FmagImage {
  constructor(fmag, ptr) {
    this.fmag = fmag;
    this.ptr = ptr;
    const M = fmag.M;
    this.programs = [];
    const n = M._fmag_image_program_count(ptr);
    for (let i = 0; i < n; i++) {
      const p = M._fmag_image_program(ptr, i);
      const ninstr = M._fmag_program_instr_count(p);
      const code = M._fmag_web_program_code(p);
      this.programs.push({
        ptr: p,
        name: M.UTF8ToString(M._fmag_program_name(p)),
        instrs: ninstr,
        regs: M._fmag_program_regs(p),
        nin: M._fmag_program_inputs(p),
        nout: M._fmag_program_outputs(p),
        flags: M._fmag_program_flags(p),
        // the stream's words, copied out of the heap (4 per instruction, .fmag order)
        code: new Uint32Array(M.HEAPU32.buffer, code, ninstr * 4).slice(),
      });
    }
  }

  // Program i as .fmas (fmag_program_disassemble: what `fmag-as -d` prints).
  disassemble(i) {
    return this.fmag._take(this.fmag.M._fmag_program_disassemble(this.programs[i].ptr));
  }

  // Runs n elements of program i on the reference VM in wasm: inputs [n][nin] floats,
  // returns [n][nout] (fmag_run).
  run(i, inputs, n) {
    const M = this.fmag.M, p = this.programs[i];
    const inBytes = Math.max(4, n * p.nin * 4), outBytes = Math.max(4, n * p.nout * 4);
    const pin = M._malloc(inBytes), pout = M._malloc(outBytes);
    try {
      M.HEAPF32.set(inputs.subarray(0, n * p.nin), pin >> 2);
      if (!M._fmag_run(this.fmag.ctx, this.fmag.runner, p.ptr, pin, pout, n))
        throw new Error(this.fmag._diagnostics().map((d) => d.text).join('\n'));
      return new Float32Array(M.HEAPF32.buffer, pout, n * p.nout).slice();
    } finally {
      M._free(pin); M._free(pout);
    }
  }

  destroy() {
    if (this.ptr) this.fmag.M._fmag_image_destroy(this.ptr);
    this.ptr = 0;
  }
}
