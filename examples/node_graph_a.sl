// demo-input: 0.3,0.7,0.2,0.9
// A node-graph chain as an artist tool would emit it: remap, multiply, clamp,
// power, blend, add.
export f32 node_graph_a(f32 in0, f32 in1, f32 in2, f32 in3) {
    f32 n1 = (in0 - 0.1) / (0.9 - 0.1);
    f32 n2 = n1 * in1;
    f32 n3 = clamp(n2, 0.0, 1.0);
    f32 n4 = pow(n3, 2.2);
    f32 n5 = mix(n4, in2, in3);
    f32 n6 = n5 + 0.05 * in0;
    f32 n7 = smoothstep(0.0, 1.0, n6);
    f32 n8 = n7 * n7 + n6 * (1.0 - n7);
    return n8;
}
