// A tqdm-like progress line on stderr, only when stderr is a terminal (never in logs or pipes).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <mutex>

#include "progress_bar.hpp"

namespace hf::cli {

struct ProgressBar::Impl {
    std::string label;
    std::int64_t total = 0;
    std::int64_t done = 0;
    bool enabled = false;
    bool drawn = false;
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    std::chrono::steady_clock::time_point last{};
    std::mutex mutex;

    void draw(bool force) {
        if (!enabled) return;
        auto now = std::chrono::steady_clock::now();
        if (!force && drawn && now - last < std::chrono::milliseconds(100)) return;
        last = now;
        drawn = true;
        const double secs = std::chrono::duration<double>(now - start).count();
        const int width = 30;
        char bar[width + 1];
        const double frac = total > 0 ? std::min(1.0, static_cast<double>(done) / static_cast<double>(total)) : 0.0;
        const int filled = static_cast<int>(frac * width);
        for (int i = 0; i < width; ++i) bar[i] = i < filled ? '#' : ' ';
        bar[width] = 0;
        const double rate = secs > 0 ? static_cast<double>(done) / secs : 0.0;
        if (total > 0)
            std::fprintf(stderr, "\r%s: %3d%%|%s| %lld/%lld [%.1fs, %.1f/s]\x1b[K", label.c_str(),
                         static_cast<int>(frac * 100), bar, static_cast<long long>(done),
                         static_cast<long long>(total), secs, rate);
        else
            std::fprintf(stderr, "\r%s: %lld [%.1fs]\x1b[K", label.c_str(), static_cast<long long>(done), secs);
        std::fflush(stderr);
    }
};

ProgressBar::ProgressBar(std::string label, std::int64_t total, bool enabled) : impl_(std::make_unique<Impl>()) {
    impl_->label = std::move(label);
    impl_->total = total;
    impl_->enabled = enabled && isatty(STDERR_FILENO);
}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::int64_t done) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->done = done;
    impl_->draw(done >= impl_->total);
}

void ProgressBar::add(std::int64_t n) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->done += n;
    impl_->draw(impl_->done >= impl_->total);
}

void ProgressBar::set_label(const std::string& label) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->label = label;
}

void ProgressBar::finish() {
    if (!impl_) return;
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->enabled && impl_->drawn) {
        std::fprintf(stderr, "\r\x1b[K");
        std::fflush(stderr);
    }
    impl_->drawn = false;
}

infer::ProgressFn ProgressBar::callback() {
    return [this](std::int64_t done, std::int64_t total, const std::string& label) {
        {
            std::lock_guard<std::mutex> lock(impl_->mutex);
            impl_->label = label;
            if (total > 0) impl_->total = total;
        }
        update(done);
    };
}

}  // namespace hf::cli
