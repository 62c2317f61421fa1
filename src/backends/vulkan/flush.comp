// Moves the 32-bit work counters into the 64-bit totals and zeroes them, so no 32-bit counter
// ever holds more than one dispatch (< 2^31 pixels). `overwrite` starts the totals afresh, so
// a caller's result buffer needs no clearing.
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Counts { uint counts[]; };
layout(std430, binding = 1) buffer Totals { uint64_t totals[]; };

layout(push_constant) uniform Params {
    uint slots;       // counters to move
    uint overwrite;   // 1: totals = counts; 0: totals += counts
    uint first_total; // index of the first total inside the bound range
} pc;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.slots) return;
    uint64_t v = uint64_t(counts[i]);
    counts[i] = 0u;
    uint t = pc.first_total + i;
    totals[t] = pc.overwrite != 0u ? v : totals[t] + v;
}
