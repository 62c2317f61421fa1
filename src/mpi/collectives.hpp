// The byte encoding and the one gather that imghist::mpi's collectives share (mpi.cpp,
// sample_parts.cpp).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace imghist::mpi {

// Throws std::runtime_error naming the MPI call when rc is not MPI_SUCCESS.
void check(int rc, const char* what);

// Plain bytes for the collectives that move layouts, file lists and sample statistics (every
// rank runs one build, so no byte order or padding question arises).
struct Bytes {
    std::vector<char> data;
    std::size_t read_at = 0;
    template <class T> void put(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const char* p = reinterpret_cast<const char*>(&v);
        data.insert(data.end(), p, p + sizeof v);
    }
    void put(const std::string& s) {
        put(std::uint64_t(s.size()));
        data.insert(data.end(), s.begin(), s.end());
    }
    template <class T> T get() {
        T v;
        std::memcpy(&v, data.data() + read_at, sizeof v);
        read_at += sizeof v;
        return v;
    }
    std::string get_string() {
        const auto n = std::size_t(get<std::uint64_t>());
        std::string s(data.data() + read_at, n);
        read_at += n;
        return s;
    }
    bool done() const { return read_at >= data.size(); }
};

// Every rank's bytes, concatenated in rank order, on every rank (root < 0) or on root only.
std::vector<char> gather_bytes(MPI_Comm comm, const std::vector<char>& mine, int root);

}  // namespace imghist::mpi
