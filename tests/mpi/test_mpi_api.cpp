// imghist::mpi under mpirun -np 2 (its own main): the reduced sums equal one process's over the
// same files, errors stay out of them and are gathered on rank 0, and a rank with no file joins.
#include <gtest/gtest.h>
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "imghist/imghist.hpp"
#include "imghist/mpi.hpp"

namespace fs = std::filesystem;
using namespace imghist;

namespace {

int rank_of_world() {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

// A binary PGM, 8- or 16-bit, of pixel values that differ from file to file.
std::string write_pgm(const fs::path& dir, int n, bool deep) {
    const int width = 5 + n, height = 3 + n % 4, max = deep ? 65535 : 255;
    const fs::path path = dir / ("f" + std::to_string(n) + (deep ? "_16" : "") + ".pgm");
    std::ofstream out(path, std::ios::binary);
    out << "P5\n" << width << ' ' << height << '\n' << max << '\n';
    for (int i = 0; i < width * height; ++i) {
        const int v = (i * 37 + n * 11) % (max + 1);
        if (deep) out.put(char(v >> 8));
        out.put(char(v & 0xff));
    }
    return path.string();
}

// The same paths on every rank: rank 0 writes them to a folder all ranks see.
std::vector<std::string> dataset(std::size_t good) {
    const fs::path dir = fs::temp_directory_path() / "imghist_mpi_api_test";
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < good; ++i) paths.push_back((dir / ("f" + std::to_string(i) + (i % 3 == 2 ? "_16" : "") + ".pgm")).string());
    paths.insert(paths.begin() + std::ptrdiff_t(paths.size() / 2), (dir / "missing.pgm").string());
    if (rank_of_world() == 0) {
        fs::create_directories(dir);
        for (std::size_t i = 0; i < good; ++i) write_pgm(dir, int(i), i % 3 == 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return paths;
}

void expect_like_one_process(const std::vector<std::string>& paths) {
    auto engine = create_engine("cpu");
    const io::DatasetSummary alone = io::histogram_files(*engine, paths, Request{}, [](io::FileHistogram&) {});
    std::vector<std::size_t> seen;
    const mpi::DistributedSummary summary = mpi::histogram_files(
        MPI_COMM_WORLD, *engine, paths, Request{}, [&](io::FileHistogram& f) { seen.push_back(f.index); });
    EXPECT_EQ(seen, mpi::share_of(paths.size(), rank_of_world(), [] { int n; MPI_Comm_size(MPI_COMM_WORLD, &n); return n; }()));
    ASSERT_EQ(summary.sums.size(), alone.sums.size());
    for (std::size_t g = 0; g < alone.sums.size(); ++g) EXPECT_TRUE(summary.sums[g].same_histograms(alone.sums[g])) << g;
    EXPECT_EQ(summary.files, alone.files);
    EXPECT_EQ(summary.counted, alone.counted);
    EXPECT_EQ(summary.failed, alone.failed);
    const std::vector<mpi::FileSummary> files = mpi::gather_files(MPI_COMM_WORLD, summary.mine);
    if (rank_of_world() != 0) {
        EXPECT_TRUE(files.empty());
        return;
    }
    ASSERT_EQ(files.size(), paths.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        EXPECT_EQ(files[i].index, i);
        EXPECT_EQ(files[i].path, paths[i]);
        EXPECT_EQ(files[i].error.empty(), files[i].path.find("missing") == std::string::npos);
        EXPECT_EQ(files[i].sum < 0, !files[i].error.empty());
    }
}

TEST(Mpi, SumsAndErrorsLikeOneProcess) { expect_like_one_process(dataset(9)); }

TEST(Mpi, ARankWithoutFilesJoinsTheReduction) { expect_like_one_process(dataset(0)); }  // one missing file

TEST(Mpi, SharesAreRoundRobin) {
    EXPECT_EQ(mpi::share_of(7, 1, 3), (std::vector<std::size_t>{1, 4}));
    EXPECT_TRUE(mpi::share_of(1, 1, 2).empty());
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    // Only rank 0 prints; every rank runs every test, since each is collective.
    if (rank_of_world() != 0) delete ::testing::UnitTest::GetInstance()->listeners().Release(
        ::testing::UnitTest::GetInstance()->listeners().default_result_printer());
    int failed = RUN_ALL_TESTS();
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return failed;
}
