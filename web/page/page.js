// The playground: the editor, the compiler (fmag.js, wasm) on every edit, the panes,
// and the image on the GPU (fmag_webgl.js / fmag_webgpu.js). window.fmagPage is the
// surface the browser test (test/Web) drives.
import { loadFmag, LANGUAGES } from './fmag.js';
import { FmagWebGL } from './fmag_webgl.js';
import { FmagWebGPU } from './fmag_webgpu.js';
import { EXAMPLES } from './examples.js';

const $ = (id) => document.getElementById(id);
// The image's width and height: a power of two (pixel centres are then exact floats),
// 256 unless the address asks (?size=128: the browser test's smaller image).
const SIZE = (() => {
  const n = parseInt(new URLSearchParams(location.search).get('size'), 10);
  return n >= 16 && n <= 2048 && (n & (n - 1)) === 0 ? n : 256;
})();
const ui = {
  lang: $('lang'), pipeline: $('pipeline'), fastmath: $('fastmath'), example: $('example'),
  backend: $('backend'), perlane: $('perlane'), time: $('time'), animate: $('animate'),
  permalink: $('permalink'), source: $('source'), gutter: $('gutter'), diags: $('diagnostics'),
  stream: $('stream'), ir: $('ir'), stats: $('stats'), status: $('status'),
  gl: $('gl'), cpu: $('cpu'),
};

let fmag = null, webgl = null, webgpu = null, current = null;
let state = { busy: false, source: null, error: null, generation: 0 };

// ---------------------------------------------------------------- permalink
function encodeState() {
  const o = { l: ui.lang.value, p: ui.pipeline.value, s: ui.source.value, m: ui.perlane.checked ? 1 : 0 };
  const bytes = new TextEncoder().encode(JSON.stringify(o));
  let bin = '';
  bytes.forEach((b) => { bin += String.fromCharCode(b); });
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function decodeState(hash) {
  try {
    const b = atob(hash.replace(/-/g, '+').replace(/_/g, '/'));
    const o = JSON.parse(new TextDecoder().decode(Uint8Array.from(b, (c) => c.charCodeAt(0))));
    if (typeof o.s !== 'string') return false;
    ui.lang.value = o.l || 'sl';
    ui.pipeline.value = o.p || '-O2';
    ui.source.value = o.s;
    ui.perlane.checked = !!o.m;
    return true;
  } catch (e) {
    return false;
  }
}

// ---------------------------------------------------------------- editor
function updateGutter(errLines = new Map()) {
  const n = ui.source.value.split('\n').length;
  let html = '';
  for (let i = 1; i <= n; i++) {
    const msg = errLines.get(i);
    html += msg ? `<span class="err" data-line="${i}" title="${escapeHtml(msg)}">${i}</span>`
                : `<span data-line="${i}">${i}</span>`;
  }
  ui.gutter.innerHTML = html;
  ui.gutter.scrollTop = ui.source.scrollTop;
}

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

function showDiagnostics(diags) {
  const lines = new Map();
  ui.diags.innerHTML = '';
  for (const d of diags) {
    if (d.line && !lines.has(d.line)) lines.set(d.line, d.message);
    const li = document.createElement('li');
    li.dataset.line = d.line;
    li.dataset.column = d.column;
    li.textContent = d.line ? `line ${d.line}:${d.column}: ${d.severity}: ${d.message}` : d.text;
    li.onclick = () => gotoLine(d.line);
    ui.diags.appendChild(li);
  }
  updateGutter(lines);
}

function gotoLine(line) {
  if (!line) return;
  const lines = ui.source.value.split('\n');
  let pos = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) pos += lines[i].length + 1;
  ui.source.focus();
  ui.source.setSelectionRange(pos, pos + (lines[line - 1] || '').length);
}

// ---------------------------------------------------------------- compile and render
async function engine() {
  const which = ui.backend.value;
  ui.gl.hidden = which !== 'webgl2';
  ui.cpu.hidden = which === 'webgl2';
  if (which === 'webgl2' && !webgl) {
    webgl = new FmagWebGL(ui.gl, SIZE);
    try {
      webgl.probeFloat(probeExpect);
    } catch (e) {
      webgl.probe = 'probe failed: ' + e.message;
    }
  }
  if (which === 'webgl2') return webgl;
  if (which === 'webgpu') return webgpu || (webgpu = await FmagWebGPU.create(ui.cpu, SIZE));
  return cpuEngine;
}

// The reference VM in wasm as a third "engine" (what a browser without WebGL2 gets).
const cpuEngine = {
  describe: () => 'CPU: the reference VM in WebAssembly',
  load(programs, tilesAcross = 4) {
    this.programs = programs;
    this.tiles = programs.length > 1 ? [tilesAcross, SIZE / tilesAcross] : [1, SIZE];
  },
  async render(t, inputs = null) {
    const n = SIZE * SIZE, P = this.programs, bits = new Uint32Array(n * 4);
    const t0 = performance.now();
    const tw = new Float32Array([t]);
    for (let pi = 0; pi < P.length; pi++) {
      const p = P[pi], idx = [];
      for (let k = 0; k < n; k++) {
        const x = k % SIZE, y = Math.floor(k / SIZE);
        const tile = Math.floor(y / this.tiles[1]) * this.tiles[0] + Math.floor(x / this.tiles[1]);
        if ((P.length > 1 ? tile % P.length : 0) === pi) idx.push(k);
      }
      const inp = new Float32Array(idx.length * p.nin), iw = new Uint32Array(inp.buffer);
      idx.forEach((k, j) => {
        const x = k % SIZE, y = Math.floor(k / SIZE);
        const w = inputs ? inputs.subarray(k * 4, k * 4 + 4)
                         : new Uint32Array(new Float32Array([(x + 0.5) / SIZE, (y + 0.5) / SIZE, tw[0], 0]).buffer);
        for (let i = 0; i < p.nin; i++) iw[j * p.nin + i] = i < 4 ? w[i] : 0;
      });
      const out = new Uint32Array(current.image.run(p.index, inp, idx.length).buffer);
      idx.forEach((k, j) => { for (let i = 0; i < Math.min(4, p.nout); i++) bits[k * 4 + i] = out[j * p.nout + i]; });
    }
    this.bits = bits;
    const ms = performance.now() - t0;
    FmagWebGPU.prototype._show.call({ canvas: ui.cpu, size: SIZE, bits, tiles: this.tiles, programs: P, nprogs: P.length });
    return { ms, compileMs: 0 };
  },
  readBits() { return this.bits; },
};

// The probe's expected words: `r0 = fma(r0, r1, r2)` on the reference VM in wasm.
function probeExpect(words, n) {
  const r = fmag.compile('.def probe, 3, 1\n    %r0 = fmag %r0, %r1, %r2, 1.0\n', { language: 'fmas', withIR: false });
  const inp = new Float32Array(n * 3), w = new Uint32Array(inp.buffer);
  for (let k = 0; k < n; k++) w.set(words.subarray(k * 4, k * 4 + 3), k * 3);
  const out = new Uint32Array(r.image.run(0, inp, n).buffer);
  r.image.destroy();
  return out;
}

let lastRender = null;

async function renderImage() {
  if (!current || !current.image) return;
  const eng = await engine();
  const t = parseFloat(ui.time.value) || 0;
  lastRender = await eng.render(t);
  lastRender.engine = eng;
  showStats();
}

function showStats() {
  if (!current || !current.image) return;
  const P = current.programs;
  const rows = P.map((p) => `${p.name.padEnd(12)} ${String(p.instrs).padStart(6)} ${String(p.regs).padStart(5)} ${String(p.nin).padStart(3)} ${String(p.nout).padStart(4)}`);
  let s = `program      instrs  regs  in  out\n${rows.join('\n')}\n\ncompile ${current.compileUs.toFixed(0)} µs (wasm, ${current.fastCodegen ? 'fast' : 'full'} lowering)`;
  if (lastRender) {
    const instrs = P.reduce((a, p) => a + p.instrs, 0) / P.length;
    const rate = (SIZE * SIZE * instrs) / (lastRender.ms / 1000);
    s += `\nimage   ${lastRender.ms.toFixed(1)} ms, ${(rate / 1e6).toFixed(1)} M instr/s`;
    if (lastRender.compileMs) s += `\nshader  ${lastRender.compileMs.toFixed(0)} ms (first use of this register-file size)`;
    s += `\n${lastRender.engine.describe()}`;
  }
  ui.stats.textContent = s;
}

async function compileNow() {
  const gen = ++state.generation;
  state.busy = true;
  try {
    const src = ui.source.value;
    const r = fmag.compile(src, {
      language: ui.lang.value, pipeline: ui.pipeline.value, fastmath: ui.fastmath.checked,
    });
    if (current && current.image) current.image.destroy();
    current = r;
    showDiagnostics(r.diagnostics);
    history.replaceState(null, '', '#' + encodeState());
    ui.permalink.href = location.href;
    if (!r.image) {
      state.error = r.diagnostics;
      ui.status.textContent = `${r.diagnostics.filter((d) => d.severity === 'error').length} error(s)`;
      state.source = src;
      return;
    }
    state.error = null;
    ui.stream.textContent = r.stream;
    ui.ir.textContent = r.ir;
    const all = r.image.programs.map((p, i) => ({ ...p, index: i }));
    r.programs = ui.perlane.checked ? all : all.slice(0, 1);
    const eng = await engine();
    eng.load(r.programs, 4);
    await renderImage();
    ui.status.textContent = `ok: ${r.image.programs.length} program(s)${ui.perlane.checked ? ', per lane' : ''}`;
    state.source = src;
  } catch (e) {
    ui.status.textContent = 'error: ' + e.message;
    state.error = [{ text: String(e.message) }];
    console.error(e);
  } finally {
    if (gen === state.generation) state.busy = false;
  }
}

let timer = null, timerPending = false;
function scheduleCompile() {
  timerPending = true;
  updateGutter();
  clearTimeout(timer);
  timer = setTimeout(() => { timerPending = false; compileNow(); }, 150);
}

function animate(ts) {
  if (!ui.animate.checked) return;
  if (!state.busy && current && current.image) {
    ui.time.value = (ts / 1000).toFixed(2);
    state.busy = true;
    renderImage().finally(() => { state.busy = false; requestAnimationFrame(animate); });
  } else {
    requestAnimationFrame(animate);
  }
}

// ---------------------------------------------------------------- the test surface
function b64(u32) {
  const u8 = new Uint8Array(u32.buffer, u32.byteOffset, u32.byteLength);
  let s = '';
  for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
  return btoa(s);
}

window.fmagPage = {
  size: SIZE,
  idle: () => !state.busy && !timerPending,
  state: () => ({
    source: state.source, stream: ui.stream.textContent, ir: ui.ir.textContent,
    stats: ui.stats.textContent, status: ui.status.textContent,
    diagnostics: current ? current.diagnostics : [],
    errorLines: [...ui.gutter.querySelectorAll('span.err')].map((e) => +e.dataset.line),
    diagText: [...ui.diags.querySelectorAll('li')].map((e) => e.textContent),
    programs: current && current.image ? current.programs.map((p) => ({ name: p.name, instrs: p.instrs, regs: p.regs, nin: p.nin, nout: p.nout })) : [],
    engine: lastRender ? lastRender.engine.describe() : '',
    renderMs: lastRender ? lastRender.ms : null,
    compileUs: current ? current.compileUs : null,
  }),
  // the last image's output words, base64 of [size*size][4] u32, row 0 at the bottom
  bits: async () => b64((await engine()).readBits()),
  // renders with explicit input words (base64 of [size*size][4] u32) instead of (u, v, t)
  renderInputs: async (inputsB64) => {
    const bin = atob(inputsB64), u8 = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const eng = await engine();
    const r = await eng.render(0, new Uint32Array(u8.buffer));
    return { ms: r.ms, bits: b64(eng.readBits()) };
  },
  // times n renders of the current image (throughput figures)
  bench: async (n) => {
    const eng = await engine(), ms = [];
    for (let i = 0; i < n; i++) ms.push((await eng.render(parseFloat(ui.time.value) || 0)).ms);
    return ms;
  },
  setExact: (on) => { if (webgl) webgl.exact = on; },
  // mean µs of one compile (the page's options, no IR pane) over batches of at least
  // minMs, the best of `rounds` batches: the browser's timer is coarse, a batch is not
  // (fmag_compile alone: the source copied into the heap once, the image destroyed)
  compileBench: (src, lang, fastCodegen, minMs = 300, rounds = 3) => {
    let best = Infinity;
    const M = fmag.M, [ps, len] = fmag._str(src), [pf] = fmag._str('bench.' + lang), [pp] = fmag._str('O2');
    for (let r = 0; r < rounds; r++) {
      let n = 0;
      const t0 = performance.now();
      do {
        M._fmag_context_reset(fmag.ctx);
        const img = M._fmag_web_compile(fmag.ctx, pf, ps, len, LANGUAGES[lang], pp, 0, fastCodegen ? 1 : 0);
        if (!img) throw new Error('compile failed');
        M._fmag_image_destroy(img);
        n++;
      } while (performance.now() - t0 < minMs);
      best = Math.min(best, ((performance.now() - t0) * 1000) / n);
    }
    M._free(ps); M._free(pf); M._free(pp);
    return best;
  },
  compileNow,
};

// ---------------------------------------------------------------- start
async function main() {
  for (const name of Object.keys(EXAMPLES)) {
    const o = document.createElement('option');
    o.value = o.textContent = name;
    ui.example.appendChild(o);
  }
  const custom = document.createElement('option');
  custom.value = '';
  custom.textContent = '(your own)';
  ui.example.appendChild(custom);
  const fromHash = location.hash.length > 1 && decodeState(location.hash.slice(1));
  if (!fromHash) {
    ui.source.value = EXAMPLES.plasma.src;
    ui.lang.value = 'sl';
  }
  // The menu names the example on screen: a page restored from its link may hold another
  // example or text of the user's own.
  const shown = () => Object.keys(EXAMPLES).find((k) =>
    EXAMPLES[k].src === ui.source.value && EXAMPLES[k].lang === ui.lang.value) ?? '';
  ui.example.value = shown();
  if (!navigator.gpu) ui.backend.querySelector('option[value=webgpu]').disabled = true;
  fmag = await loadFmag();
  if (!fmag.haveLanguage('mtlx')) {
    const o = ui.lang.querySelector('option[value=mtlx]');
    o.disabled = true;
    o.textContent += ' (not built: no expat source, docs/Web.md)';
  }
  ui.source.addEventListener('input', () => { ui.example.value = shown(); scheduleCompile(); });
  ui.source.addEventListener('scroll', () => { ui.gutter.scrollTop = ui.source.scrollTop; });
  ui.source.addEventListener('keydown', (e) => {
    if (e.key === 'Tab') { e.preventDefault(); document.execCommand('insertText', false, '    '); }
  });
  ui.lang.addEventListener('change', () => { ui.example.value = shown(); });
  for (const el of [ui.lang, ui.pipeline, ui.fastmath, ui.perlane, ui.backend])
    el.addEventListener('change', scheduleCompile);
  ui.time.addEventListener('change', () => { state.busy = true; renderImage().finally(() => { state.busy = false; }); });
  ui.animate.addEventListener('change', () => requestAnimationFrame(animate));
  ui.example.addEventListener('change', () => {
    const ex = EXAMPLES[ui.example.value];
    if (!ex) return;
    ui.source.value = ex.src;
    ui.lang.value = ex.lang;
    ui.perlane.checked = ui.example.value === 'tiles';
    scheduleCompile();
  });
  await compileNow();
  ui.status.textContent += ` — FMAG ${fmag.version()}`;
}

main().catch((e) => { ui.status.textContent = 'error: ' + e.message; console.error(e); });
