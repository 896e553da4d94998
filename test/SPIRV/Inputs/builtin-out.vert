#version 450
layout(location=0) in vec3 p;
layout(location=0) out vec3 c;
void main() { gl_Position = vec4(p, 1.0); c = p * 2.0; }
