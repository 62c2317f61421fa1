// imghist::mpi under mpirun (its own main): the reduced sums equal one process's over the same
// files, sample statistics and value extremes included, whatever the order of the ranks; errors
// stay out of them and are gathered on rank 0, and a rank with no file joins.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
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

// A little-endian PFM of float RGB values past [0, 1] and below 0, with the values exact sums
// must get right (±0, a denormal, the largest float) and NaN and ±Inf, which they leave out.
std::string write_pfm(const fs::path& dir, int n) {
    const int width = 4 + n % 3, height = 2 + n % 2;
    const fs::path path = dir / ("f" + std::to_string(n) + ".pfm");
    std::ofstream out(path, std::ios::binary);
    out << "PF\n" << width << ' ' << height << "\n-1.0\n";
    const float specials[] = {-0.0f, 0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity()};
    for (int i = 0; i < width * height * 3; ++i) {
        const float v = i % 5 == n % 5 ? specials[(i / 5 + n) % 7] : float((i * 37 + n * 11) % 97) / 29.0f - 0.5f;
        char bytes[sizeof v];
        std::memcpy(bytes, &v, sizeof v);
        out.write(bytes, sizeof v);
    }
    return path.string();
}

// The same paths on every rank: rank 0 writes them to a folder all ranks see. 8- and 16-bit
// PGMs, and with `floats` PFMs among them.
std::vector<std::string> dataset(std::size_t good, bool floats = false) {
    const fs::path dir = fs::temp_directory_path() / "imghist_mpi_api_test";
    const auto kind = [&](std::size_t i) { return floats ? i % 3 : i % 3 == 2 ? 1 : 0; };  // 0 8-bit, 1 16-bit, 2 float
    const auto name = [&](std::size_t i) {
        return "f" + std::to_string(i) + (kind(i) == 2 ? ".pfm" : kind(i) == 1 ? "_16.pgm" : ".pgm");
    };
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < good; ++i) paths.push_back((dir / name(i)).string());
    paths.insert(paths.begin() + std::ptrdiff_t(paths.size() / 2), (dir / "missing.pgm").string());
    if (rank_of_world() == 0) {
        fs::create_directories(dir);
        for (std::size_t i = 0; i < good; ++i) kind(i) == 2 ? write_pfm(dir, int(i)) : write_pgm(dir, int(i), kind(i) == 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return paths;
}

// Every statistic: the sample moments, percentiles and value extremes asked for.
Request with_sample_stats() {
    Request request;
    request.sample_stats = true;
    request.value_extremes = true;
    request.percentiles = {0, 1, 25, 50, 99.9, 100};
    return request;
}

int size_of(MPI_Comm comm) {
    int n = 0;
    MPI_Comm_size(comm, &n);
    return n;
}

int rank_of(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

void expect_like_one_process(const std::vector<std::string>& paths, const Request& request = {},
                             MPI_Comm comm = MPI_COMM_WORLD) {
    auto engine = create_engine("cpu");
    std::vector<Result> alone_files;
    const io::DatasetSummary alone = io::histogram_files(*engine, paths, request, [&](io::FileHistogram& f) {
        if (f.result) alone_files.push_back(*f.result);
    });
    std::vector<std::size_t> seen;
    std::vector<io::FileHistogram> mine;
    const mpi::DistributedSummary summary = mpi::histogram_files(comm, *engine, paths, request, [&](io::FileHistogram& f) {
        seen.push_back(f.index);
        mine.push_back(f);
    });
    EXPECT_EQ(seen, mpi::share_of(paths.size(), rank_of(comm), size_of(comm)));
    ASSERT_EQ(summary.sums.size(), alone.sums.size());
    for (std::size_t g = 0; g < alone.sums.size(); ++g) EXPECT_TRUE(summary.sums[g].same_histograms(alone.sums[g])) << g;
    EXPECT_EQ(summary.files, alone.files);
    EXPECT_EQ(summary.counted, alone.counted);
    EXPECT_EQ(summary.failed, alone.failed);
    // Every file's result gathered on rank 0, sample statistics too.
    const std::vector<io::FileHistogram> gathered = mpi::gather_histograms(comm, mine, 0);
    std::vector<Result> gathered_files;
    for (const io::FileHistogram& f : gathered)
        if (f.result) gathered_files.push_back(*f.result);
    if (rank_of(comm) == 0) {
        ASSERT_EQ(gathered_files.size(), alone_files.size());
        for (std::size_t i = 0; i < alone_files.size(); ++i) EXPECT_TRUE(gathered_files[i].same_histograms(alone_files[i])) << i;
    }
    const std::vector<mpi::FileSummary> files = mpi::gather_files(comm, summary.mine);
    if (rank_of(comm) != 0) {
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

TEST(Mpi, SampleStatisticsLikeOneProcess) {
    const std::vector<std::string> paths = dataset(14, true);
    expect_like_one_process(paths, with_sample_stats());
    // The 8-bit sum's percentiles come from its summed counts; the float sum has none to give.
    auto engine = create_engine("cpu");
    const mpi::DistributedSummary summary = mpi::histogram_files(MPI_COMM_WORLD, *engine, paths, with_sample_stats());
    ASSERT_EQ(summary.sums.size(), 3u);
    EXPECT_EQ(summary.sums[0].channels[0].sample_percentiles.size(), 6u);
    EXPECT_TRUE(summary.sums[2].channels[0].sample_percentiles.empty());
    EXPECT_TRUE(summary.sums[2].channels[0].finite_max.has_value());
}

TEST(Mpi, SampleStatisticsLikeOneProcessWhateverTheRankOrder) {
    const std::vector<std::string> paths = dataset(14, true);
    MPI_Comm reversed;  // the ranks numbered backwards: other shares, added in another order
    MPI_Comm_split(MPI_COMM_WORLD, 0, size_of(MPI_COMM_WORLD) - rank_of_world(), &reversed);
    expect_like_one_process(paths, with_sample_stats(), reversed);
    MPI_Comm_free(&reversed);
}

TEST(Mpi, ARankWithoutFilesJoinsWithSampleStatistics) { expect_like_one_process(dataset(1, true), with_sample_stats()); }

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
