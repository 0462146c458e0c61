// A one-line progress bar on stderr, drawn only when stderr is a terminal. Thread-safe. The terminal is the
// command line's business, so this lives here and not in the library.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hfcore/infer.hpp"

namespace hf::cli {

class ProgressBar {
public:
    explicit ProgressBar(std::string label, std::int64_t total, bool enabled = true);
    ~ProgressBar();
    void update(std::int64_t done);
    void add(std::int64_t n = 1);
    void set_label(const std::string& label);
    void finish();
    infer::ProgressFn callback();  // updates this bar (label and count) from a calculator's progress

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace hf::cli
