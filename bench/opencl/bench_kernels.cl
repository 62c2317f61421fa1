/*
 * Kernels the OpenCL benchmark times beside imghist's own (OpenCL C 1.2).
 *
 * read_floor: reads every byte of the image once (16-byte loads) and nothing else: the floor
 *   no histogram kernel can beat.
 * seed_partial_14_2 / seed_partial_14_5 / seed_sum_14_3: the seed's Listings 14.2, 14.5 and
 *   14.3, ported from image2d_t to plain buffers. On NVIDIA's driver the seed's
 *   read_imagef with an inline sampler returns 0 for every pixel, so the original kernels
 *   cannot be timed meaningfully there; the port reads each RGBA8 pixel as a uchar4 (which
 *   also removes the convert_uchar_sat truncation defect). Everything else - 2D work-groups
 *   from the device's work-group size, one partial histogram of 256 * 3 bins per work-group
 *   in local memory updated with atomic_inc, num_pixels_per_workitem in 14.5, and the 768
 *   work-item summing kernel - is the seed's.
 */

kernel void read_floor(global const uint4* data, ulong n, global uint* out)
{
    uint4 acc = (uint4)(0u);
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) acc ^= data[i];
    const uint r = acc.x ^ acc.y ^ acc.z ^ acc.w;
    if (r == 0x9E3779B9u) out[0] = r; /* keeps the loads; practically never true */
}

/* Listing 14.2, one pixel per work-item. */
kernel void seed_partial_14_2(global const uchar4* img, int image_width, int image_height,
                              global uint* histogram)
{
    int local_size = (int)get_local_size(0) * (int)get_local_size(1);
    int group_indx = (get_group_id(1) * get_num_groups(0) + get_group_id(0)) * 256 * 3;
    int x = get_global_id(0);
    int y = get_global_id(1);
    local uint tmp_histogram[256 * 3];
    int tid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    int j = 256 * 3;
    int indx = 0;
    do {
        if (tid < j) tmp_histogram[indx + tid] = 0;
        j -= local_size;
        indx += local_size;
    } while (j > 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    if ((x < image_width) && (y < image_height)) {
        uchar4 clr = img[(size_t)y * image_width + x];
        atomic_inc(&tmp_histogram[clr.x]);
        atomic_inc(&tmp_histogram[256 + (uint)clr.y]);
        atomic_inc(&tmp_histogram[512 + (uint)clr.z]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (local_size >= (256 * 3)) {
        if (tid < (256 * 3)) histogram[group_indx + tid] = tmp_histogram[tid];
    } else {
        j = 256 * 3;
        indx = 0;
        do {
            if (tid < j) histogram[group_indx + indx + tid] = tmp_histogram[indx + tid];
            j -= local_size;
            indx += local_size;
        } while (j > 0);
    }
}

/* Listing 14.5, num_pixels_per_workitem pixels per work-item along x. */
kernel void seed_partial_14_5(global const uchar4* img, int image_width, int image_height,
                              int num_pixels_per_workitem, global uint* partial_histogram)
{
    int local_size = (int)get_local_size(0) * (int)get_local_size(1);
    int group_indx = (get_group_id(1) * get_num_groups(0) + get_group_id(0)) * 256 * 3;
    int x = get_global_id(0);
    int y = get_global_id(1);
    local uint tmp_histogram[256 * 3];
    int tid = get_local_id(1) * get_local_size(0) + get_local_id(0);
    int j = 256 * 3;
    int indx = 0;
    do {
        if (tid < j) tmp_histogram[indx + tid] = 0;
        j -= local_size;
        indx += local_size;
    } while (j > 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    int i, idx;
    for (i = 0, idx = x; i < num_pixels_per_workitem; i++, idx += get_global_size(0)) {
        if ((idx < image_width) && (y < image_height)) {
            uchar4 clr = img[(size_t)y * image_width + idx];
            atomic_inc(&tmp_histogram[clr.x]);
            atomic_inc(&tmp_histogram[256 + (uint)clr.y]);
            atomic_inc(&tmp_histogram[512 + (uint)clr.z]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (local_size >= (256 * 3)) {
        if (tid < (256 * 3)) partial_histogram[group_indx + tid] = tmp_histogram[tid];
    } else {
        j = 256 * 3;
        indx = 0;
        do {
            if (tid < j) partial_histogram[group_indx + indx + tid] = tmp_histogram[indx + tid];
            j -= local_size;
            indx += local_size;
        } while (j > 0);
    }
}

/* Listing 14.3 (correct for the 8-bit case): 768 work-items, each summing one bin. */
kernel void seed_sum_14_3(global uint* partial_histogram, int num_groups, global uint* histogram)
{
    int tid = (int)get_global_id(0);
    int group_indx;
    int n = num_groups;
    local uint tmp_histogram[256 * 3];
    tmp_histogram[tid] = partial_histogram[tid];
    group_indx = 256 * 3;
    while (--n > 0) {
        tmp_histogram[tid] += partial_histogram[group_indx + tid];
        group_indx += 256 * 3;
    }
    histogram[tid] = tmp_histogram[tid];
}
