/* masked_select, first two passes: count per block, then an exclusive scan of the counts whose total lands in
 * offsets[nblocks] (the one number the host reads back to size the result). */
__kernel void ms_count(long n, long block, __global const uchar* mask, __global long* counts)
{
    long b = get_global_id(0), i, end, c = 0;
    if (b * block >= n) return;
    end = min(n, (b + 1) * block);
    for (i = b * block; i < end; ++i) c += mask[i] ? 1 : 0;
    counts[b] = c;
}

__kernel void ms_scan(long nblocks, __global const long* counts, __global long* offsets)
{
    long b, s = 0;
    if (get_global_id(0) != 0) return;
    for (b = 0; b < nblocks; ++b) {
        offsets[b] = s;
        s += counts[b];
    }
    offsets[nblocks] = s;
}
