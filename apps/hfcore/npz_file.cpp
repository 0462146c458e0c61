// The .npy format (numpy's format.py, version 1.0): magic, a little-endian header length, a Python dict literal
// padded with spaces to a multiple of 64 bytes, then the raw C-order data. The .npz container is a plain zip.
#include "npz_file.hpp"

#include <array>
#include <cstring>

#include "hfcore/errors.hpp"

namespace hf::cli {

namespace {

void npz_put16(std::string& out, std::uint32_t v) {
    out.push_back(static_cast<char>(v & 0xff));
    out.push_back(static_cast<char>((v >> 8) & 0xff));
}

void npz_put32(std::string& out, std::uint32_t v) {
    npz_put16(out, v & 0xffff);
    npz_put16(out, v >> 16);
}

std::uint32_t npz_crc32(const std::string& data) {
    static const auto table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xffffffffu;
    for (unsigned char b : data) c = table[(c ^ b) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

std::string npz_shape_literal(const NpzWriter::Shape& shape) {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

std::size_t npz_element_count(const NpzWriter::Shape& shape) {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
}

// UTF-8 to code points (invalid bytes are kept as themselves, as Latin-1).
std::vector<std::uint32_t> npz_code_points(const std::string& s) {
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < s.size();) {
        const auto b = static_cast<unsigned char>(s[i]);
        const int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
        bool ok = len > 0 && i + static_cast<std::size_t>(len) <= s.size();
        std::uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
        for (int k = 1; ok && k < len; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            ok = (c >> 6) == 2;
            cp = (cp << 6) | (c & 0x3f);
        }
        out.push_back(ok ? cp : b);
        i += ok ? static_cast<std::size_t>(len) : 1;
    }
    return out;
}

}  // namespace

void NpzWriter::add_raw(const std::string& name, const std::string& descr, const Shape& shape, std::size_t count,
                        const void* data, std::size_t item_size) {
    if (count != npz_element_count(shape))
        throw Error("npz entry '" + name + "': " + std::to_string(count) + " values for the shape " +
                    npz_shape_literal(shape));
    std::string header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + npz_shape_literal(shape) + ", }";
    const std::size_t preamble = 10;  // magic (6), version (2), header length (2)
    header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
    header.push_back('\n');
    std::string npy("\x93NUMPY\x01\x00", 8);
    npz_put16(npy, static_cast<std::uint32_t>(header.size()));
    npy += header;
    npy.append(static_cast<const char*>(data), count * item_size);
    entries_.push_back({name + ".npy", std::move(npy)});
}

void NpzWriter::add(const std::string& name, const Shape& shape, const std::vector<double>& values) {
    static_assert(sizeof(double) == 8);
    add_raw(name, "<f8", shape, values.size(), values.data(), 8);
}

void NpzWriter::add_bool(const std::string& name, const Shape& shape, const std::vector<std::uint8_t>& values) {
    std::vector<std::uint8_t> bits(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = values[i] ? 1 : 0;
    add_raw(name, "|b1", shape, bits.size(), bits.data(), 1);
}

void NpzWriter::add(const std::string& name, const Shape& shape, const std::vector<std::int64_t>& values) {
    add_raw(name, "<i8", shape, values.size(), values.data(), 8);
}

void NpzWriter::add(const std::string& name, const std::vector<std::string>& values) {
    std::vector<std::vector<std::uint32_t>> cps;
    std::size_t width = 1;
    for (const auto& v : values) {
        cps.push_back(npz_code_points(v));
        width = std::max(width, cps.back().size());
    }
    std::string raw;
    for (const auto& c : cps)
        for (std::size_t i = 0; i < width; ++i) npz_put32(raw, i < c.size() ? c[i] : 0);
    add_raw(name, "<U" + std::to_string(width), {static_cast<std::int64_t>(values.size())}, values.size(),
            raw.data(), 4 * width);
}

std::string NpzWriter::bytes() const {
    // Stored entries, version 2.0, 1980-01-01 00:00 (no clock in the file), no extra fields.
    const std::uint32_t kDate = (0u << 9) | (1u << 5) | 1u;
    std::string out, central;
    for (const auto& e : entries_) {
        if (e.data.size() >= 0xffffffffu || out.size() >= 0xffffffffu)
            throw Error("npz entry '" + e.name + "': over 4 GiB (zip64 is not written)");
        const std::uint32_t crc = npz_crc32(e.data), size = static_cast<std::uint32_t>(e.data.size());
        const auto offset = static_cast<std::uint32_t>(out.size());
        auto common = [&](std::string& s) {
            npz_put16(s, 20);  // version needed
            npz_put16(s, 0);   // flags
            npz_put16(s, 0);   // stored
            npz_put16(s, 0);   // time
            npz_put16(s, kDate);
            npz_put32(s, crc);
            npz_put32(s, size);
            npz_put32(s, size);
            npz_put16(s, static_cast<std::uint32_t>(e.name.size()));
            npz_put16(s, 0);  // extra length
        };
        npz_put32(out, 0x04034b50);
        common(out);
        out += e.name;
        out += e.data;
        npz_put32(central, 0x02014b50);
        npz_put16(central, 20);  // version made by
        common(central);
        npz_put16(central, 0);  // comment length
        npz_put16(central, 0);  // disk
        npz_put16(central, 0);  // internal attributes
        npz_put32(central, 0);  // external attributes
        npz_put32(central, offset);
        central += e.name;
    }
    const auto cd_offset = static_cast<std::uint32_t>(out.size());
    out += central;
    npz_put32(out, 0x06054b50);
    npz_put16(out, 0);
    npz_put16(out, 0);
    npz_put16(out, static_cast<std::uint32_t>(entries_.size()));
    npz_put16(out, static_cast<std::uint32_t>(entries_.size()));
    npz_put32(out, static_cast<std::uint32_t>(central.size()));
    npz_put32(out, cd_offset);
    npz_put16(out, 0);
    return out;
}

}  // namespace hf::cli
