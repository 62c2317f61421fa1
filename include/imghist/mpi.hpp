// One dataset's histogram over many processes (imghist::mpi, built where MPI is found): the
// files are split over the ranks of a communicator, each rank runs the dataset pipeline
// (dataset.hpp) on its share, and the sums are added with one MPI_Allreduce of their uint64
// counts; their sample statistics and value extremes (Request::sample_stats, value_extremes)
// are gathered losslessly and added as Result::merge adds them, so the sums equal one
// process's bit for bit. Per-file errors never enter the sums; a rank whose files all fail, or
// that has no file, still joins the reduction.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "imghist/dataset.hpp"

namespace imghist::mpi {

// One file's outcome without its counts: what rank 0 needs to list the files and errors.
struct FileSummary {
    std::size_t index = 0;  // position in the list of paths (of every rank)
    std::string path;
    std::string error;      // empty when counted
    int sum = -1;           // the index in DistributedSummary::sums it was added to; -1 on error
    PixelFormat format = PixelFormat::rgba8;
    std::uint32_t width = 0, height = 0;
    std::uint64_t file_bytes = 0;
};

struct DistributedSummary {
    // The exact sums over every rank's files, the same on every rank, in the order each kind of
    // histogram first appears in `paths` (as io::histogram_files orders them), each with the
    // width, height, format, backend and device of its first file and the notes of all; the
    // exact sample moments, and the percentiles where Result::merge can give them (absent elsewhere).
    std::vector<Result> sums;
    std::size_t files = 0, counted = 0, failed = 0;  // over every rank
    std::uint64_t bytes = 0;
    std::vector<FileSummary> mine;  // this rank's files, in input order
};

// The indices of `paths` that `rank` of `ranks` counts: round-robin (i % ranks == rank), so a
// sorted dataset whose file sizes grow along the list still gives every rank a like share.
std::vector<std::size_t> share_of(std::size_t files, int rank, int ranks);

// Collective: every rank of `comm` calls it with the same `paths` and `request`. `on_file` is
// called on each rank for that rank's files, in input order, with FileHistogram::index the
// file's position in `paths`. Throws what io::histogram_files throws before any file is read
// (every rank then throws alike), and std::runtime_error when an MPI call fails.
DistributedSummary histogram_files(MPI_Comm comm, Engine& engine, const std::vector<std::string>& paths,
                                   const Request& request,
                                   const std::function<void(io::FileHistogram&)>& on_file = {},
                                   const io::DatasetOptions& options = {});

// Collective: every rank's `mine` gathered on `root`, in input order (other ranks get nothing).
std::vector<FileSummary> gather_files(MPI_Comm comm, const std::vector<FileSummary>& mine, int root = 0);

// Collective: every rank's per-file results (kept from on_file, counts and all) gathered on
// `root`, in input order. Costs what the results weigh (about 8 KB a file of 4 channels x 256
// bins), so it is for runs that want every file's histogram on one rank.
std::vector<io::FileHistogram> gather_histograms(MPI_Comm comm, const std::vector<io::FileHistogram>& mine,
                                                 int root = 0);

}  // namespace imghist::mpi
