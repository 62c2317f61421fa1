// The collectives' shared pieces (collectives.hpp).
#include "collectives.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace imghist::mpi {

void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw std::runtime_error(std::string("imghist::mpi: ") + what + " failed: " + std::string(text, std::size_t(length)));
}

std::vector<char> gather_bytes(MPI_Comm comm, const std::vector<char>& mine, int root) {
    int ranks = 0, rank = 0;
    check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
    check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    // MPI counts are ints. Every rank learns every size (in 64 bits) first, so a gather over
    // 2 GiB is refused by name on all ranks together, never truncated and never left hanging.
    constexpr std::uint64_t kMaxGather = std::uint64_t(std::numeric_limits<int>::max());
    const std::uint64_t mine_size = mine.size();
    std::vector<std::uint64_t> sizes64(static_cast<std::size_t>(ranks));
    check(MPI_Allgather(&mine_size, 1, MPI_UINT64_T, sizes64.data(), 1, MPI_UINT64_T, comm), "MPI_Allgather");
    std::vector<int> sizes(static_cast<std::size_t>(ranks)), offsets(static_cast<std::size_t>(ranks));
    std::uint64_t total64 = 0;
    for (int r = 0; r < ranks; ++r) {
        if (total64 + sizes64[std::size_t(r)] > kMaxGather)
            throw std::runtime_error("imghist::mpi: the ranks' per-file results exceed 2 GiB in one gather; use "
                                     "--sum-only (sums and errors only)");
        offsets[std::size_t(r)] = int(total64);
        sizes[std::size_t(r)] = int(sizes64[std::size_t(r)]);
        total64 += sizes64[std::size_t(r)];
    }
    const int size = int(mine_size);
    const int total = int(total64);
    std::vector<char> all(std::size_t(std::max(total, 1)));
    if (root < 0)
        check(MPI_Allgatherv(mine.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, comm),
              "MPI_Allgatherv");
    else
        check(MPI_Gatherv(mine.data(), size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, root, comm),
              "MPI_Gatherv");
    all.resize(root < 0 || rank == root ? std::size_t(total) : 0);
    return all;
}

}  // namespace imghist::mpi
