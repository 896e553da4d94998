// Programs the page offers. Inputs: u, v (pixel centres, 0..1, v up) and t (seconds);
// outputs: a colour (one output grey, three rgb). A MaterialX graph's inputs are its
// interface inputs, then texcoord and time (docs/MaterialX.md, "Interface"): a graph
// with no interface inputs that reads texcoord and time gets (u, v, t).
export const EXAMPLES = {
  plasma: { lang: 'sl', src: `// Plasma: sums of sines over position and time.
export f32x3 plasma(f32x2 p, f32 t) {
    f32 v = sin(p.x * 10.0 + t);
    v += sin((p.y * 10.0 + t) * 0.5);
    v += sin((p.x * 10.0 + p.y * 10.0 + t) * 0.5);
    f32 cx = p.x - 0.5 + 0.5 * sin(t * 0.2);
    f32 cy = p.y - 0.5 + 0.5 * cos(t * 0.33);
    v += sin(sqrt(100.0 * (cx * cx + cy * cy) + 1.0) + t);
    v = v * 0.5;
    return f32x3(sin(v * 3.14159), sin(v * 3.14159 + 2.094), sin(v * 3.14159 + 4.188)) * 0.5 + 0.5;
}
` },
  tiles: { lang: 'sl', src: `// Several exports: tick "per-lane" to run each on its own tiles.
f32 ring(f32x2 p, f32 r) { return abs(length(p - 0.5) - r); }
export f32x3 rings(f32 u, f32 v, f32 t) {
    f32 d = ring(f32x2(u, v), 0.3 + 0.05 * sin(t));
    return f32x3(smoothstep(0.05, 0.0, d), 0.2, 0.5);
}
export f32x3 checker(f32 u, f32 v) {
    f32 s = mod(floor(u * 8.0) + floor(v * 8.0), 2.0);
    return s < 0.5 ? f32x3(0.9, 0.8, 0.3) : f32x3(0.1, 0.2, 0.4);
}
export f32x3 gradient(f32 u, f32 v) { return f32x3(u, v, 1.0 - u); }
export f32 stripes(f32 u, f32 v, f32 t) { return step(0.5, fract(u * 6.0 + v * 2.0 + t)); }
` },
  sdf: { lang: 'sl', src: `// A lit sphere from its distance field.
export f32x3 sphere(f32 u, f32 v, f32 t) {
    f32x2 p = f32x2(u, v) * 2.0 - 1.0;
    f32 r2 = dot(p, p);
    if (r2 > 0.64) {
        return f32x3(0.1, 0.1, 0.15);
    }
    f32x3 n = f32x3(p / 0.8, sqrt(1.0 - r2 / 0.64));
    f32x3 l = normalize(f32x3(cos(t), 0.6, sin(t) + 1.0));
    f32 d = max(dot(n, l), 0.0);
    return f32x3(0.9, 0.5, 0.2) * d + 0.05;
}
` },
  fir: { lang: 'fir', src: `; The IR text: u, v, t in; grey out.
export func @main(%u, %v, %t) -> 1 {
^entry:
  %0 = mul %u, %v
  %1 = sub %u, %v
  br %1, ^pos, ^neg
^pos:
  jmp ^done
^neg:
  jmp ^done
^done:
  %r = phi [%0, ^pos], [%u, ^neg]
  ret %r
}
` },
  mtlx: { lang: 'mtlx', src: `<?xml version="1.0"?>
<materialx version="1.38">
  <!-- Ripples: rings that move out from the centre with time,
       over a checkerboard. The program's inputs: texcoord (the
       pixel's u, v), then time (t): no interface inputs. -->
  <nodegraph name="ripples">
    <texcoord name="uv" type="vector2"/>
    <time name="t" type="float"/>
    <distance name="d" type="float">
      <input name="in1" type="vector2" nodename="uv"/>
      <input name="in2" type="vector2" value="0.5, 0.5"/>
    </distance>
    <multiply name="rings" type="float">
      <input name="in1" type="float" nodename="d"/>
      <input name="in2" type="float" value="40"/>
    </multiply>
    <multiply name="speed" type="float">
      <input name="in1" type="float" nodename="t"/>
      <input name="in2" type="float" value="3"/>
    </multiply>
    <subtract name="phase" type="float">
      <input name="in1" type="float" nodename="rings"/>
      <input name="in2" type="float" nodename="speed"/>
    </subtract>
    <sin name="wave" type="float">
      <input name="in" type="float" nodename="phase"/>
    </sin>
    <remap name="w" type="float">
      <input name="in" type="float" nodename="wave"/>
      <input name="inlow" type="float" value="-1"/>
    </remap>
    <checkerboard name="board" type="color3">
      <input name="color1" type="color3" value="0.1, 0.2, 0.5"/>
      <input name="color2" type="color3" value="0.2, 0.35, 0.7"/>
      <input name="uvtiling" type="vector2" value="8, 8"/>
      <input name="texcoord" type="vector2" nodename="uv"/>
    </checkerboard>
    <mix name="tint" type="color3">
      <input name="fg" type="color3" value="1.0, 0.65, 0.2"/>
      <input name="bg" type="color3" nodename="board"/>
      <input name="mix" type="float" nodename="w"/>
    </mix>
    <output name="out" type="color3" nodename="tint"/>
  </nodegraph>
</materialx>
` },
  fmas: { lang: 'fmas', src: `; FMAG assembly, run as written: r0 = u*v + t*0.25
.def mix_uv, 3, 1
    %r0 = fmag %r0, %r1, 0, 1
    %r0 = fmag %r2, 0.25, %r0, 1
` },
};
