// demo-input: 0.5
// Several exports in one file: each becomes one program of the .fmag.
f32 tri(f32 x) { return abs(fract(x) * 2.0 - 1.0); }
export f32 wave_tri(f32 x) { return tri(x); }
export f32 wave_square(f32 x) { return step(0.5, fract(x)); }
export f32 wave_saw(f32 x) { return fract(x); }
export f32 wave_sine(f32 x) { return sin(x * 6.28318531) * 0.5 + 0.5; }
