// numpy .npz files written without a dependency: a zip archive (stored, not compressed) of .npy arrays, which
// numpy.load reads with allow_pickle=False. Columns of per-toy results go there (hfcore toys --per-toy).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hf::cli {

class NpzWriter {
public:
    using Shape = std::vector<std::int64_t>;
    // float64 ('<f8'), bool ('|b1', one byte 0/1), int64 ('<i8') and unicode strings ('<U' of the longest).
    // InputError when the values do not fill `shape`.
    void add(const std::string& name, const Shape& shape, const std::vector<double>& values);
    void add_bool(const std::string& name, const Shape& shape, const std::vector<std::uint8_t>& values);
    void add(const std::string& name, const Shape& shape, const std::vector<std::int64_t>& values);
    void add(const std::string& name, const std::vector<std::string>& values);
    // The archive's bytes: entries "<name>.npy" in the order added, a fixed timestamp (the same run gives the
    // same file).
    std::string bytes() const;

private:
    struct Entry {
        std::string name;
        std::string data;  // the .npy file
    };
    void add_raw(const std::string& name, const std::string& descr, const Shape& shape, std::size_t count,
                 const void* data, std::size_t item_size);
    std::vector<Entry> entries_;
};

}  // namespace hf::cli
