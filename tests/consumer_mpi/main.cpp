// Counts the files named on the command line over the ranks of MPI_COMM_WORLD with an installed
// imghist::mpi, and prints what rank 0 gathered.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "imghist/mpi.hpp"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const std::vector<std::string> paths(argv + 1, argv + argc);
    auto engine = imghist::create_engine("cpu");
    const imghist::mpi::DistributedSummary summary =
        imghist::mpi::histogram_files(MPI_COMM_WORLD, *engine, paths, imghist::Request{});
    const auto files = imghist::mpi::gather_files(MPI_COMM_WORLD, summary.mine);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        std::printf("consumer_mpi: imghist::mpi works: %zu files, %zu counted, %zu failed", summary.files,
                    summary.counted, summary.failed);
        for (const auto& f : files)
            if (!f.error.empty()) std::printf(" (%s: %s)", f.path.c_str(), f.error.c_str());
        std::printf("\n");
    }
    MPI_Finalize();
    return summary.files == paths.size() ? 0 : 1;
}
