// demo-input: 0.2,0.9
// Node graph with conditional nodes: thresholds feeding if/else chains.
export f32x4 node_graph_d(f32 height, f32 moisture) {
    f32x3 col;
    if (height < 0.3) {
        col = f32x3(0.1, 0.2, 0.6);       // water
    } else if (height < 0.35) {
        col = f32x3(0.8, 0.75, 0.5);      // sand
    } else if (moisture > 0.6 && height < 0.7) {
        col = f32x3(0.1, 0.5, 0.15);      // forest
    } else if (height > 0.85) {
        col = f32x3(0.95);                // snow
    } else {
        col = f32x3(0.45, 0.4, 0.35);     // rock
    }
    f32 shade = 0.7 + 0.3 * height;
    return f32x4(col * shade, 1.0);
}
