// The seed's shader as printed (../shared/seeds/glsl-luminance-histogram.txt): 16x16
// work-groups, a shared uint[256], fp32 Rec. 709 luminance from an rgba8 storage image, shared
// atomicAdd, then a global atomicAdd per non-zero bin. Timed for comparison only: its fp32
// luminance differs from the contract for some colours.
#version 450
layout(local_size_x = 16, local_size_y = 16) in;

shared uint localHistogram[256];

layout(binding = 0, rgba8) uniform readonly image2D inputImage;
layout(std430, binding = 1) buffer HistogramBuffer {
    uint globalHistogram[256];
};

void main() {
    uint localIndex = gl_LocalInvocationIndex;
    localHistogram[localIndex] = 0u;
    barrier();

    ivec2 pixelCoord = ivec2(gl_GlobalInvocationID.xy);
    ivec2 imgSize = imageSize(inputImage);

    if (pixelCoord.x < imgSize.x && pixelCoord.y < imgSize.y) {
        vec4 color = imageLoad(inputImage, pixelCoord);
        float luma = dot(color.rgb, vec3(0.2126, 0.7152, 0.0722));
        uint bin = uint(clamp(luma * 255.0, 0.0, 255.0));

        atomicAdd(localHistogram[bin], 1u);
    }

    barrier();

    uint binValue = localHistogram[localIndex];
    if (binValue > 0u) {
        atomicAdd(globalHistogram[localIndex], binValue);
    }
}
