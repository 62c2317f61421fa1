// imghist::mpi (include/imghist/mpi.hpp): the dataset pipeline on each rank's share, the sums'
// counts added by one MPI_Allreduce, their sample statistics by an exact merge (sample_parts.hpp).
#include "imghist/mpi.hpp"

#include <algorithm>

#include "collectives.hpp"
#include "sample_parts.hpp"

namespace imghist::mpi {
namespace {

// A kind of sum: its channels and layouts (what Result::can_merge compares), where it first
// appears in the paths, and what a sum keeps of its first file (size, format, backend, device)
// and the notes of all.
void put_kind(Bytes& b, std::size_t first_index, const Result& r) {
    b.put(std::uint64_t(first_index));
    b.put(r.width);
    b.put(r.height);
    b.put(r.format);
    b.put(r.backend);
    b.put(r.device);
    b.put(std::uint64_t(r.notes.size()));
    for (const std::string& note : r.notes) b.put(note);
    b.put(std::uint64_t(r.channels.size()));
    for (const ChannelHistogram& c : r.channels) {
        b.put(c.channel);
        b.put(c.layout.bins);
        b.put(c.layout.lo);
        b.put(c.layout.hi);
        b.put(c.layout.clamp);
        b.put(c.layout.closed_top);
        b.put(c.layout.integer);
        b.put(std::uint64_t(c.layout.edges.size()));
        for (double e : c.layout.edges) b.put(e);
    }
}

Result get_kind(Bytes& b, std::size_t& first_index) {
    first_index = std::size_t(b.get<std::uint64_t>());
    Result r;
    r.width = b.get<std::uint32_t>();
    r.height = b.get<std::uint32_t>();
    r.region = {0, 0, r.width, r.height};  // the CLI refuses --roi and --tiles with --mpi
    r.format = b.get<PixelFormat>();
    r.backend = b.get_string();
    r.device = b.get_string();
    r.notes.resize(std::size_t(b.get<std::uint64_t>()));
    for (std::string& note : r.notes) note = b.get_string();
    r.channels.resize(std::size_t(b.get<std::uint64_t>()));
    for (ChannelHistogram& c : r.channels) {
        c.channel = b.get<Channel>();
        c.layout.bins = b.get<std::uint32_t>();
        c.layout.lo = b.get<double>();
        c.layout.hi = b.get<double>();
        c.layout.clamp = b.get<bool>();
        c.layout.closed_top = b.get<bool>();
        c.layout.integer = b.get<bool>();
        c.layout.edges.resize(std::size_t(b.get<std::uint64_t>()));
        for (double& e : c.layout.edges) e = b.get<double>();
        c.counts.assign(c.layout.bins, 0);
    }
    return r;
}

// The uint64 slots of one sum: per channel its bins, nan, below, above, the two clipping
// counts and whether either is unknown (1 when unknown: the sum's is unknown if any is).
constexpr std::size_t kChannelExtras = 6;
std::size_t slot_count(const Result& r) {
    std::size_t n = 0;
    for (const ChannelHistogram& c : r.channels) n += c.counts.size() + kChannelExtras;
    return n;
}

void to_slots(const Result& r, std::uint64_t* slot) {
    for (const ChannelHistogram& c : r.channels) {
        slot = std::copy(c.counts.begin(), c.counts.end(), slot);
        *slot++ = c.nan;
        *slot++ = c.below;
        *slot++ = c.above;
        *slot++ = c.clipped_low_count.value_or(0);
        *slot++ = c.clipped_high_count.value_or(0);
        *slot++ = !c.clipped_low_count || !c.clipped_high_count;
    }
}

void from_slots(const std::uint64_t* slot, Result& r) {
    for (ChannelHistogram& c : r.channels) {
        std::copy(slot, slot + c.counts.size(), c.counts.begin());
        slot += c.counts.size();
        c.nan = *slot++;
        c.below = *slot++;
        c.above = *slot++;
        const std::uint64_t low = *slot++, high = *slot++;
        const bool unknown = *slot++ != 0;
        c.clipped_low_count = unknown ? std::nullopt : std::optional(low);
        c.clipped_high_count = unknown ? std::nullopt : std::optional(high);
    }
}

// The kinds of sum of every rank (`sums`, each with its first file's index in `kind_first`),
// ordered by first appearance in the input: the same list everywhere, counts still local.
std::vector<Result> kinds_of_every_rank(MPI_Comm comm, const std::vector<Result>& sums,
                                        const std::vector<std::size_t>& kind_first) {
    Bytes mine;
    for (std::size_t k = 0; k < sums.size(); ++k) put_kind(mine, kind_first[k], sums[k]);
    Bytes all{gather_bytes(comm, mine.data, -1)};
    std::vector<std::pair<std::size_t, Result>> found;
    while (!all.done()) {
        std::size_t first = 0;
        Result r = get_kind(all, first);
        found.emplace_back(first, std::move(r));
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<Result> kinds;
    for (auto& kind : found) {
        Result& r = kind.second;  // not a structured binding: clang before 16 cannot capture one in a lambda
        const auto same = std::find_if(kinds.begin(), kinds.end(), [&](const Result& s) { return s.can_merge(r); });
        if (same == kinds.end()) {
            kinds.push_back(std::move(r));
            continue;
        }
        for (std::string& note : r.notes)  // kept once each, as Result::merge does
            if (std::find(same->notes.begin(), same->notes.end(), note) == same->notes.end())
                same->notes.push_back(std::move(note));
    }
    return kinds;
}

// One reduction: the totals, then every sum's slots (zero where this rank has none); `local_to_global`
// places this rank's sums among out.sums.
void reduce_over_ranks(MPI_Comm comm, const io::DatasetSummary& local, const std::vector<int>& local_to_global,
                       DistributedSummary& out) {
    constexpr std::size_t kTotals = 4;
    std::vector<std::size_t> offsets;
    std::size_t n = kTotals;
    for (const Result& s : out.sums) {
        offsets.push_back(n);
        n += slot_count(s);
    }
    std::vector<std::uint64_t> slots(n, 0), summed(n, 0);
    slots[0] = local.files;
    slots[1] = local.counted;
    slots[2] = local.failed;
    slots[3] = local.bytes;
    for (std::size_t k = 0; k < local.sums.size(); ++k)
        to_slots(local.sums[k], slots.data() + offsets[std::size_t(local_to_global[k])]);
    check(MPI_Allreduce(slots.data(), summed.data(), int(n), MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
    out.files = std::size_t(summed[0]);
    out.counted = std::size_t(summed[1]);
    out.failed = std::size_t(summed[2]);
    out.bytes = summed[3];
    for (std::size_t g = 0; g < out.sums.size(); ++g) from_slots(summed.data() + offsets[g], out.sums[g]);
}

}  // namespace

std::vector<std::size_t> share_of(std::size_t files, int rank, int ranks) {
    std::vector<std::size_t> share;
    for (std::size_t i = std::size_t(rank); i < files; i += std::size_t(ranks)) share.push_back(i);
    return share;
}

DistributedSummary histogram_files(MPI_Comm comm, Engine& engine, const std::vector<std::string>& paths,
                                   const Request& request, const std::function<void(io::FileHistogram&)>& on_file,
                                   const io::DatasetOptions& options) {
    int ranks = 0, rank = 0;
    check(MPI_Comm_size(comm, &ranks), "MPI_Comm_size");
    check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    const std::vector<std::size_t> share = share_of(paths.size(), rank, ranks);
    std::vector<std::string> my_paths;
    for (std::size_t i : share) my_paths.push_back(paths[i]);

    // This rank's kinds of sum, in the order the pipeline makes them (Result::can_merge, first
    // match), with the first file of each.
    std::vector<std::size_t> kind_first;
    DistributedSummary out;
    std::vector<Result> firsts;  // a copy of each kind's first result, for its layout
    const io::DatasetSummary local = io::histogram_files(engine, my_paths, request, [&](io::FileHistogram& f) {
        f.index = share[f.index];
        FileSummary s{f.index, f.path, f.error, -1, PixelFormat::rgba8, 0, 0, f.file_bytes};
        if (f.result) {
            s.format = f.result->format;
            s.width = f.result->width;
            s.height = f.result->height;
            auto k = std::find_if(firsts.begin(), firsts.end(), [&](const Result& r) { return r.can_merge(*f.result); });
            if (k == firsts.end()) {
                firsts.push_back(*f.result);
                kind_first.push_back(f.index);
                k = firsts.end() - 1;
            }
            s.sum = int(k - firsts.begin());  // local for now; made global below
        }
        out.mine.push_back(std::move(s));
        if (on_file) on_file(f);
    }, options);

    out.sums = kinds_of_every_rank(comm, local.sums, kind_first);
    std::vector<int> local_to_global(local.sums.size());
    for (std::size_t k = 0; k < local.sums.size(); ++k) {
        const auto g = std::find_if(out.sums.begin(), out.sums.end(), [&](const Result& s) { return s.can_merge(local.sums[k]); });
        local_to_global[k] = int(g - out.sums.begin());
    }
    for (FileSummary& s : out.mine)
        if (s.sum >= 0) s.sum = local_to_global[std::size_t(s.sum)];
    reduce_over_ranks(comm, local, local_to_global, out);
    reduce_sample_parts(comm, local.sums, local_to_global, out.sums);
    return out;
}

std::vector<FileSummary> gather_files(MPI_Comm comm, const std::vector<FileSummary>& mine, int root) {
    Bytes b;
    for (const FileSummary& s : mine) {
        b.put(std::uint64_t(s.index));
        b.put(s.path);
        b.put(s.error);
        b.put(s.sum);
        b.put(s.format);
        b.put(s.width);
        b.put(s.height);
        b.put(s.file_bytes);
    }
    Bytes all{gather_bytes(comm, b.data, root)};
    std::vector<FileSummary> files;
    while (!all.done()) {
        FileSummary s;
        s.index = std::size_t(all.get<std::uint64_t>());
        s.path = all.get_string();
        s.error = all.get_string();
        s.sum = all.get<int>();
        s.format = all.get<PixelFormat>();
        s.width = all.get<std::uint32_t>();
        s.height = all.get<std::uint32_t>();
        s.file_bytes = all.get<std::uint64_t>();
        files.push_back(std::move(s));
    }
    std::sort(files.begin(), files.end(), [](const FileSummary& a, const FileSummary& b) { return a.index < b.index; });
    return files;
}

std::vector<io::FileHistogram> gather_histograms(MPI_Comm comm, const std::vector<io::FileHistogram>& mine, int root) {
    Bytes b;
    for (const io::FileHistogram& f : mine) {
        b.put(std::uint64_t(f.index));
        b.put(f.path);
        b.put(f.error);
        b.put(f.file_bytes);
        b.put(f.decoder);
        b.put(f.gpu_fallback);
        b.put(f.result.has_value());
        if (!f.result) continue;
        put_kind(b, f.index, *f.result);
        std::vector<std::uint64_t> slots(slot_count(*f.result));
        to_slots(*f.result, slots.data());
        for (std::uint64_t v : slots) b.put(v);
        for (const ChannelHistogram& c : f.result->channels) put_sample_part(b, c);
    }
    Bytes all{gather_bytes(comm, b.data, root)};
    std::vector<io::FileHistogram> files;
    while (!all.done()) {
        io::FileHistogram f;
        f.index = std::size_t(all.get<std::uint64_t>());
        f.path = all.get_string();
        f.error = all.get_string();
        f.file_bytes = all.get<std::uint64_t>();
        f.decoder = all.get_string();
        f.gpu_fallback = all.get_string();
        if (all.get<bool>()) {
            std::size_t first = 0;
            Result r = get_kind(all, first);
            std::vector<std::uint64_t> slots(slot_count(r));
            for (std::uint64_t& v : slots) v = all.get<std::uint64_t>();
            from_slots(slots.data(), r);
            for (ChannelHistogram& c : r.channels) get_sample_part(all, c);
            f.result = std::move(r);
        }
        files.push_back(std::move(f));
    }
    std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
    return files;
}

}  // namespace imghist::mpi
