// What a channel says of its samples beyond the counts (the sample moments and percentiles, the
// value extremes): encoded losslessly for the collectives, and added over the ranks by
// Result::merge's own rules, so that a sum over ranks is the sum one process makes.
#pragma once

#include <vector>

#include "collectives.hpp"
#include "imghist/result.hpp"

namespace imghist::mpi {

// Every field exactly: the exact sums as their limbs, the doubles as their bits.
void put_sample_part(Bytes& b, const ChannelHistogram& c);
void get_sample_part(Bytes& b, ChannelHistogram& c);

// Collective: `sums` (every rank's, counts already reduced) get the sample parts of every
// rank's `local` sums, `local_to_global[k]` naming the sum that local[k] belongs to. Added in
// rank order on every rank; the exact merge makes any order give the same bits.
void reduce_sample_parts(MPI_Comm comm, const std::vector<Result>& local, const std::vector<int>& local_to_global,
                         std::vector<Result>& sums);

}  // namespace imghist::mpi
