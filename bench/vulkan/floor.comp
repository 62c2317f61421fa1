// The floor: read every byte of the image once (uvec4 loads, as the histogram shader) and do
// nothing else. A store that never happens keeps the loads alive.
#version 450
layout(local_size_x = 256) in;
layout(constant_id = 0) const uint PER_INVOCATION = 4;  // uvec4 loads per invocation

layout(std430, binding = 0) readonly buffer Data { uvec4 data[]; };
layout(std430, binding = 1) buffer Sink { uint sink[]; };
layout(push_constant) uniform Params { uint count; } pc;  // uvec4s in the image

void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    uint base = group * 256u * PER_INVOCATION + gl_LocalInvocationIndex;
    uvec4 acc = uvec4(0u);
    for (uint k = 0u; k < PER_INVOCATION; ++k) {
        uint i = base + k * 256u;
        if (i < pc.count) acc ^= data[i];
    }
    uint v = acc.x ^ acc.y ^ acc.z ^ acc.w;
    if (v == 0x9E3779B9u) sink[0] = v;
}
