// Lexical errors of integer literals (test/SL/diag-int.sl).
export f32 f(f32 x) {
    u32 a = 4294967296u;
    i32 b = 0x100000000;
    i32 c = 0x;
    u32 d = 1.5u;
    u32 e = 7uu;
    i32 g = 0xFFg;
    uint h = 1u;
    return x;
}
