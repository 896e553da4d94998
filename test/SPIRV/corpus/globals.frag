// A fragment shader with a main(): inputs are the global `in` and `uniform` variables in
// declaration order, outputs the global `out` variables.
#version 450

layout(location = 0) in vec2 vUV;
uniform float uTime;
layout(location = 1) in vec3 vNormal;
uniform sampler2D uUnused;      // opaque: not an input
layout(location = 0) out vec4 outColor;
layout(location = 1) out float outDepth;

void main()
{
    vec3 n = normalize(vNormal);
    float pulse = 0.5 + 0.5 * sin(uTime);
    outColor = vec4(vUV * pulse, n.z * 0.5 + 0.5, 1.0);
    outDepth = vUV.x * vUV.y;
}
